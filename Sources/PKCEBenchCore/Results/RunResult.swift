/// Everything one run produced, in report order: where and how it was made, each case's summary
/// and each timed case's samples, kept to the ``Precision`` of its files (each summary computed
/// from the samples as measured). A run read back from its files has the summaries the file
/// records and the samples of its samples file, when there is one; a comparison takes either kind.
package struct RunResult: Sendable {
    /// What messages call the run: its file's path, what the command calls a run it measured, or
    /// its run id.
    package var name: String
    /// With the libraries of the measured backends only. A file with no cases records none: see
    /// ``recordedEnvironment``.
    package var environment: RunEnvironment
    /// Each timed case's samples, in the order taken, by case; empty for a run whose samples were
    /// not kept. A run read from files has what its samples file holds.
    package let samples: [CaseKey: [Sample]]
    /// Whether the run kept samples at all: measured, or read with its samples file, even one
    /// without a case's samples; a comparison of runs without them decides on their summaries alone.
    package let hasSamples: Bool
    /// What each case came to, in report order.
    package var summaries: [CaseSummary]

    /// A run as measured: each case's summary computed from its measurement, both kept to the
    /// precision of the files, and the libraries of the backends it measured.
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
        self.hasSamples = !measurements.isEmpty
        self.summaries = ordered.map { CaseSummary($0).atReportPrecision }
    }

    /// A run as its report files keep it: summaries, and samples when its samples file was read
    /// (`nil` when there was none); called `name`, or by its run id.
    package init(
        environment: RunEnvironment, summaries: [CaseSummary], samples: [CaseKey: [Sample]]? = nil,
        name: String? = nil
    ) {
        self.name = name ?? environment.runID
        self.environment = environment
        self.samples = samples ?? [:]
        self.hasSamples = samples != nil
        self.summaries = summaries
    }

    package var failedCases: [CaseKey] {
        summaries.filter { !$0.isOK }.map(\.key)
    }

    /// The environment, or `nil` for a run with no cases, which records none.
    package var recordedEnvironment: RunEnvironment? {
        summaries.isEmpty ? nil : environment
    }

    /// The same run under another name; with `backend`, every case takes that name for its
    /// backend, so that a case of one backend meets its counterpart of another (`bench pair`,
    /// whose runs each measure one backend).
    package func named(_ name: String, backend: String? = nil) -> RunResult {
        RunResult(
            environment: environment,
            summaries: summaries.map { summary in
                var summary = summary
                summary.key = summary.key.withBackend(backend)
                return summary
            },
            samples: hasSamples
                ? Dictionary(samples.map { ($0.key.withBackend(backend), $0.value) }, uniquingKeysWith: { $1 })
                : nil,
            name: name)
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
