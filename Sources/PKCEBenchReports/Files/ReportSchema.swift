import Foundation
import PKCEBenchKit

/// A column of a report: its stable name, and how a row's field is written and read.
struct Column<Row>: Sendable {
    let name: String
    let encode: @Sendable (Row) -> String
    let decode: @Sendable (inout Row, String) throws(FieldError) -> Void
    /// Whether a file without this column is malformed. Columns added after version 1 are not
    /// required, so that older reports (a committed baseline, a long history) still read; their
    /// rows keep the field's empty value.
    var isRequired = true
}

/// Why a field could not be read; the caller adds the file, line and column.
struct FieldError: Error {
    let message: String
}

/// The columns of the reports, in order. Their names are stable: a change that renames, removes
/// or reinterprets one raises ``version``; a new column is added as optional instead.
public enum ReportSchema {
    /// The format's version, written in every row's `schema` column.
    public static let version = 1

    /// The names of the columns of summary reports (`<run>.csv`, `latest.csv`, `baseline.csv`, `history.csv`).
    public static var summaryColumnNames: [String] { summary.map(\.name) }

    static let summary: [Column<SummaryRow>] = [
        schemaColumn(\.schema),
        text("run_id", \.runID), text("timestamp", \.timestamp), text("commit", \.commit), text("build", \.build),
        text("backend", \.backend), operationColumn(\.operation), count("size", \.size, from: 0),
        count("threads", \.threads),
        Column(name: "status", encode: \.status) { row, value throws(FieldError) in
            guard value == SummaryRow.ok || value == SummaryRow.failed else {
                throw FieldError(message: "'\(value)' is neither '\(SummaryRow.ok)' nor '\(SummaryRow.failed)'")
            }
            row.status = value
        },
        count("samples", \.samples, from: 0), count("iterations", \.iterations, from: 0),
        measure("ns_median", \.nsMedian, decimals: 3), measure("ns_p10", \.nsP10, decimals: 3),
        measure("ns_p90", \.nsP90, decimals: 3), measure("ns_min", \.nsMin, decimals: 3),
        measure("ns_mean", \.nsMean, decimals: 3), measure("ns_stddev", \.nsStddev, decimals: 3),
        measure("cv", \.cv, decimals: 5), measure("ops_per_sec", \.opsPerSec, decimals: 1),
        measure("mb_per_sec", \.mbPerSec, decimals: 3),
        text("cpu", \.cpu), text("cpu_flags", \.cpuFlags), count("cores", \.cores, from: 0),
        text("kernel", \.kernel), text("swift", \.swift), text("openssl", \.openssl),
        text("libsodium", \.libsodium), text("error", \.error),
        // Added after version 1, at the end so that no column moves.
        optional(text("target_cpu", \.targetCPU)), optional(measure("allocs_per_op", \.allocsPerOp, decimals: 6)),
        optional(
            Column(name: "metric", encode: \.metric.rawValue) { row, value throws(FieldError) in
                // Empty in rows written before the column existed, which were all timed.
                guard let metric = value.isEmpty ? .time : Metric(rawValue: value) else {
                    throw FieldError(message: "'\(value)' is neither 'time' nor 'instructions'")
                }
                row.metric = metric
            }),
        optional(measure("instructions_per_op", \.instructionsPerOp, decimals: 3)),
    ]

    static let samples: [Column<SampleRow>] = [
        schemaColumn(\.schema),
        text("run_id", \.runID), text("backend", \.backend), operationColumn(\.operation),
        count("size", \.size, from: 0),
        count("threads", \.threads), count("process", \.process, from: 0), count("sample", \.sample, from: 0),
        count("iterations", \.iterations),
        Column(name: "ns_per_op", encode: { format($0.nsPerOp, decimals: 3) }) { row, value throws(FieldError) in
            row.nsPerOp = try number(value)
        },
        optional(
            Column(name: "allocations", encode: { $0.allocations.map(String.init) ?? "" }) {
                row, value throws(FieldError) in
                guard !value.isEmpty else { return row.allocations = nil }
                guard let count = Int(value), count >= 0 else {
                    throw FieldError(message: "'\(value)' is not a whole number of at least 0")
                }
                row.allocations = count
            }),
    ]

    // MARK: - Kinds of column

    private static func optional<Row>(_ column: Column<Row>) -> Column<Row> {
        var column = column
        column.isRequired = false
        return column
    }

    private static func schemaColumn<Row>(_ field: WritableKeyPath<Row, Int> & Sendable) -> Column<Row> {
        Column(name: "schema", encode: { String($0[keyPath: field]) }) { row, value throws(FieldError) in
            guard let schema = Int(value) else { throw FieldError(message: "'\(value)' is not a schema version") }
            guard schema == version else {
                throw FieldError(
                    message: "schema version \(schema) is not supported; this bench reads version \(version)")
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
                throw FieldError(message: "'\(value)' is not an operation (\(known))")
            }
            row[keyPath: field] = operation
        }
    }

    private static func text<Row>(_ name: String, _ field: WritableKeyPath<Row, String> & Sendable) -> Column<Row> {
        Column(name: name, encode: { $0[keyPath: field] }) { row, value in row[keyPath: field] = value }
    }

    private static func count<Row>(
        _ name: String, _ field: WritableKeyPath<Row, Int> & Sendable, from minimum: Int = 1
    ) -> Column<Row> {
        Column(name: name, encode: { String($0[keyPath: field]) }) { row, value throws(FieldError) in
            guard let number = Int(value), number >= minimum else {
                throw FieldError(message: "'\(value)' is not a whole number of at least \(minimum)")
            }
            row[keyPath: field] = number
        }
    }

    /// A measured quantity: a finite number of at least 0, empty when the case failed.
    private static func measure<Row>(
        _ name: String, _ field: WritableKeyPath<Row, Double?> & Sendable, decimals: Int
    ) -> Column<Row> {
        Column(name: name, encode: { $0[keyPath: field].map { format($0, decimals: decimals) } ?? "" }) {
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

    /// `row` as a file holds it: each figure rounded to the decimals its column keeps.
    static func asStored<Row>(_ row: Row, columns: [Column<Row>]) -> Row {
        var stored = row
        for column in columns {
            // What a column wrote it reads back; a field it could not is left as it was.
            try? column.decode(&stored, column.encode(row))
        }
        return stored
    }

    static func format(_ value: Double, decimals: Int) -> String {
        String(format: "%.\(decimals)f", value)
    }

    // MARK: - Reading and writing

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

    /// Decodes a table's records into rows.
    ///
    /// - Throws: ``BenchError`` (65) naming the file, and the line and column of a bad value, or the
    ///   column missing from the header.
    static func decode<Row>(
        _ table: CSVTable, columns: [Column<Row>], empty: Row, path: String
    ) throws(BenchError) -> [(line: Int, row: Row)] {
        var present: [(column: Column<Row>, position: Int)] = []
        for column in columns {
            guard let position = table.header.firstIndex(of: column.name) else {
                guard !column.isRequired else {
                    throw .malformed(path, line: 1, "the required column '\(column.name)' is missing")
                }
                continue
            }
            present.append((column, position))
        }
        var rows: [(line: Int, row: Row)] = []
        rows.reserveCapacity(table.records.count)
        for record in table.records {
            var row = empty
            for (column, position) in present {
                do {
                    try column.decode(&row, record.fields[position])
                } catch {
                    throw .malformed(path, line: record.line, column: "\(column.name) (\(position + 1))", error.message)
                }
            }
            rows.append((record.line, row))
        }
        return rows
    }
}
