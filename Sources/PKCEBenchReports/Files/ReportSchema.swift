import Foundation
import PKCEBenchCore

struct Column<Row>: Sendable {
    let name: String
    let encode: @Sendable (Row) -> String
    let decode: @Sendable (inout Row, String) throws(FieldError) -> Void
    /// Whether a file without this column is malformed: not for columns added after version 1,
    /// so that older reports still read.
    var isRequired = true
}

extension Column {
    /// A column an older version wrote and this one only reads, into the field that replaced it.
    static func former(_ name: String, decode: @escaping @Sendable (inout Row, String) -> Void) -> Column {
        Column(name: name, encode: { _ in "" }, decode: { row, value in decode(&row, value) }, isRequired: false)
    }
}

/// A row that records the schema version it was read in, which columns read before later ones.
protocol SchemaVersioned: Sendable {
    var schema: Int { get }
}

extension SummaryRow: SchemaVersioned {}
extension SampleRow: SchemaVersioned {}

/// Why a field could not be read; the caller adds the file, line and column.
struct FieldError: Error {
    let message: String
}

/// The columns of the reports, in order. Their names are stable: a change that renames, removes
/// or reinterprets one raises ``version``; a new column is added as optional instead.
///
/// Version 2 replaced version 1's `openssl` and `libsodium` columns with `library`, the row's own
/// backend's; files of either version read, and a version 1 history takes version 2's rows.
/// Version 3 gave `run_id`, `timestamp`, `commit` and `build` their grammars
/// (``RecordedFields``); an older row's `commit` that is not one reads as `unknown`.
package enum ReportSchema {
    /// The format's version, written in every row's `schema` column.
    package static let version = 3

    /// The first version whose `commit` and `run_id` follow ``RecordedFields``' grammars.
    static let recordedFieldsVersion = 3

    static let oldestReadable = 1

    /// The names of the columns of summary reports (`<run>.csv`, `latest.csv`, `baseline.csv`, `history.csv`).
    package static var summaryColumnNames: [String] { summary.map(\.name) }

    static let summary: [Column<SummaryRow>] = [
        schemaColumn(\.schema),
        runIDColumn(\.environment.runID), timestampColumn(\.environment.timestamp),
        commitColumn(\.environment.recordedCommit), buildColumn(\.environment.build),
        backendColumn(\.key.backend), operationColumn(\.key.operation), sizeColumn(\.key),
        count("threads", \.key.threads, through: Selection.maximumThreads),
        // Read before `error`, which fills in the reason of a failed case.
        Column(name: "status", encode: { $0.failure == nil ? SummaryRow.ok : SummaryRow.failed }) {
            row, value throws(FieldError) in
            guard value == SummaryRow.ok || value == SummaryRow.failed else {
                throw FieldError(message: "'\(value)' is neither '\(SummaryRow.ok)' nor '\(SummaryRow.failed)'")
            }
            row.failure = value == SummaryRow.ok ? nil : ""
        },
        count("samples", \.samples, from: 0), count("iterations", \.iterations, from: 0),
        measure("ns_median", \.median, decimals: Precision.nanoseconds),
        measure("ns_p10", \.p10, decimals: Precision.nanoseconds),
        measure("ns_p90", \.p90, decimals: Precision.nanoseconds),
        measure("ns_min", \.fastest, decimals: Precision.nanoseconds),
        measure("ns_mean", \.mean, decimals: Precision.nanoseconds),
        measure("ns_stddev", \.standardDeviation, decimals: Precision.nanoseconds),
        measure("cv", \.coefficientOfVariation, decimals: Precision.coefficientOfVariation),
        measure("ops_per_sec", \.operationsPerSecond, decimals: Precision.operationsPerSecond),
        measure("mb_per_sec", \.megabytesPerSecond, decimals: Precision.megabytesPerSecond),
        text("cpu", \.environment.cpu), text("cpu_flags", \.environment.cpuFlags),
        count("cores", \.environment.cores, from: 0), text("kernel", \.environment.kernel),
        text("swift", \.environment.swift),
        // After `backend`, which it is the library of.
        optional(
            Column(name: "library", encode: { $0.environment.libraries[$0.key.backend] ?? "" }) { row, value in
                if !value.isEmpty { row.environment.libraries[row.key.backend] = value }
            }),
        Column(name: "error", encode: { $0.failure ?? "" }) { row, value in
            // A reason beside `ok` is not a failure: the status decides.
            if row.failure != nil { row.failure = value }
        },
        // Added after version 1, at the end so that no column moves.
        optional(text("target_cpu", \.environment.targetCPU)),
        optional(
            measure("allocs_per_op", \.allocationsPerOperation, decimals: Precision.allocationsPerOperation)),
        optional(
            Column(name: "metric", encode: \.metric.rawValue) { row, value throws(FieldError) in
                // Empty in rows written before the column existed, which were all timed.
                guard let metric = value.isEmpty ? .time : Metric(rawValue: value) else {
                    throw FieldError(message: "'\(value)' is neither 'time' nor 'instructions'")
                }
                row.metric = metric
            }),
        optional(
            measure(
                "instructions_per_op", \.instructionsPerOperation, decimals: Precision.instructionsPerOperation)
        ),
        optional(
            Column(name: "commit_source", encode: { $0.environment.commitSource?.rawValue ?? "" }) {
                row, value throws(FieldError) in
                // Empty in rows written before the column existed.
                guard value.isEmpty || CommitSource(rawValue: value) != nil else {
                    throw FieldError(message: "'\(value)' is neither 'build' nor 'working-tree'")
                }
                row.environment.commitSource = CommitSource(rawValue: value)
            }),
    ]

    /// Version 1's `openssl` and `libsodium` columns, read into the library of the backend of
    /// that name: in rows of other backends they say nothing about the row, and are dropped.
    /// `none` meant that the library was not loaded; libsodium's held the version alone.
    static let formerSummary: [Column<SummaryRow>] = [
        .former("openssl") { row, value in
            guard row.key.backend == "openssl", !value.isEmpty, value != "none" else { return }
            if row.environment.libraries["openssl"] == nil { row.environment.libraries["openssl"] = value }
        },
        .former("libsodium") { row, value in
            guard row.key.backend == "sodium", !value.isEmpty, value != "none" else { return }
            if row.environment.libraries["sodium"] == nil { row.environment.libraries["sodium"] = "libsodium \(value)" }
        },
    ]

    static var summaryRead: [Column<SummaryRow>] { summary + formerSummary }

    /// ``summary`` with each row's own `schema`, for rows moved from one history to another (a
    /// file, the PostgreSQL store): a row keeps the version it was written in, which decides how
    /// its run id and commit read.
    static var movedSummary: [Column<SummaryRow>] {
        summary.map { column in
            guard column.name == "schema" else { return column }
            return Column(name: column.name, encode: { String($0.schema) }, decode: column.decode)
        }
    }

    static let samples: [Column<SampleRow>] = [
        schemaColumn(\.schema),
        runIDColumn(\.runID), backendColumn(\.key.backend), operationColumn(\.key.operation),
        sizeColumn(\.key),
        count("threads", \.key.threads, through: Selection.maximumThreads), count("process", \.sample.process, from: 0),
        count("sample", \.index, from: 0),
        count("iterations", \.sample.iterations),
        Column(
            name: "ns_per_op", encode: { format($0.sample.nanosecondsPerOperation, decimals: Precision.nanoseconds) }
        ) {
            row, value throws(FieldError) in
            row.sample.nanosecondsPerOperation = try number(value)
        },
        optional(
            Column(name: "allocations", encode: { $0.sample.allocations.map(String.init) ?? "" }) {
                row, value throws(FieldError) in
                guard !value.isEmpty else { return row.sample.allocations = nil }
                guard let count = Int(value), count >= 0 else {
                    throw FieldError(message: "'\(value.prefix(40))' is not a whole number of at least 0")
                }
                row.sample.allocations = count
            }),
    ]

    // MARK: - Kinds of column

    private static func optional<Row>(_ column: Column<Row>) -> Column<Row> {
        var column = column
        column.isRequired = false
        return column
    }

    private static func schemaColumn<Row>(_ field: WritableKeyPath<Row, Int> & Sendable) -> Column<Row> {
        // A row is written in this version's columns, whichever it was read in.
        Column(name: "schema", encode: { _ in String(version) }) { row, value throws(FieldError) in
            guard let schema = Int(value) else { throw FieldError(message: "'\(value)' is not a schema version") }
            guard (oldestReadable...version).contains(schema) else {
                throw FieldError(
                    message:
                        "schema version \(schema) is not supported; this bench reads versions \(oldestReadable) to \(version)"
                )
            }
            row[keyPath: field] = schema
        }
    }

    private static func operationColumn<Row>(_ field: WritableKeyPath<Row, BenchmarkOperation> & Sendable) -> Column<
        Row
    > {
        Column(name: "operation", encode: { $0[keyPath: field].rawValue }) { row, value throws(FieldError) in
            guard let operation = BenchmarkOperation(rawValue: value) else {
                let known = BenchmarkOperation.allCases.map(\.rawValue).joined(separator: ", ")
                throw FieldError(message: "'\(value.prefix(40))' is not an operation (\(known))")
            }
            row[keyPath: field] = operation
        }
    }

    /// A backend's name, as `BackendNames` takes it, or a pair's, `BACKEND-vs-BASELINE`: what a
    /// report holds is printed and put in pages, so a name that could not have been written is
    /// refused, not shown.
    private static func backendColumn<Row>(_ field: WritableKeyPath<Row, String> & Sendable) -> Column<Row> {
        Column(name: "backend", encode: { $0[keyPath: field] }) { row, value throws(FieldError) in
            guard BackendNames.isValidInReport(value) else {
                throw FieldError(
                    message: "'\(value.prefix(2 * BackendNames.maximumLength + 4))' is not a backend's name: 1 to "
                        + "\(BackendNames.maximumLength) lowercase letters, digits, '-', '_' and '.', starting with a letter"
                )
            }
            row[keyPath: field] = value
        }
    }

    /// A case's size, read after its operation: a whole number that operation takes.
    private static func sizeColumn<Row>(_ key: WritableKeyPath<Row, CaseKey> & Sendable) -> Column<Row> {
        Column(name: "size", encode: { String($0[keyPath: key].size) }) { row, value throws(FieldError) in
            let operation = row[keyPath: key].operation
            guard let size = Int(value), operation.allowedSizes.contains(size) else {
                let sizes = operation.allowedSizes
                throw FieldError(
                    message:
                        "'\(value.prefix(40))' is not a size of \(operation.rawValue) (\(sizes.lowerBound) to \(sizes.upperBound))"
                )
            }
            row[keyPath: key].size = size
        }
    }

    /// `run_id` (``RecordedFields/isRunID(_:commitMatching:)``), read after `schema`: in a row
    /// older than the grammar, the timestamp, a dash and then any text without a control
    /// character (such ids had no nonce before, and any commit ``commitColumn(_:)`` reads).
    private static func runIDColumn<Row: SchemaVersioned>(_ field: WritableKeyPath<Row, String> & Sendable) -> Column<
        Row
    > {
        Column(name: "run_id", encode: { $0[keyPath: field] }) { row, value throws(FieldError) in
            let isOlder = row.schema < recordedFieldsVersion
            guard
                RecordedFields.isRunID(value)
                    || isOlder && value.utf8.count <= RecordedFields.runIDLimit
                        && RecordedFields.isTimestamp(Substring(value.utf8.prefix(20)), compact: true)
                        && value.utf8.dropFirst(20).first == UInt8(ascii: "-")
                        && isPrintable(value[...])
            else {
                throw FieldError(
                    message: "'\(value.prefix(40))' is not a run id (<timestamp>-<commit>-<8 hex digits>[-baseline])")
            }
            row[keyPath: field] = value
        }
    }

    private static func timestampColumn<Row>(_ field: WritableKeyPath<Row, String> & Sendable) -> Column<Row> {
        Column(name: "timestamp", encode: { $0[keyPath: field] }) { row, value throws(FieldError) in
            guard RecordedFields.isTimestamp(value) else {
                throw FieldError(
                    message: "'\(value.prefix(40))' is not ISO 8601 in UTC with milliseconds (2026-11-22T04:15:56.042Z)"
                )
            }
            row[keyPath: field] = value
        }
    }

    /// `commit` (``RecordedFields/isCommit(_:)``), read after `schema`: in an older row, text
    /// that is not a commit reads as `unknown`, so that no history written before the grammar
    /// becomes unreadable.
    private static func commitColumn<Row: SchemaVersioned>(
        _ field: WritableKeyPath<Row, RecordedCommit> & Sendable
    ) -> Column<Row> {
        Column(name: "commit", encode: { $0[keyPath: field].description }) { row, value throws(FieldError) in
            if let commit = RecordedCommit(exactly: value) {
                row[keyPath: field] = commit
            } else if row.schema < recordedFieldsVersion {
                row[keyPath: field] = RecordedCommit(recorded: value)
            } else {
                throw FieldError(
                    message: "'\(value.prefix(40))' is not a commit (\(RecordedCommit.grammar), or unknown)")
            }
        }
    }

    private static func buildColumn<Row>(_ field: WritableKeyPath<Row, BuildConfiguration> & Sendable) -> Column<Row> {
        Column(name: "build", encode: { $0[keyPath: field].rawValue }) { row, value throws(FieldError) in
            guard let build = BuildConfiguration(rawValue: value) else {
                throw FieldError(message: "'\(value.prefix(40))' is neither 'release' nor 'debug'")
            }
            row[keyPath: field] = build
        }
    }

    /// Whether `text` has no control character (C0, DEL or C1).
    private static func isPrintable(_ text: Substring) -> Bool {
        !text.unicodeScalars.contains { $0.value < 0x20 || (0x7f...0x9f).contains($0.value) }
    }

    private static func text<Row>(_ name: String, _ field: WritableKeyPath<Row, String> & Sendable) -> Column<Row> {
        Column(name: name, encode: { $0[keyPath: field] }) { row, value in row[keyPath: field] = value }
    }

    private static func count<Row>(
        _ name: String, _ field: WritableKeyPath<Row, Int> & Sendable, from minimum: Int = 1,
        through maximum: Int = .max
    ) -> Column<Row> {
        Column(name: name, encode: { String($0[keyPath: field]) }) { row, value throws(FieldError) in
            guard let number = Int(value), (minimum...maximum).contains(number) else {
                let range = maximum == .max ? "of at least \(minimum)" : "from \(minimum) to \(maximum)"
                throw FieldError(message: "'\(value.prefix(40))' is not a whole number \(range)")
            }
            row[keyPath: field] = number
        }
    }

    /// A measured quantity: a finite number of at least 0, empty when the case failed.
    private static func measure<Row>(
        _ name: String, _ field: WritableKeyPath<Row, Double?> & Sendable, decimals: Int
    ) -> Column<Row> {
        Column(name: name, encode: { format($0[keyPath: field], decimals: decimals) }) {
            row, value throws(FieldError) in
            row[keyPath: field] = value.isEmpty ? nil : try number(value)
        }
    }

    private static func number(_ value: String) throws(FieldError) -> Double {
        // Double("nan"), Double("inf") and hexadecimal floats parse; none is a measurement.
        guard let number = Double(value), number.isFinite, number >= 0,
            value.allSatisfy({
                $0.isASCII && ($0.isNumber || $0 == "." || $0 == "e" || $0 == "E" || $0 == "-" || $0 == "+")
            })
        else {
            throw FieldError(message: "'\(value)' is not a number of at least 0")
        }
        return number
    }

    static func format(_ value: Double?, decimals: Int) -> String {
        value.map { String(format: "%.\(decimals)f", $0) } ?? ""
    }

    // MARK: - Reading and writing

    /// A run's summary file, with LF line ends as `--format csv` prints it (the files have RFC 4180's CRLF).
    package static func summaryCSV(of run: RunResult) -> String {
        encode(SummaryRow.rows(of: run), columns: summary, lineEnding: .lf)
    }

    /// The `status` column's value for `summary`, which the JSON report's `status` repeats.
    package static func status(of summary: CaseSummary) -> String {
        summary.failure == nil ? SummaryRow.ok : SummaryRow.failed
    }

    /// Encodes rows as CSV with a header, each line ending in `lineEnding` (CRLF, as in files, unless told).
    static func encode<Row>(_ rows: [Row], columns: [Column<Row>], lineEnding: CSV.LineEnding = .crlf) -> String {
        CSV.encode(
            header: columns.map(\.name), records: rows.map { row in columns.map { $0.encode(row) } },
            lineEnding: lineEnding)
    }

    /// Encodes rows as CSV records without a header, for appending.
    static func encodeRecords<Row>(_ rows: [Row], columns: [Column<Row>]) -> String {
        rows.map { row in CSV.encodeRecord(columns.map { $0.encode(row) }) }.joined()
    }

    /// The columns of `header` that `columns` read, each with its position there.
    ///
    /// - Throws: ``BenchError`` (`.malformedInput`) when a required one is missing.
    static func present<Row>(
        _ columns: [Column<Row>], in header: [String], path: String
    ) throws(BenchError) -> [(column: Column<Row>, position: Int)] {
        var present: [(column: Column<Row>, position: Int)] = []
        for column in columns {
            guard let position = header.firstIndex(of: column.name) else {
                guard !column.isRequired else {
                    throw .malformed(path, line: 1, "the required column '\(column.name)' is missing")
                }
                continue
            }
            present.append((column, position))
        }
        return present
    }

    /// The row `record` holds, read into `empty` by the columns ``present(_:in:path:)`` found.
    ///
    /// - Throws: ``BenchError`` (`.malformedInput`) naming the file, line and column.
    static func decode<Row>(
        _ record: CSVRecord, columns present: [(column: Column<Row>, position: Int)], empty: Row, path: String
    ) throws(BenchError) -> Row {
        var row = empty
        for (column, position) in present {
            do {
                try column.decode(&row, record.fields[position])
            } catch {
                throw .malformed(path, line: record.line, column: "\(column.name) (\(position + 1))", error.message)
            }
        }
        return row
    }
}
