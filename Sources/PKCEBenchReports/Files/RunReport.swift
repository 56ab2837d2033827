import PKCEBenchCore

/// Everything one run produced: its environment, a summary per case, and every sample.
package struct RunReport: Sendable {
    /// How and where the run was made.
    package let environment: RunEnvironment
    /// One row per case, in report order (operation, size, backend).
    package let summaries: [SummaryRow]
    /// One row per sample.
    package let samples: [SampleRow]

    /// Builds the report of measured cases.
    ///
    /// Its figures are rounded as its CSV files keep them, so that what the run prints, draws and
    /// compares is what its files say, and what `bench compare` of those files finds.
    package init(environment: RunEnvironment, measurements: [CaseMeasurement]) {
        let ordered = measurements.sorted { $0.key < $1.key }
        // The libraries of the backends measured, not of every backend the program has.
        var environment = environment
        let measured = Set(measurements.map(\.key.backend))
        environment.libraries = environment.libraries.filter { measured.contains($0.key) }
        self.environment = environment
        self.summaries = ordered.map {
            ReportSchema.asStored(
                SummaryRow(summary: CaseSummary($0), environment: environment), columns: ReportSchema.summary)
        }
        self.samples = ordered.flatMap { SampleRow.rows(of: $0, runID: environment.runID) }.map {
            ReportSchema.asStored($0, columns: ReportSchema.samples)
        }
    }
}
