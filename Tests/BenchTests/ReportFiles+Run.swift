import PKCEBenchCore
@testable import PKCEBenchReports

extension ReportFiles {
    /// Writes a run's summary to `path` and its samples beside it, as `bench` writes them.
    static func write(_ run: RunResult, summaryAt path: String) throws {
        try write(ReportSchema.encode(SummaryRow.rows(of: run), columns: ReportSchema.summary), to: path)
        try write(
            ReportSchema.encode(SampleRow.rows(of: run), columns: ReportSchema.samples), to: samplesPath(for: path))
    }
}
