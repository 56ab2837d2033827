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
            SyntheticRun.report(
                runID: "20261122T00000\(run).000Z-abc1234-0000000\(run)", scale: [target: 1 + 0.1 * Double(run - 1)])
        }
        let trends = HistoryTrend.trends(history, lastRuns: 3) { $0 == target }
        #expect(trends.count == 1)
        let points = try #require(trends.first?.points)
        #expect(
            points.map(\.runID) == [
                "20261122T000003.000Z-abc1234-00000003", "20261122T000004.000Z-abc1234-00000004",
                "20261122T000005.000Z-abc1234-00000005",
            ])
        #expect(points[0].change == nil)
        let expectedChange = 1.4 / 1.3 - 1
        // Medians are kept to 0.001 ns, as the files keep them.
        #expect(abs((points[2].change ?? 0) - expectedChange) < 1e-5)
    }

    @Test("The table groups runs by case")
    func table() {
        let history = [
            SyntheticRun.report(runID: "20261122T000001.000Z-abc1234-00000001"),
            SyntheticRun.report(runID: "20261122T000002.000Z-abc1234-00000002"),
        ]
        let trends = HistoryTrend.trends(history, lastRuns: 10) { $0.operation == .verify }
        let table = HistoryFormatter.render(trends, as: .table)
        let lines = table.split(separator: "\n", omittingEmptySubsequences: false)
        // A header, then four cases of two runs each, a blank line between cases.
        #expect(lines.filter { $0.contains("-abc1234-") }.count == 8)
        #expect(lines.filter(\.isEmpty).count == 4)
    }

    @Test("A history's rows read back as its runs, in the order each first appears, with each run's libraries")
    func runsOfRows() {
        let first = SyntheticRun.report(runID: "20261122T000001.000Z-abc1234-00000001")
        let second = SyntheticRun.report(runID: "20261122T000002.000Z-abc1234-00000002", seed: 2)
        let runs = SummaryRow.runs(of: SummaryRow.rows(of: second) + SummaryRow.rows(of: first))
        #expect(
            runs.map(\.environment.runID) == [
                "20261122T000002.000Z-abc1234-00000002", "20261122T000001.000Z-abc1234-00000001",
            ])
        #expect(runs.map(\.summaries) == [second.summaries, first.summaries])
        #expect(runs.map(\.environment) == [second.environment, first.environment])
    }
}
