import Foundation
import PKCEBenchCore
@testable import PKCEBenchReports
import PKCEBenchReportsTestSupport
import PKCEBenchTestSupport
import Testing

@Suite("Report files: bounded fields and size")
struct ReportFileLimitsTests {
    /// A summary of one case whose field `column` holds `value`, and the column (1-based, in
    /// characters) where that field starts on line 2.
    static func summary(setting column: String, to value: String) throws -> (bytes: [UInt8], start: Int) {
        let row = try #require(SyntheticRun.report().rows.first)
        var fields = ReportSchema.summary.map { $0.encode(row) }
        let position = try #require(ReportSchema.summaryColumnNames.firstIndex(of: column))
        fields[position] = value
        // The record up to the field, with a stand-in for it: "…,x\n".
        let upTo = CSV.encodeRecord(Array(fields[..<position]) + ["x"], lineEnding: .lf)
        let text = CSV.encodeRecord(ReportSchema.summaryColumnNames) + CSV.encodeRecord(fields)
        return (Array(text.utf8), upTo.unicodeScalars.count - 1)
    }

    static let limits = [
        ("commit", 70), ("run_id", 128), ("timestamp", 32), ("build", 32), ("cpu", 4096), ("error", 4096),
    ]

    @Test(
        "A field one byte over its column's limit is malformed at its start; at the limit it is not", arguments: limits)
    func fieldLimit(column: String, limit: Int) throws {
        #expect(ReportFiles.limits.fieldBytes[column] ?? ReportFiles.limits.otherFieldBytes == limit)
        let over = try Self.summary(setting: column, to: String(repeating: "x", count: limit + 1))
        #expect(
            throws: BenchError(
                .malformedInput, "h.csv:2:\(over.start): the \(column) field is longer than \(limit) bytes")
        ) {
            try ReportFiles.history(from: over.bytes, path: "h.csv")
        }
        // At the limit the CSV reads; what the column's grammar makes of it is the schema's business.
        let at = try Self.summary(setting: column, to: String(repeating: "x", count: limit))
        do {
            _ = try ReportFiles.history(from: at.bytes, path: "h.csv")
        } catch {
            #expect(!error.message.contains("is longer than"))
        }
    }

    @Test("A megabyte commit is refused at its 71st byte, not read whole")
    func megabyteCommit() throws {
        let long = try Self.summary(setting: "commit", to: String(repeating: "a", count: 1 << 20))
        #expect(throws: BenchError(.malformedInput, "h.csv:2:\(long.start): the commit field is longer than 70 bytes"))
        {
            try ReportFiles.history(from: long.bytes, path: "h.csv")
        }
    }

    @Test("A file over 256 MiB is malformed before it is read")
    func fileLimit() throws {
        #expect(ReportFiles.maximumFileSize == 256 << 20)
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("history.csv").path
        // Sparse: it takes no disk.
        #expect(FileManager.default.createFile(atPath: path, contents: nil))
        #expect(truncate(path, off_t(ReportFiles.maximumFileSize + 1)) == 0)
        #expect(throws: BenchError(.malformedInput, "\(path): is larger than 256 MiB, too large for a report")) {
            try ReportFiles.readHistory(at: path)
        }
    }
}
