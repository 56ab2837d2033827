/// Everything one run produced, in report order: where and how it was made, and each case's
/// measurement and summary, kept to the ``Precision`` of its files (each summary computed from the
/// samples as measured).
package struct RunResult: Sendable {
    /// With the libraries of the measured backends only.
    package var environment: RunEnvironment
    package let measurements: [CaseMeasurement]
    /// What each case came to, in the order of ``measurements``.
    package var summaries: [CaseSummary]

    package init(environment: RunEnvironment, measurements: [CaseMeasurement]) {
        let ordered = measurements.sorted { $0.key < $1.key }
        let measured = Set(ordered.map(\.key.backend))
        var environment = environment
        environment.libraries = environment.libraries.filter { measured.contains($0.key) }
        self.environment = environment
        self.measurements = ordered.map(\.atReportPrecision)
        self.summaries = ordered.map { CaseSummary($0).atReportPrecision }
    }

    /// A run as a report file keeps it: summaries without samples.
    package init(environment: RunEnvironment, summaries: [CaseSummary]) {
        self.environment = environment
        self.measurements = []
        self.summaries = summaries
    }

    package var failedCases: [CaseKey] {
        summaries.filter { !$0.isOK }.map(\.key)
    }
}
