import Foundation
import PKCEBenchCore
import PKCEBenchReports
import PKCEBenchReportsTestSupport
import PKCEBenchTestSupport
import Testing

#if canImport(FoundationXML)
import FoundationXML
#endif

@Suite("SVG charts")
struct ChartTests {
    /// Parses `svg` as XML and returns every element named `name` with the given `class`.
    static func elements(_ name: String, class className: String, in svg: String) throws -> [XMLElement] {
        let document = try XMLDocument(xmlString: svg)
        #expect(document.rootElement()?.name == "svg")
        return try document.nodes(forXPath: "//*[local-name()='\(name)'][@class='\(className)']").compactMap {
            $0 as? XMLElement
        }
    }

    /// An attribute's value. (`attribute(forName:)` of swift-corelibs-foundation finds nothing in
    /// a document with a default namespace.)
    static func attribute(_ name: String, of element: XMLElement) -> String? {
        element.attributes?.first { $0.name == name }?.stringValue
    }

    @Test("latest.svg is XML with one bar per backend × case, each labelled")
    func throughput() throws {
        let report = SyntheticRun.report()
        let svg = ThroughputChart.svg(report)
        let bars = try Self.elements("rect", class: "bar", in: svg)
        #expect(bars.count == SyntheticRun.keys.count)
        let identities = Set(
            bars.map { bar in
                ["data-backend", "data-operation", "data-size"].map { Self.attribute($0, of: bar) ?? "" }
            })
        #expect(identities.count == SyntheticRun.keys.count)
        #expect(bars.allSatisfy { ($0.elements(forName: "title").first?.stringValue ?? "").contains("ops/s") })
        for label in [
            "ops/s", "openssl", "sodium", "swift", "crypto", "challenge, 56 characters", "sha256, 16384 bytes",
        ] {
            #expect(svg.contains(label), "the chart lacks \(label)")
        }
    }

    @Test("A failed case has no bar and says so")
    func failedCase() throws {
        var run = SyntheticRun.report()
        run.summaries[0].outcome = .failed(reason: "failed")
        let svg = ThroughputChart.svg(run)
        #expect(try Self.elements("rect", class: "bar", in: svg).count == SyntheticRun.keys.count - 1)
        #expect(svg.contains(">failed</text>"))
    }

    @Test("Text that looks like markup is escaped")
    func escaping() throws {
        var run = SyntheticRun.report()
        run.environment.runID = "<run & \"more\">"
        let svg = ThroughputChart.svg(run)
        _ = try XMLDocument(xmlString: svg)
        #expect(svg.contains("&lt;run &amp; &quot;more&quot;&gt;"))
    }

    @Test("The history chart: one panel per case, its change against its first run on one shared axis")
    func history() throws {
        let first = SummaryRow.rows(of: SyntheticRun.report(runID: "20261122T000001.000Z-abc1234-00000001"))
        var second = SummaryRow.rows(of: SyntheticRun.report(runID: "20261122T000002.000Z-abc1234-00000002", seed: 2))
        for index in second.indices where second[index].key.description == "challenge/openssl/43" {
            second[index].median = first[index].median! * 1.25
        }
        let svg = HistoryChart.svg(SummaryRow.runs(of: first + second))
        _ = try XMLDocument(xmlString: svg)
        let panels = try Self.elements("g", class: "panel", in: svg)
        #expect(panels.count == SyntheticRun.keys.count)
        let lines = try Self.elements("polyline", class: "trend", in: svg)
        #expect(lines.count == SyntheticRun.keys.count)
        #expect(lines.allSatisfy { (Self.attribute("points", of: $0) ?? "").split(separator: " ").count == 2 })
        // Every case starts at 0%: the first point of each line sits on its panel's zero line.
        for panel in panels {
            let children = panel.children?.compactMap { $0 as? XMLElement } ?? []
            let zero = try #require(children.first { $0.name == "line" })
            let trend = try #require(children.first { $0.name == "polyline" })
            let firstY = (Self.attribute("points", of: trend) ?? "").split(separator: " ")[0].split(separator: ",")[1]
            #expect(String(firstY) == Self.attribute("y1", of: zero))
        }
        // The slowed case's line rises (SVG's y grows downward) and says by how much.
        let slowed = try #require(lines.first { Self.attribute("data-case", of: $0) == "challenge/openssl/43" })
        let ys = (Self.attribute("points", of: slowed) ?? "").split(separator: " ").map {
            Double($0.split(separator: ",")[1])!
        }
        #expect(ys[1] < ys[0])
        #expect(svg.contains("+25.0% · "))
        #expect(svg.contains("challenge/openssl/43 in run 20261122T000002.000Z-abc1234-00000002: "))
    }

    @Test("A value too large for any axis is drawn at the top, and the chart still ends")
    func hugeValues() throws {
        var run = SyntheticRun.report()
        var huge = try #require(run.summaries[0].times)
        huge.operationsPerSecond = 1.7e308
        run.summaries[0].outcome = .timed(huge)
        huge = try #require(run.summaries[1].times)
        huge.median = .greatestFiniteMagnitude
        run.summaries[1].outcome = .timed(huge)
        for svg in [ThroughputChart.svg(run), HistoryChart.svg([run])] {
            _ = try XMLDocument(xmlString: svg)
            #expect(!svg.contains("inf") && !svg.contains("nan"))
        }
        #expect(try Self.elements("rect", class: "bar", in: ThroughputChart.svg(run)).count == SyntheticRun.keys.count)
    }
}
