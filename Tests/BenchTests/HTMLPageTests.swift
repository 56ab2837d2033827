import Foundation
import PKCEBenchCore
import PKCEBenchReports
import PKCEBenchTestSupport
import Testing

/// `latest.html` as a browser shows it: a real run's page rendered by headless Chromium.
@Suite("latest.html in a browser")
struct HTMLPageTests {
    /// Debian's `chromium`, or Ubuntu's `chromium-browser`.
    static let chromium =
        executableInPath("chromium") ?? executableInPath("chromium-browser")

    /// Reads the rendered page: what is visible, and each row's cells as the browser lays them
    /// out (`innerText` is the rendered text: what CSS hides is not in it).
    static let probe = """
        <script>
        const visible = (element) => {
          const box = element.getBoundingClientRect();
          return box.width > 0 && box.height > 0;
        };
        const cells = (row) => [...row.cells].map((cell) => cell.innerText.trim());
        const out = {
          height: document.documentElement.scrollHeight,
          text: document.body.innerText.length,
          colors: [getComputedStyle(document.body).color, getComputedStyle(document.body).backgroundColor],
          charts: [...document.querySelectorAll('svg.chart')].filter(visible).length,
          bars: [...document.querySelectorAll('rect.median')].filter(visible).length,
          distributions: [...document.querySelectorAll('svg.distribution')].filter(visible).length,
          results: [...document.querySelectorAll('#results tr[data-case]')].filter(visible).map(cells),
          comparison: [...document.querySelectorAll('#comparison tr[data-case]')].filter(visible).map(cells),
        };
        const pre = document.createElement('pre');
        pre.id = 'probe';
        pre.textContent = JSON.stringify(out);
        document.body.appendChild(pre);
        </script>
        """

    struct Probe: Decodable {
        let height: Double
        let text: Int
        let colors: [String]
        let charts: Int
        let bars: Int
        let distributions: Int
        let results: [[String]]
        let comparison: [[String]]
    }

    /// Runs Chromium on `arguments` and the page, and returns its standard output.
    static func chromium(_ arguments: [String], page: URL) throws -> String {
        // Its profile, caches and certificate store go to a temporary home, not the user's.
        let home = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: home) }
        var environment = ProcessInfo.processInfo.environment
        for name in ["HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME"] { environment[name] = home.path }
        let (status, text) = try runTool(
            URL(fileURLWithPath: try #require(chromium)),
            [
                "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--window-size=1280,2000",
                "--user-data-dir=\(home.appendingPathComponent("profile").path)",
            ] + arguments + [page.absoluteString],
            environment: environment)
        #expect(status == 0, "chromium exited \(status)")
        return text
    }

    @Test(
        "A run against a baseline: Chromium renders a page that is not blank, with the CSV's numbers",
        .enabled(if: chromium != nil, "chromium is not installed: apt-get install -y chromium"))
    func rendered() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let selection = ["--quick", "--operation", "sha256,challenge", "--backend", "openssl,swift", "--output", "out"]
        let first = try bench(selection + ["--save-baseline"], in: directory)
        #expect(first.status == 0, "\(first.stderr)")
        let second = try bench(selection + ["--baseline", "out/baseline.csv"], in: directory)
        #expect([0, 1, 2].contains(second.status), "\(second.stderr)")

        let page = directory.appendingPathComponent("out/latest.html")
        let html = try String(contentsOf: page, encoding: .utf8)
        let probed = directory.appendingPathComponent("probed.html")
        try html.replacingOccurrences(of: "</body>", with: Self.probe + "\n</body>")
            .write(to: probed, atomically: true, encoding: .utf8)
        let dom = try Self.chromium(["--dump-dom"], page: probed)
        let start = try #require(dom.range(of: "<pre id=\"probe\">"))
        let end = try #require(dom.range(of: "</pre>", range: start.upperBound..<dom.endIndex))
        let json = dom[start.upperBound..<end.lowerBound].replacingOccurrences(of: "&lt;", with: "<")
            .replacingOccurrences(of: "&gt;", with: ">").replacingOccurrences(of: "&amp;", with: "&")
        let probe = try JSONDecoder().decode(Probe.self, from: Data(json.utf8))

        // Not blank: tall, full of text in a colour other than the background's, charts drawn.
        let latest = try ReportFiles.readSummary(at: directory.appendingPathComponent("out/latest.csv").path)
        #expect(probe.height > 2000)
        #expect(probe.text > 2000)
        #expect(probe.colors[0] != probe.colors[1])
        #expect(probe.charts == 8)
        #expect(probe.bars == latest.count)
        #expect(probe.distributions == latest.count)

        // The numbers shown are the CSV's: every case, its median, p10, p90 and sample count.
        #expect(probe.results.count == latest.count)
        for row in latest {
            let shown = try #require(probe.results.first { $0.first == row.key.description }, "\(row.key)")
            let figures = try [row.median, row.p10, row.p90].map { try #require($0) }
            #expect(Array(shown[1...3]) == figures.map(NumberFormat.nanoseconds), "\(row.key)")
            #expect(shown[8] == String(row.summary.samples))
        }
        let baseline = try ReportFiles.readSummary(at: directory.appendingPathComponent("out/baseline.csv").path)
        #expect(probe.comparison.count == latest.count)
        for compared in probe.comparison {
            let old = try #require(baseline.first { $0.key.description == compared[0] }?.median)
            let new = try #require(latest.first { $0.key.description == compared[0] }?.median)
            #expect(
                compared[1] == NumberFormat.nanoseconds(old) && compared[2] == NumberFormat.nanoseconds(new))
        }

        // And pixels: a blank page of this size is a PNG of a few kilobytes.
        let screenshot = directory.appendingPathComponent("page.png")
        _ = try Self.chromium(["--screenshot=\(screenshot.path)"], page: page)
        let size = try FileManager.default.attributesOfItem(atPath: screenshot.path)[.size] as? Int ?? 0
        #expect(size > 50_000, "a \(size)-byte screenshot")
    }
}
