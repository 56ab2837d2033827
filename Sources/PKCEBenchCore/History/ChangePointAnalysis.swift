import Foundation

/// Steps in each case's series of runs, from a history of runs: the analysis behind
/// `bench history --changes`, its rule, unit and error rates in the article "Tracking regressions
/// over time".
///
/// A series is one case on one host (CPU model and flags), in one build configuration and target
/// CPU, in one metric, in the order the runs were made; the run is its unit. Timings are each run's
/// fastest sample, the figure a busy host moves least, on the log scale and divided by the run's
/// common-mode factor: the median over the run's cases of how far each sits from its own median
/// over the series, which takes out what slowed or sped up the whole host at once (counts need no
/// such correction). Runs of one commit next to each other are one group: a step falls only between
/// commits. ``EDivisive`` finds the steps; a step smaller than the threshold is dropped and its
/// neighbours measured again against each other.
package struct ChangePointAnalysis: Sendable, Equatable {
    package var detector: EDivisive
    /// The smallest change, as a fraction, that a step must show to be reported.
    package var threshold: Double

    /// Fewer runs than this in a series are reported as too short: two segments of the minimum length.
    package var fewestRuns: Int { 2 * detector.minimumSegment }

    /// The analysis the command line runs: p ≤ 0.05 by 199 permutations, segments of at least
    /// three runs. At 0.01 a step with 3 runs after it in a history of 12 could not be found (220
    /// orderings of those runs are all the test has); the threshold, not the p-value, is what keeps
    /// false steps out on this host, as the article's simulation shows.
    package static func standard(threshold: Double) -> ChangePointAnalysis {
        ChangePointAnalysis(
            detector: EDivisive(significance: 0.05, permutations: 199, minimumSegment: 3), threshold: threshold)
    }

    package init(detector: EDivisive, threshold: Double) {
        self.detector = detector
        self.threshold = threshold
    }

    /// The series of every case `include` keeps, in `runs` (oldest first) of `metric`, with their
    /// steps: of each host's runs, the last `lastRuns` (each permutation costs the square of a
    /// series' length).
    package func series(
        of runs: [RunResult], metric: Metric, lastRuns: Int = .max, include: (CaseKey) -> Bool = { _ in true }
    ) -> [CaseSeries] {
        let hosts = Dictionary(grouping: runs.filter { $0.summaries.contains { $0.metric == metric } }) {
            SeriesHost(run: $0, metric: metric)
        }
        return hosts.keys.sorted().flatMap { host in
            analyse(
                HostSeries(runs: hosts[host] ?? [], metric: metric, lastRuns: lastRuns), host: host, include: include)
        }
    }

    private func analyse(_ series: HostSeries, host: SeriesHost, include: (CaseKey) -> Bool) -> [CaseSeries] {
        series.keys.filter(include).map { key in
            let points = series.points(of: key)
            guard points.count >= fewestRuns else {
                return CaseSeries(key: key, host: host, points: points, changePoints: [], isTooShort: true)
            }
            let values = points.map(\.level)
            // A run without a known commit is a group of its own.
            let boundaries = Set(
                points.indices.dropFirst().filter {
                    points[$0].commit != points[$0 - 1].commit || !points[$0].commit.isKnown
                })
            var splits = detector.splits(of: values, allowedAt: boundaries)
            // Drop the smallest step below the threshold, then measure its neighbours again.
            while let smallest = splits.indices.min(by: {
                abs(change(at: $0, of: splits, in: values).change) < abs(change(at: $1, of: splits, in: values).change)
            }), abs(change(at: smallest, of: splits, in: values).change) < threshold {
                splits.remove(at: smallest)
            }
            let changePoints = splits.indices.map { position in
                let split = splits[position]
                let before = points[split.index - 1], after = points[split.index]
                return ChangePoint(
                    lastBefore: before, firstAfter: after, index: split.index,
                    estimate: change(at: position, of: splits, in: values), pValue: split.pValue,
                    libraryChange: before.library == after.library ? nil : (before.library, after.library))
            }
            return CaseSeries(key: key, host: host, points: points, changePoints: changePoints, isTooShort: false)
        }
    }

    /// The change at `splits[position]`: the segment after it against the segment before, each
    /// reaching to the neighbouring step, by Welch's t-test on the runs' levels.
    private func change(at position: Int, of splits: [EDivisive.Split], in values: [Double]) -> ChangeEstimate {
        let start = position > 0 ? splits[position - 1].index : 0
        let split = splits[position].index
        let end = position + 1 < splits.count ? splits[position + 1].index : values.count
        guard
            let estimate = ChangeEstimate.independent(
                baseline: values[start..<split].map(exp), current: values[split..<end].map(exp))
        else {
            preconditionFailure("segments of at least \(detector.minimumSegment) runs always give an estimate")
        }
        return estimate
    }
}

/// What makes runs one series: the host (``Host/isSameSeries(as:)``) and the metric.
package struct SeriesHost: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The host of the series' first run; its cores are not compared.
    package let machine: Host
    package let metric: Metric

    package init(run: RunResult, metric: Metric) {
        machine = run.environment.host
        self.metric = metric
    }

    package var cpu: String { machine.cpu }
    package var cpuFlags: String { machine.cpuFlags }
    package var build: BuildConfiguration { machine.build }
    package var targetCPU: String { machine.targetCPU }

    /// `AMD EPYC (sha_ni avx2), release, x86-64, time`.
    package var description: String {
        "\(cpu) (\(cpuFlags.isEmpty ? "no listed flags" : cpuFlags)), \(build), \(targetCPU), \(metric.rawValue)"
    }

    package static func < (lhs: SeriesHost, rhs: SeriesHost) -> Bool {
        lhs.description < rhs.description
    }

    package static func == (lhs: SeriesHost, rhs: SeriesHost) -> Bool {
        lhs.metric == rhs.metric && lhs.machine.isSameSeries(as: rhs.machine)
    }

    package func hash(into hasher: inout Hasher) {
        machine.hashSeries(into: &hasher)
        hasher.combine(metric)
    }
}

/// One case's runs on one host, with the steps found in them.
package struct CaseSeries: Sendable, Equatable {
    package let key: CaseKey
    package let host: SeriesHost
    /// Oldest first.
    package let points: [Point]
    /// In the order of the series.
    package let changePoints: [ChangePoint]
    /// Fewer runs than the analysis needs: no step can be found.
    package let isTooShort: Bool

    /// One run of the case.
    package struct Point: Sendable, Equatable {
        package let runID: String
        package let commit: RecordedCommit
        package let timestamp: String
        /// The run's figure: the fastest sample in nanoseconds per operation, or instructions per operation.
        package let value: Double
        /// `log(value)`, less the run's common-mode factor for timings: what the analysis compares.
        package let level: Double
        /// The backend's library in that run, or empty.
        package let library: String
    }
}

/// A step in a case's series.
package struct ChangePoint: Sendable, Equatable {
    /// The last run before the step and the first after it.
    package let lastBefore: CaseSeries.Point
    package let firstAfter: CaseSeries.Point
    /// The position of ``firstAfter`` in the series.
    package let index: Int
    /// The segment after against the segment before; positive is slower.
    package let estimate: ChangeEstimate
    /// The permutation test's.
    package let pValue: Double
    /// The backend's library before and after, when it changed at the step.
    package let libraryChange: (before: String, after: String)?

    package var isRegression: Bool { estimate.change > 0 }

    package static func == (lhs: ChangePoint, rhs: ChangePoint) -> Bool {
        lhs.lastBefore == rhs.lastBefore && lhs.firstAfter == rhs.firstAfter && lhs.index == rhs.index
            && lhs.estimate == rhs.estimate && lhs.pValue == rhs.pValue
            && lhs.libraryChange?.before == rhs.libraryChange?.before
            && lhs.libraryChange?.after == rhs.libraryChange?.after
    }
}

/// The runs of one series host, by case, with each run's common-mode factor.
private struct HostSeries {
    let runs: [RunResult]
    let metric: Metric
    let keys: [CaseKey]
    /// `log(figure)` by run and case.
    private let logs: [[CaseKey: Double]]
    /// By run: 0 for counts.
    private let commonMode: [Double]

    init(runs: [RunResult], metric: Metric, lastRuns: Int) {
        // The order the runs were made in; a file appended to in turn is in it already.
        let runs = Array(
            runs.enumerated().sorted {
                ($0.element.environment.timestamp, $0.offset) < ($1.element.environment.timestamp, $1.offset)
            }.map(\.element).suffix(lastRuns))
        self.runs = runs
        self.metric = metric
        let logs = runs.map { run in
            Dictionary(
                run.summaries.compactMap { summary -> (CaseKey, Double)? in
                    guard summary.metric == metric, let figure = Self.figure(of: summary), figure > 0 else {
                        return nil
                    }
                    return (summary.key, log(figure))
                }, uniquingKeysWith: { first, _ in first })
        }
        self.logs = logs
        keys = Set(logs.flatMap(\.keys)).sorted()
        guard metric == .time, keys.count >= Self.fewestCasesForCommonMode else {
            commonMode = Array(repeating: 0, count: runs.count)
            return
        }
        var medians: [CaseKey: Double] = [:]
        for key in keys {
            let sorted = logs.compactMap { $0[key] }.sorted()
            medians[key] = Statistics.percentile(50, ofSorted: sorted)
        }
        commonMode = logs.map { run in
            guard run.count >= Self.fewestCasesForCommonMode else { return 0 }
            let offsets = run.compactMap { key, level in medians[key].map { level - $0 } }.sorted()
            return offsets.isEmpty ? 0 : Statistics.percentile(50, ofSorted: offsets)
        }
    }

    /// With fewer cases, a change to most of them would be taken for the host's and removed.
    static let fewestCasesForCommonMode = 8

    func points(of key: CaseKey) -> [CaseSeries.Point] {
        runs.indices.compactMap { index in
            guard let level = logs[index][key] else { return nil }
            let environment = runs[index].environment
            return CaseSeries.Point(
                runID: environment.runID, commit: environment.recordedCommit, timestamp: environment.timestamp,
                value: exp(level), level: level - commonMode[index],
                library: environment.libraries[key.backend] ?? "")
        }
    }

    private static func figure(of summary: CaseSummary) -> Double? {
        switch summary.outcome {
        case .timed(let times): times.fastest
        case .counted(let instructions): instructions
        case .failed: nil
        }
    }
}
