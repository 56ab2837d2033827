import Foundation
import PKCEBenchCore

package enum ReportFiles {
    /// The samples file that belongs to a summary file: `x.csv` → `x.samples.csv`.
    package static func samplesPath(for summaryPath: String) -> String {
        let base = summaryPath.hasSuffix(".csv") ? String(summaryPath.dropLast(4)) : summaryPath
        return base + ".samples.csv"
    }

    /// Reads a summary file holding one run: one row per case.
    ///
    /// - Throws: `BenchError`: `missingInput`; `malformedInput`, also for two rows of one case.
    package static func readSummary(at path: String) throws(BenchError) -> [SummaryRow] {
        try summaries(from: contents(of: path), path: path)
    }

    /// ``readSummary(at:)`` on a file's contents; `path` names the file in error messages.
    package static func summaries(from bytes: some Collection<UInt8>, path: String) throws(BenchError) -> [SummaryRow] {
        try decode(bytes, path: path, columns: ReportSchema.summaryRead, empty: SummaryRow(), check: okRowFigures) {
            "case \($0.key)"
        }
    }

    /// Reads a file of summary rows from many runs, such as `history.csv`.
    ///
    /// - Throws: As ``readSummary(at:)``, but two rows for one case are an error only within one run.
    package static func readHistory(at path: String) throws(BenchError) -> [SummaryRow] {
        try history(from: contents(of: path), path: path)
    }

    /// The run ids of the history file at `path`, read as CSV records only, without decoding and
    /// checking every field as ``readHistory(at:)`` does.
    ///
    /// - Throws: `BenchError`: as ``readHistory(at:)`` for a file that is not there or not CSV, or has
    ///   no `run_id` column.
    package static func runIDs(inHistoryAt path: String) throws(BenchError) -> Set<String> {
        var reader = try reader(of: contents(of: path), path: path)
        guard let column = reader.header.firstIndex(of: "run_id") else {
            throw BenchError(.malformedInput, "\(path): no run_id column: not a history bench wrote")
        }
        var ids = Set<String>()
        while let record = try next(of: &reader, path: path) {
            if column < record.fields.count { ids.insert(record.fields[column]) }
        }
        return ids
    }

    /// ``readHistory(at:)`` on a file's contents; `path` names the file in error messages.
    package static func history(from bytes: some Collection<UInt8>, path: String) throws(BenchError) -> [SummaryRow] {
        try decode(bytes, path: path, columns: ReportSchema.summaryRead, empty: SummaryRow(), check: okRowFigures) {
            "case \($0.key) of run \($0.environment.runID)"
        }
    }

    /// The runs of a summary file, in the order each first appears: one, or several in a file put
    /// together from several runs; without their samples. ``run(summaryAt:)`` reads a file as one
    /// run, with its samples, as a comparison takes it.
    ///
    /// - Throws: As ``readSummary(at:)``.
    package static func runs(inSummaryAt path: String) throws(BenchError) -> [RunResult] {
        SummaryRow.runs(of: try readSummary(at: path))
    }

    /// The runs of `history.csv`, oldest first.
    ///
    /// - Throws: As ``readHistory(at:)``.
    package static func runs(inHistoryAt path: String) throws(BenchError) -> [RunResult] {
        SummaryRow.runs(of: try readHistory(at: path))
    }

    /// Throws as ``readSummary(at:)`` does; two rows for one sample of one case are an error.
    package static func readSamples(at path: String) throws(BenchError) -> [SampleRow] {
        try samples(from: contents(of: path), path: path)
    }

    /// ``readSamples(at:)`` on a file's contents; `path` names the file in error messages.
    package static func samples(from bytes: some Collection<UInt8>, path: String) throws(BenchError) -> [SampleRow] {
        try decode(bytes, path: path, columns: ReportSchema.samples, empty: SampleRow()) {
            "sample \($0.index) of case \($0.key)"
        }
    }

    /// Writes one file whole or not at all: under a temporary name beside it, then renamed.
    ///
    /// - Throws: `BenchError` (`cannotWrite`) when it cannot be written.
    package static func write(_ contents: String, to path: String) throws(BenchError) {
        try AtomicFiles.writeAll([(URL(fileURLWithPath: path), contents)])
    }

    /// Whether a file (not a directory) exists at `path`.
    package static func exists(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && !isDirectory.boolValue
    }

    /// The largest file read as a report: a year of full runs on every commit is a few tens of MiB.
    static let maximumFileSize = 256 << 20

    /// What a field of a report may hold, in bytes: the facts a run records about itself as much as
    /// their grammars take (``RecordedFields``), any other field 4 KiB, a worker's longest reason.
    /// Checked as the file is read, so that no field is held beyond its limit.
    static let limits = CSV.Limits(
        columns: 256,
        fieldBytes: [
            "commit": RecordedFields.commitLimit, "run_id": RecordedFields.runIDLimit, "timestamp": 32, "build": 32,
        ],
        otherFieldBytes: 4096)

    /// The bytes of a regular file: `missingInput` when there is none, `malformedInput` beyond
    /// ``maximumFileSize``. POSIX `read`, as `Data(contentsOf:)` leaks for an empty file (LeakSanitizer).
    static func contents(of path: String) throws(BenchError) -> [UInt8] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw .missing(path, "no such file")
        }
        guard !isDirectory.boolValue else {
            throw .missing(path, "is a directory, not a file")
        }
        // Not blocking: opening a FIFO would wait for a writer for ever. A regular file reads the same.
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
        guard descriptor >= 0 else {
            throw .missing(path, "cannot be read (\(String(cString: strerror(errno))))")
        }
        defer { close(descriptor) }
        // A FIFO or a device (/dev/zero) would be read forever; a report is a file of bounded size.
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            throw .missing(path, "is not a regular file")
        }
        let tooLarge = BenchError.malformed(path, "is larger than \(maximumFileSize >> 20) MiB, too large for a report")
        guard status.st_size <= maximumFileSize else { throw tooLarge }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Int(status.st_size))
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else {
                throw .missing(path, "cannot be read (\(String(cString: strerror(errno))))")
            }
            if count == 0 { return bytes }
            bytes += chunk[..<count]
            guard bytes.count <= maximumFileSize else { throw tooLarge }
        }
    }

    /// Why a row marked `ok` is not one: a figure it lacks.
    private static func okRowFigures(_ row: SummaryRow) -> String? {
        row.missingFigure.map { "status ok, but \($0) is empty" }
    }

    /// The rows in `bytes`, each decoded as it is read; a second row with the same `identity` as an
    /// earlier one is an error, as is a row that `check` finds fault with. The first error ends the
    /// reading: what follows it is not parsed.
    private static func decode<Row>(
        _ bytes: some Collection<UInt8>, path: String, columns: [Column<Row>], empty: Row,
        check: (Row) -> String? = { _ in nil }, identity: (Row) -> String
    ) throws(BenchError) -> [Row] {
        var reader = try self.reader(of: bytes, path: path)
        let present = try ReportSchema.present(columns, in: reader.header, path: path)
        var rows: [Row] = []
        var firstLines: [String: Int] = [:]
        while let record = try next(of: &reader, path: path) {
            let row = try ReportSchema.decode(record, columns: present, empty: empty, path: path)
            if let fault = check(row) { throw .malformed(path, line: record.line, fault) }
            let id = identity(row)
            if let first = firstLines[id] {
                throw .malformed(path, line: record.line, "a second row for \(id); the first is on line \(first)")
            }
            firstLines[id] = record.line
            rows.append(row)
        }
        return rows
    }

    /// A reader of the CSV in `bytes`, within ``limits``, its header read.
    ///
    /// - Throws: `BenchError` (`malformedInput`) at the place of a parse error.
    static func reader(of bytes: some Collection<UInt8>, path: String) throws(BenchError) -> CSVReader {
        do {
            return try CSVReader(bytes, limits: limits)
        } catch {
            throw malformed(error, path: path)
        }
    }

    /// The next record of `reader`, or `nil` at the end.
    ///
    /// - Throws: `BenchError` (`malformedInput`) at the place of a parse error.
    static func next(of reader: inout CSVReader, path: String) throws(BenchError) -> CSVRecord? {
        do {
            return try reader.next()
        } catch {
            throw malformed(error, path: path)
        }
    }

    private static func malformed(_ error: CSVError, path: String) -> BenchError {
        let place = "\(path):\(error.line)" + (error.column.map { ":\($0)" } ?? "")
        return BenchError(.malformedInput, "\(place): \(error.message)")
    }
}
