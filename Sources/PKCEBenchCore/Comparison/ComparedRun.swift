package struct RunIdentity: Sendable, Equatable {
    /// What the comparison calls the run: usually its file's path.
    package var name: String
    /// Empty when the run has no cases.
    package var runID: String
    /// The commit it measured (`unknown` outside a Git checkout).
    package var commit: String
    /// `nil` when the run has no cases.
    package var environment: RunEnvironment?

    package init(_ run: ComparedRun) {
        name = run.name
        runID = run.environment?.runID ?? ""
        commit = run.environment?.commit ?? ""
        environment = run.environment
    }
}

/// A run as one side of a comparison reads it, made from a ``RunResult`` or read back from its
/// files. Unlike a result, it may come from a file without samples, or put together from
/// several runs.
package struct ComparedRun: Sendable {
    /// What to call the run in messages: usually its file's path.
    package let name: String
    /// Where and how it was measured; `nil` when it has no cases. (A file's first row says, with
    /// the library of each backend from that backend's rows.)
    package let environment: RunEnvironment?
    /// The build configurations its cases were measured in: one, except in a file put together
    /// from several runs.
    package let builds: Set<BuildConfiguration>
    package let summaries: [CaseSummary]
    /// Nanoseconds per operation of each sample, by case and then by measuring process, in the
    /// order taken; `nil` when the run kept no samples.
    package let samplesByCase: [CaseKey: [Int: [Double]]]?

    /// `builds` defaults to the environment's build.
    package init(
        name: String, environment: RunEnvironment?, builds: Set<BuildConfiguration>? = nil, summaries: [CaseSummary],
        samplesByCase: [CaseKey: [Int: [Double]]]?
    ) {
        self.name = name
        self.environment = environment
        self.builds = builds ?? Set([environment?.build].compactMap { $0 })
        self.summaries = summaries
        self.samplesByCase = samplesByCase
    }

    /// With `backend`, every case takes that name for its backend, so that a case of one backend
    /// meets its counterpart of another.
    package init(_ run: RunResult, name: String, backend: String? = nil) {
        func renamed(_ key: CaseKey) -> CaseKey { Self.key(key, as: backend) }
        var samplesByCase: [CaseKey: [Int: [Double]]] = [:]
        for measurement in run.measurements where !measurement.samples.isEmpty {
            samplesByCase[renamed(measurement.key)] = Dictionary(grouping: measurement.samples, by: \.process)
                .mapValues { $0.map(\.nanosecondsPerOperation) }
        }
        self.init(
            name: name, environment: run.summaries.isEmpty ? nil : run.environment,
            summaries: run.summaries.map { summary in
                var summary = summary
                summary.key = renamed(summary.key)
                return summary
            },
            samplesByCase: run.measurements.isEmpty ? nil : samplesByCase)
    }

    /// `key` as a run compared under `backend`'s name calls it.
    package static func key(_ key: CaseKey, as backend: String?) -> CaseKey {
        var key = key
        if let backend { key.backend = backend }
        return key
    }

    package var hasSamples: Bool { samplesByCase != nil }

    /// - Throws: ``BenchError`` (`.malformedInput`) when its cases mix timings and instruction counts.
    package func metric() throws(BenchError) -> Metric {
        let metrics = Set(summaries.map(\.metric))
        guard metrics.count <= 1 else {
            throw BenchError(.malformedInput, "\(name): its rows mix timings and instruction counts")
        }
        return metrics.first ?? .time
    }

    /// `nil`, never empty, when the case has no samples.
    func samplesByProcess(of key: CaseKey) -> [Int: [Double]]? {
        samplesByCase?[key].flatMap { $0.isEmpty ? nil : $0 }
    }
}
