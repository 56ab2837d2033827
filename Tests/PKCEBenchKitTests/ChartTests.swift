import Foundation
import PKCEBenchKit
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
        let svg = ThroughputChart.svg(report.summaries)
        let bars = try Self.elements("rect", class: "bar", in: svg)
        #expect(bars.count == 56)
        let identities = Set(
            bars.map { bar in
                ["data-backend", "data-operation", "data-size"].map { Self.attribute($0, of: bar) ?? "" }
            })
        #expect(identities.count == 56)
        #expect(bars.allSatisfy { ($0.elements(forName: "title").first?.stringValue ?? "").contains("ops/s") })
        for label in [
            "ops/s", "openssl", "sodium", "swift", "crypto", "challenge, 56 characters", "sha256, 16384 bytes",
        ] {
            #expect(svg.contains(label), "the chart lacks \(label)")
        }
    }

    @Test("A failed case has no bar and says so")
    func failedCase() throws {
        var rows = SyntheticRun.report().summaries
        rows[0].status = SummaryRow.failed
        rows[0].nsMedian = nil
        rows[0].opsPerSec = nil
        let svg = ThroughputChart.svg(rows)
        #expect(try Self.elements("rect", class: "bar", in: svg).count == 55)
        #expect(svg.contains(">failed</text>"))
    }

    @Test("Text that looks like markup is escaped")
    func escaping() throws {
        var rows = SyntheticRun.report().summaries
        for index in rows.indices { rows[index].runID = "<run & \"more\">" }
        let svg = ThroughputChart.svg(rows)
        _ = try XMLDocument(xmlString: svg)
        #expect(svg.contains("&lt;run &amp; &quot;more&quot;&gt;"))
    }

    @Test("The history chart is XML with one line per case")
    func history() throws {
        let rows =
            SyntheticRun.report(runID: "run-1").summaries + SyntheticRun.report(runID: "run-2", seed: 2).summaries
        let svg = HistoryChart.svg(rows.filter { $0.operation == .challenge })
        let lines = try Self.elements("polyline", class: "trend", in: svg)
        #expect(lines.count == 16)
        #expect(lines.allSatisfy { (Self.attribute("points", of: $0) ?? "").split(separator: " ").count == 2 })
        #expect(svg.contains("ns/op (median)"))
    }

    @Test("A value too large for any axis is drawn at the top, and the chart still ends")
    func hugeValues() throws {
        var rows = SyntheticRun.report().summaries
        rows[0].opsPerSec = 1.7e308
        rows[1].nsMedian = .greatestFiniteMagnitude
        for svg in [ThroughputChart.svg(rows), HistoryChart.svg(rows)] {
            _ = try XMLDocument(xmlString: svg)
            #expect(!svg.contains("inf") && !svg.contains("nan"))
        }
        #expect(try Self.elements("rect", class: "bar", in: ThroughputChart.svg(rows)).count == 56)
    }
}
