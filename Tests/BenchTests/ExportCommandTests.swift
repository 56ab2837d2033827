import Foundation
import PKCEBenchCore
@testable import PKCEBenchReports
import PKCEBenchReportsTestSupport
import PKCEBenchTestSupport
import Testing

@Suite("bench export: Bencher and github-action-benchmark JSON")
struct ExportCommandTests {
    /// A synthetic run with one failed case, written into `directory`; returns its path and rows.
    static func run(in directory: URL) throws -> (path: String, rows: [SummaryRow]) {
        var summaries = SyntheticRun.report().rows
        summaries[0].failure = "backend failed"
        summaries[0].median = nil
        let path = directory.appendingPathComponent("run.csv").path
        try ReportFiles.write(ReportSchema.encode(summaries, columns: ReportSchema.summary), to: path)
        return (path, try ReportFiles.readSummary(at: path))
    }

    @Test("Bencher Metric Format: every case's median, p10, p90, throughput and allocations, as in the CSV")
    func bencher() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (path, rows) = try Self.run(in: directory)
        let result = try bench(["export", path, "--format", "bencher"])
        #expect(result.status == 0)
        #expect(result.stderrLines == ["bench: warning: 1 failed case(s) left out: \(rows[0].key)"])
        let document = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(document.count == rows.count - 1)
        #expect(document[rows[0].key.description] == nil)
        for row in rows.dropFirst() {
            let measures = try #require(document[row.key.description] as? [String: [String: Double]])
            #expect(
                measures["latency"] == [
                    "value": row.median!, "lower_value": row.p10!, "upper_value": row.p90!,
                ])
            #expect(measures["throughput"] == ["value": row.operationsPerSecond!])
            #expect(measures["allocations"] == row.allocationsPerOperation.map { ["value": $0] })
        }
    }

    @Test("github-action-benchmark: one customSmallerIsBetter entry per case, in report order")
    func githubActionBenchmark() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (path, rows) = try Self.run(in: directory)
        let result = try bench(["export", path, "--format", "github-action-benchmark"])
        #expect(result.status == 0)
        let entries = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]])
        let expected = rows.dropFirst().sorted { $0.key < $1.key }
        #expect(entries.map { $0["name"] as? String } == expected.map(\.key.description))
        for (entry, row) in zip(entries, expected) {
            #expect(entry["unit"] as? String == "ns/op")
            #expect(entry["value"] as? Double == row.median)
            #expect(
                entry["range"] as? String
                    == "p10 \(NumberFormat.nanoseconds(row.p10!)) … p90 \(NumberFormat.nanoseconds(row.p90!))"
            )
            #expect(
                (entry["extra"] as? String)?.hasPrefix(
                    "run \(row.environment.runID)\ncommit \(row.environment.commit)\n") == true)
        }
    }

    @Test("A counted run exports instructions per operation")
    func instructions() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var row = SyntheticRun.report().rows[0]
        (row.key.backend, row.key.operation, row.key.size, row.metric) = ("swift", .sha256, 64, .instructions)
        (
            row.median, row.p10, row.p90, row.fastest, row.mean,
            row.standardDeviation
        ) = (nil, nil, nil, nil, nil, nil)
        (
            row.coefficientOfVariation, row.operationsPerSecond, row.allocationsPerOperation,
            row.instructionsPerOperation
        ) = (nil, nil, nil, 1234.5)
        let path = directory.appendingPathComponent("counted.csv").path
        try ReportFiles.write(ReportSchema.encode([row], columns: ReportSchema.summary), to: path)
        let bencher = try bench(["export", path, "--format", "bencher"])
        #expect(bencher.stdout.contains(#""sha256/swift/64" : {"#))
        let document =
            try JSONSerialization.jsonObject(with: Data(bencher.stdout.utf8)) as? [String: [String: [String: Double]]]
        #expect(document == ["sha256/swift/64": ["instructions": ["value": 1234.5]]])
        let action = try bench(["export", path, "--format", "github-action-benchmark"])
        let entries = try JSONSerialization.jsonObject(with: Data(action.stdout.utf8)) as? [[String: Any]]
        // The action compares by name: a counted case must not take its timed twin's series.
        #expect(entries?.first?["name"] as? String == "sha256/swift/64 (instructions)")
        #expect(entries?.first?["unit"] as? String == "instructions/op")
        #expect(entries?.first?["value"] as? Double == 1234.5)
    }

    @Test("An unknown format is 64, a missing file 66, a malformed one 65: one line, nothing on stdout")
    func failures() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (path, _) = try Self.run(in: directory)
        let unknown = try bench(["export", path, "--format", "criterion"])
        #expect(unknown.status == 64)
        #expect(
            unknown.stderrLines == [
                "bench: The value 'criterion' is invalid for '--format <format>'. Please provide one of 'bencher' and 'github-action-benchmark'. (see 'bench --help')"
            ])
        let missing = try bench(["export", directory.appendingPathComponent("none.csv").path, "--format", "bencher"])
        #expect(missing.status == 66)
        let malformedPath = directory.appendingPathComponent("bad.csv")
        try Data("not,a,report\r\n".utf8).write(to: malformedPath)
        let malformed = try bench(["export", malformedPath.path, "--format", "bencher"])
        #expect(malformed.status == 65)
        for result in [unknown, missing, malformed] {
            #expect(result.stdout.isEmpty)
            #expect(result.stderrLines.count == 1)
        }
    }
}
