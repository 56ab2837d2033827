import PKCEBenchCore
import PKCEBenchReports
import PKCEBenchReportsTestSupport
import PKCEBenchTestSupport
import Testing

@Suite("History trends")
struct HistoryTests {
    @Test("Each case's median over the last runs, with the change against the run before")
    func trends() throws {
        let target = CaseKey(backend: "openssl", operation: .challenge, size: 43, threads: 1)
        let history = (1...5).map { run in
            SyntheticRun.report(runID: "run-\(run)", scale: [target: 1 + 0.1 * Double(run - 1)])
        }
        let trends = HistoryTrend.trends(history, lastRuns: 3) { $0 == target }
        #expect(trends.count == 1)
        let points = try #require(trends.first?.points)
        #expect(points.map(\.runID) == ["run-3", "run-4", "run-5"])
        #expect(points[0].change == nil)
        let expectedChange = 1.4 / 1.3 - 1
        // Medians are kept to 0.001 ns, as the files keep them.
        #expect(abs((points[2].change ?? 0) - expectedChange) < 1e-5)
    }

    @Test("The table groups runs by case")
    func table() {
        let history = [SyntheticRun.report(runID: "run-1"), SyntheticRun.report(runID: "run-2")]
        let trends = HistoryTrend.trends(history, lastRuns: 10) { $0.operation == .verify }
        let table = HistoryFormatter.render(trends, as: .table)
        let lines = table.split(separator: "\n", omittingEmptySubsequences: false)
        // A header, then four cases of two runs each, a blank line between cases.
        #expect(lines.filter { $0.contains("run-") }.count == 8)
        #expect(lines.filter(\.isEmpty).count == 4)
    }

    @Test("A history's rows read back as its runs, in the order each first appears, with each run's libraries")
    func runsOfRows() {
        let first = SyntheticRun.report(runID: "run-1")
        let second = SyntheticRun.report(runID: "run-2", seed: 2)
        let runs = SummaryRow.runs(of: SummaryRow.rows(of: second) + SummaryRow.rows(of: first))
        #expect(runs.map(\.environment.runID) == ["run-2", "run-1"])
        #expect(runs.map(\.summaries) == [second.summaries, first.summaries])
        #expect(runs.map(\.environment) == [second.environment, first.environment])
    }
}
