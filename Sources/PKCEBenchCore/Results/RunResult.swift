/// Everything one run produced: where and how it was made, and each case's measurement and what
/// it came to, in report order (operation, size, backend).
///
/// Figures are kept as measured; a report rounds them only as it formats them.
package struct RunResult: Sendable {
    /// How and where the run was made, with the libraries of the backends measured only.
    package var environment: RunEnvironment
    /// Each case's measurement.
    package let measurements: [CaseMeasurement]
    /// What each case came to, in the order of ``measurements``.
    package var summaries: [CaseSummary]

    /// The result of `measurements`, made in `environment`.
    package init(environment: RunEnvironment, measurements: [CaseMeasurement]) {
        let ordered = measurements.sorted { $0.key < $1.key }
        let measured = Set(ordered.map(\.key.backend))
        var environment = environment
        environment.libraries = environment.libraries.filter { measured.contains($0.key) }
        self.environment = environment
        self.measurements = ordered
        self.summaries = ordered.map(CaseSummary.init)
    }

    /// The cases that failed.
    package var failedCases: [CaseKey] {
        summaries.filter { !$0.isOK }.map(\.key)
    }

    /// The run as one side of a comparison, called `name`. With `backend`, every case takes that
    /// name for its backend, so that a case of one backend meets its counterpart of another.
    package func compared(as name: String, backend: String? = nil) -> RunData {
        func renamed(_ key: CaseKey) -> CaseKey {
            var key = key
            if let backend { key.backend = backend }
            return key
        }
        var samplesByCase: [CaseKey: [Int: [Double]]] = [:]
        for measurement in measurements where !measurement.samples.isEmpty {
            samplesByCase[renamed(measurement.key)] = Dictionary(grouping: measurement.samples, by: \.process)
                .mapValues { $0.map(\.nanosecondsPerOperation) }
        }
        return RunData(
            name: name, environment: summaries.isEmpty ? nil : environment,
            summaries: summaries.map { summary in
                var summary = summary
                summary.key = renamed(summary.key)
                return summary
            },
            samplesByCase: samplesByCase)
    }
}
