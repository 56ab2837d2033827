import Foundation
import PKCEBenchCore
import PKCEBenchReports
import PKCEBenchTestSupport
import Testing

@Suite("bench: runs at once into one results directory", .serialized)
struct ConcurrentRunsTests {
    /// The smallest real run: one case, few and short samples, measured in this process.
    static let tiny = [
        "--operation", "sha256", "--backend", "swift", "--size", "64", "--samples", "2", "--sample-time", "1",
        "--warmup", "0", "--processes", "1", "--format", "csv", "--output", "results",
    ]

    @Test("Every run's rows reach history.csv, under an id of its own, however many finish at once")
    func everyRunKeepsItsRows() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let rounds = 4
        let runsPerRound = 6
        var results: [CommandResult] = []
        for _ in 0..<rounds {
            let running = try (0..<runsPerRound).map { _ in try RunningBench(Self.tiny, in: directory) }
            results += try running.map { try $0.wait() }
        }
        for result in results {
            #expect(result.status == 0, "stderr: \(result.stderr)")
        }

        let output = directory.appendingPathComponent("results")
        let history = try ReportFiles.readHistory(at: output.appendingPathComponent("history.csv").path)
        let ids = Set(history.map(\.environment.runID))
        // Each run prints its one row as CSV; its run id must be in the history, once.
        let printedIDs = try results.map { result in
            try #require(
                ReportFiles.summaries(from: Array(result.stdout.utf8), path: "stdout").first?.environment.runID)
        }
        #expect(Set(printedIDs).count == rounds * runsPerRound, "run ids must differ")
        let lost = Set(printedIDs).subtracting(ids)
        #expect(lost.isEmpty, "\(lost.count) of \(printedIDs.count) runs have no row in history.csv")
        #expect(history.count == rounds * runsPerRound)

        // Each run's own report is there, and no temporary file is left.
        let files = try listing(output)
        for id in printedIDs {
            #expect(files.contains("\(id).csv") && files.contains("\(id).samples.csv"), "\(id)")
        }
        #expect(!files.contains { $0.hasPrefix(".") })
    }
}
