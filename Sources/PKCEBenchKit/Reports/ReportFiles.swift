import Foundation

/// Reading reports back: the summary and samples CSV files that runs write.
public enum ReportFiles {
    /// The samples file that belongs to a summary file: `x.csv` → `x.samples.csv`.
    public static func samplesPath(for summaryPath: String) -> String {
        let base = summaryPath.hasSuffix(".csv") ? String(summaryPath.dropLast(4)) : summaryPath
        return base + ".samples.csv"
    }

    /// Reads a summary file holding one run: one row per case.
    ///
    /// - Throws: ``BenchError``: 66 when the file is missing or unreadable; 65 when it is not CSV,
    ///   lacks a column, has a bad value, comes from another schema version, or has two rows for
    ///   one case.
    public static func readSummary(at path: String) throws(BenchError) -> [SummaryRow] {
        let rows = try read(path, columns: ReportSchema.summary, empty: SummaryRow())
        try rejectDuplicates(rows, path: path) { "case \($0.key)" }
        return rows.map(\.row)
    }

    /// Reads a file of summary rows from many runs, such as `history.csv`.
    ///
    /// - Throws: As ``readSummary(at:)``, but two rows for one case are an error only within one run.
    public static func readHistory(at path: String) throws(BenchError) -> [SummaryRow] {
        let rows = try read(path, columns: ReportSchema.summary, empty: SummaryRow())
        try rejectDuplicates(rows, path: path) { "case \($0.key) of run \($0.runID)" }
        return rows.map(\.row)
    }

    /// Reads a samples file.
    ///
    /// - Throws: As ``readSummary(at:)``; two rows for one sample of one case are an error.
    public static func readSamples(at path: String) throws(BenchError) -> [SampleRow] {
        let rows = try read(path, columns: ReportSchema.samples, empty: SampleRow())
        try rejectDuplicates(rows, path: path) { "sample \($0.sample) of case \($0.key)" }
        return rows.map(\.row)
    }

    /// Writes a run's summary to `path` and its samples beside it, both or neither.
    ///
    /// - Throws: ``BenchError`` (73) when either cannot be written.
    public static func write(_ report: RunReport, summaryAt path: String) throws(BenchError) {
        var files = AtomicFiles()
        defer { files.discard() }
        try files.stage(ReportSchema.encode(report.summaries, columns: ReportSchema.summary), at: URL(fileURLWithPath: path))
        try files.stage(
            ReportSchema.encode(report.samples, columns: ReportSchema.samples),
            at: URL(fileURLWithPath: samplesPath(for: path)))
        try files.commit()
    }

    /// Writes one file whole or not at all: under a temporary name beside it, then renamed.
    ///
    /// - Throws: ``BenchError`` (73) when it cannot be written.
    public static func write(_ contents: String, to path: String) throws(BenchError) {
        var files = AtomicFiles()
        defer { files.discard() }
        try files.stage(contents, at: URL(fileURLWithPath: path))
        try files.commit()
    }

    /// Whether a file (not a directory) exists at `path`.
    public static func exists(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && !isDirectory.boolValue
    }

    /// The bytes of a file, or a ``BenchError`` (66) saying why there are none.
    static func contents(of path: String) throws(BenchError) -> Data {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw .missing(path, "no such file")
        }
        guard !isDirectory.boolValue else {
            throw .missing(path, "is a directory, not a file")
        }
        do {
            return try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw .missing(path, "cannot be read (\(Self.reason(error)))")
        }
    }

    private static func read<Row>(
        _ path: String, columns: [Column<Row>], empty: Row
    ) throws(BenchError) -> [(line: Int, row: Row)] {
        let data = try contents(of: path)
        let table: CSVTable
        do {
            table = try CSV.parse(data)
        } catch {
            throw BenchError(
                .malformedInput, "\(path):\(error.line)" + (error.column.map { ":\($0)" } ?? "") + ": \(error.message)")
        }
        return try ReportSchema.decode(table, columns: columns, empty: empty, path: path)
    }

    private static func rejectDuplicates<Row>(
        _ rows: [(line: Int, row: Row)], path: String, id: (Row) -> String
    ) throws(BenchError) {
        var firstLines: [String: Int] = [:]
        for (line, row) in rows {
            let identity = id(row)
            if let first = firstLines[identity] {
                throw .malformed(path, line: line, "a second row for \(identity); the first is on line \(first)")
            }
            firstLines[identity] = line
        }
    }

    private static func reason(_ error: any Error) -> String {
        (error as NSError).localizedFailureReason ?? (error as NSError).localizedDescription
    }
}
