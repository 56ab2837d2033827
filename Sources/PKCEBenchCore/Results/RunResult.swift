/// Everything one run produced, in report order: where and how it was made, each case's summary
/// and each timed case's samples, kept to the ``Precision`` of its files (each summary computed
/// from the samples as measured). A run read back from its files has the summaries the file
/// records and the samples of its samples file, when there is one; a comparison takes either kind.
package struct RunResult: Sendable {
    /// What messages call the run: its file's path, or what the command calls a run it measured.
    package var name: String
    /// With the libraries of the measured backends only. A file with no cases records none: see
    /// ``recordedEnvironment``.
    package var environment: RunEnvironment
    /// Each timed case's samples, in the order taken; empty for a run whose samples were not kept.
    package let samples: [CaseKey: [Sample]]
    /// What each case came to, in report order.
    package var summaries: [CaseSummary]

    package init(environment: RunEnvironment, measurements: [CaseMeasurement], name: String = "this run") {
        let ordered = measurements.sorted { $0.key < $1.key }
        let measured = Set(ordered.map(\.key.backend))
        var environment = environment
        environment.libraries = environment.libraries.filter { measured.contains($0.key) }
        self.name = name
        self.environment = environment
        self.samples = Dictionary(
            ordered.filter { !$0.samples.isEmpty }.map { ($0.key, $0.samples.map(\.atReportPrecision)) },
            uniquingKeysWith: { first, _ in first })
        self.summaries = ordered.map { CaseSummary($0).atReportPrecision }
    }

    /// A run as its report files keep it: summaries, and the samples of the timed cases when its
    /// samples file was read.
    package init(
        environment: RunEnvironment, summaries: [CaseSummary], samples: [CaseKey: [Sample]] = [:],
        name: String = "this run"
    ) {
        self.name = name
        self.environment = environment
        self.samples = samples
        self.summaries = summaries
    }

    package var failedCases: [CaseKey] {
        summaries.filter { !$0.isOK }.map(\.key)
    }

    /// The environment, or `nil` for a run with no cases, which records none.
    package var recordedEnvironment: RunEnvironment? {
        summaries.isEmpty ? nil : environment
    }

    package var hasSamples: Bool { !samples.isEmpty }

    /// The same run under another name; with `backend`, every case takes that name for its
    /// backend, so that a case of one backend meets its counterpart of another.
    package func named(_ name: String, backend: String? = nil) -> RunResult {
        var run = RunResult(
            environment: environment, summaries: summaries,
            samples: Dictionary(
                samples.map { ($0.key.withBackend(backend), $0.value) }, uniquingKeysWith: { a, _ in a }),
            name: name)
        run.summaries = summaries.map { summary in
            var summary = summary
            summary.key = summary.key.withBackend(backend)
            return summary
        }
        return run
    }

    /// - Throws: ``BenchError`` (`.malformedInput`) when its cases mix timings and instruction counts.
    package func metric() throws(BenchError) -> Metric {
        let metrics = Set(summaries.map(\.metric))
        guard metrics.count <= 1 else {
            throw BenchError(.malformedInput, "\(name): its rows mix timings and instruction counts")
        }
        return metrics.first ?? .time
    }

    /// Each timed case's nanoseconds per operation by measuring process, in the order taken.
    var samplesByProcess: [CaseKey: [Int: [Double]]] {
        samples.mapValues { samples in
            Dictionary(grouping: samples, by: \.process).mapValues { $0.map(\.nanosecondsPerOperation) }
        }
    }
}
