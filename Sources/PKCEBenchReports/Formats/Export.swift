import PKCEBenchCore

/// The JSON that CI benchmark trackers read, which `bench export` writes from a summary CSV.
package enum ExportFormat: String, CaseIterable, Sendable {
    /// Bencher Metric Format, as the article "Exports and CI recipes" describes it.
    case bencher
    /// github-action-benchmark's `customSmallerIsBetter` array, as the article "Exports and CI
    /// recipes" describes it.
    case githubActionBenchmark = "github-action-benchmark"
}

package enum Exporter {
    /// The cases in order of their names; failed cases are left out (``failedCases(_:)`` names
    /// them).
    package static func render(_ runs: [RunResult], as format: ExportFormat) -> String {
        let cases = runs.flatMap { run in
            run.summaries.filter(\.isOK).map { (summary: $0, environment: run.environment) }
        }.sorted { $0.summary.key < $1.summary.key }
        switch format {
        case .bencher:
            // A case both timed and counted is one benchmark with the measures of both.
            return encodeJSON(
                Dictionary(
                    cases.map { ($0.summary.key.description, bencherMeasures($0.summary)) },
                    uniquingKeysWith: { first, second in first.merging(second) { kept, _ in kept } }))
        case .githubActionBenchmark:
            return encodeJSON(cases.map { githubActionBenchmarkEntry($0.summary, of: $0.environment) })
        }
    }

    package static func failedCases(_ runs: [RunResult]) -> [String] {
        runs.flatMap(\.failedCases).map(\.description)
    }

    struct BencherMetric: Encodable {
        let value: Double
        var lowerValue: Double? = nil
        var upperValue: Double? = nil

        enum CodingKeys: String, CodingKey {
            case value, lowerValue = "lower_value", upperValue = "upper_value"
        }
    }

    private static func bencherMeasures(_ summary: CaseSummary) -> [String: BencherMetric] {
        var measures: [String: BencherMetric] = [:]
        switch summary.outcome {
        case .counted(let instructions):
            return ["instructions": BencherMetric(value: instructions)]
        case .timed(let times):
            measures["latency"] = BencherMetric(value: times.median, lowerValue: times.p10, upperValue: times.p90)
            if let opsPerSec = times.operationsPerSecond { measures["throughput"] = BencherMetric(value: opsPerSec) }
        case .failed:
            break
        }
        if let allocations = summary.allocationsPerOperation {
            measures["allocations"] = BencherMetric(value: allocations)
        }
        return measures
    }

    /// An entry of github-action-benchmark's `customSmallerIsBetter` format.
    struct GitHubActionBenchmarkEntry: Encodable {
        let name: String
        let unit: String
        let value: Double
        let range: String?
        let extra: String
    }

    private static func githubActionBenchmarkEntry(
        _ summary: CaseSummary, of environment: RunEnvironment
    ) -> GitHubActionBenchmarkEntry {
        var extra = ["run \(environment.runID)", "commit \(environment.commit)"]
        if summary.metric == .instructions {
            extra.append("instructions under Callgrind")
            return GitHubActionBenchmarkEntry(
                name: "\(summary.key) (instructions)", unit: "instructions/op",
                value: summary.instructionsPerOperation ?? 0,
                range: nil, extra: extra.joined(separator: "\n"))
        }
        let times = summary.times
        extra.append("\(summary.samples) samples")
        if let opsPerSec = times?.operationsPerSecond {
            extra.append("\(NumberFormat.siPrefixed(opsPerSec)) ops/s")
        }
        if let allocations = summary.allocationsPerOperation {
            extra.append("\(SummaryFormatter.allocations(allocations)) allocs/op")
        }
        let range = times.map { "p10 \(NumberFormat.nanoseconds($0.p10)) … p90 \(NumberFormat.nanoseconds($0.p90))" }
        return GitHubActionBenchmarkEntry(
            name: summary.key.description, unit: "ns/op", value: times?.median ?? 0, range: range,
            extra: extra.joined(separator: "\n"))
    }
}
