import Foundation
import PKCEBenchCore
import PKCEBenchReports
import PKCEBenchReportsTestSupport
import PKCEBenchTestSupport
import Testing

#if canImport(FoundationXML)
import FoundationXML
#endif

@Suite("latest.html")
struct HTMLReportTests {
    /// The elements `xpath` finds in `page`, parsed as the XML it also is.
    static func nodes(_ xpath: String, in page: String) throws -> [XMLElement] {
        try XMLDocument(xmlString: page).nodes(forXPath: xpath).compactMap { $0 as? XMLElement }
    }

    static func attribute(_ name: String, of element: XMLElement) -> String? {
        element.attributes?.first { $0.name == name }?.stringValue
    }

    /// The text of each cell of a row.
    static func cells(_ row: XMLElement) -> [String] {
        row.elements(forName: "td").map { $0.stringValue ?? "" }
    }

    @Test("With a history, the steps of each case's series: a row and a marked chart panel per step")
    func changes() throws {
        let stepped = SyntheticRun.keys[9]
        let runs = SyntheticRun.series(runs: 16) { $0 >= 10 ? [stepped: 1.06] : [:] }
        let series = ChangePointAnalysis.standard(threshold: 0.02).series(of: runs, metric: .time)
        let page = HTMLReport.page(runs[15], changes: HistoryChanges(series: series, threshold: 0.02, since: nil))
        let rows = try Self.nodes("//section[@id='changes']//tr[@data-case]", in: page)
        #expect(rows.map { Self.attribute("data-case", of: $0) } == [stepped.description])
        let cells = try #require(rows.first.map(Self.cells))
        #expect(
            cells.prefix(3) == [
                stepped.description, "c000009 2026-11-20T00:09:00.000Z", "c000010 2026-11-20T00:10:00.000Z",
            ])
        #expect(rows.first.map { Self.attribute("class", of: $0) } == "regressed")
        let panels = try Self.nodes("//section[@id='changes']//*[local-name()='g'][@class='panel']", in: page)
        #expect(panels.count == SyntheticRun.keys.count)
        let marked = try Self.nodes(
            "//section[@id='changes']//*[local-name()='g'][@class='change-point'][@data-status='regressed']", in: page)
        #expect(marked.count == 1)
        // Without a history, no such section.
        #expect(try Self.nodes("//section[@id='changes']", in: HTMLReport.page(runs[15])).isEmpty)
    }

    @Test("One row per case with the CSV's figures, a chart bar per case, a distribution per measured case")
    func results() throws {
        let failed = SyntheticRun.keys[5]
        let report = SyntheticRun.report(failed: [failed: "wrong digest"])
        let page = HTMLReport.page(report)
        let rows = try Self.nodes("//section[@id='results']//tr[@data-case]", in: page)
        #expect(rows.count == SyntheticRun.keys.count)
        for summary in report.rows {
            let row = try #require(rows.first { Self.attribute("data-case", of: $0) == summary.key.description })
            let cells = Self.cells(row)
            if let times = summary.summary.times {
                let (median, p10, p90) = (times.median, times.p10, times.p90)
                #expect(
                    Array(cells.prefix(4)) == [
                        summary.key.description, NumberFormat.nanoseconds(median),
                        NumberFormat.nanoseconds(p10), NumberFormat.nanoseconds(p90),
                    ])
                #expect(cells[8] == String(summary.summary.samples))
            } else {
                #expect(summary.key == failed)
                #expect(cells == [failed.description, "failed: wrong digest"])
            }
        }
        #expect(try Self.nodes("//*[@class='distribution']", in: page).count == SyntheticRun.keys.count - 1)
        let bars = try Self.nodes("//*[@class='median']", in: page)
        #expect(Set(bars.compactMap { Self.attribute("data-case", of: $0) }).count == SyntheticRun.keys.count - 1)
        // The fastest backend of each of the 16 operation-and-size groups is marked.
        #expect(try Self.nodes("//tr[contains(@class, 'fastest')]", in: page).count == 16)
        #expect(try Self.nodes("//section[@id='comparison']", in: page).isEmpty)
    }

    @Test("With a baseline: the comparison, regressions first, then the rest by how much they need a reader")
    func comparison() throws {
        let slower = SyntheticRun.keys[30]
        let current = SyntheticRun.report(seed: 2, scale: [slower: 1.25])
        let comparison = try Comparison(
            baseline: try RunResult(name: "baseline.csv", summaries: SyntheticRun.report().rows, samples: nil),
            current: try RunResult(name: "this run", summaries: current.rows, samples: nil),
            criteria: .init(threshold: 0.05))
        let page = HTMLReport.page(current, comparison: comparison)
        let rows = try Self.nodes("//section[@id='comparison']//tr[@data-case]", in: page)
        #expect(rows.count == SyntheticRun.keys.count)
        #expect(rows.first.flatMap { Self.attribute("data-case", of: $0) } == slower.description)
        #expect(rows.first.map(Self.cells)?.last == "regressed")
        let verdicts = rows.compactMap { Self.cells($0).last.flatMap(Verdict.init(rawValue:)) }
        let order: [Verdict] = [
            .regressed, .failedInCurrent, .improved, .inconclusive, .failedInBaseline, .onlyInCurrent, .onlyInBaseline,
            .unchanged,
        ]
        let ranks = verdicts.compactMap { order.firstIndex(of: $0) }
        #expect(ranks.count == SyntheticRun.keys.count && ranks == ranks.sorted())
        let summary = try #require(try Self.nodes("//p[@class='summary']", in: page).first)
        #expect(summary.stringValue?.hasPrefix("1 regressed") == true)
    }

    @Test("Self-contained: nothing to fetch, no script")
    func selfContained() throws {
        let page = HTMLReport.page(SyntheticRun.report())
        for reference in ["<script", "src=", "href=", "@import", "url(", "<link"] {
            #expect(!page.contains(reference), "\(reference)")
        }
        // The one URL is SVG's namespace, which names and does not fetch.
        let urls = page.components(separatedBy: "http").count - 1
        #expect(urls == page.components(separatedBy: "xmlns=\"http://www.w3.org/2000/svg\"").count - 1)
    }
}
