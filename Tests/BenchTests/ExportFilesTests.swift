import Foundation
import PKCEBenchCore
@testable import PKCEBenchReports
import PKCEBenchReportsTestSupport
import PKCEBenchTestSupport
import Testing

@Suite("--export-json, --export-markdown, --export-csv: other formats beside the table", .serialized)
struct ExportFilesTests {
    static let small = ["--quick", "--operation", "random", "--processes", "1"]

    @Test("A run shows the table and writes each export in its format, with no temporary file left")
    func run() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try bench(
            Self.small + [
                "--output", "out", "--export-json", "run.json", "--export-markdown", "run.md", "--export-csv",
                "run.csv",
            ], in: directory)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.hasPrefix("operation "))
        #expect(try listing(directory) == ["out", "run.csv", "run.json", "run.md"])

        let summaries = try ReportFiles.readSummary(at: directory.appendingPathComponent("out/latest.csv").path)
        let csv = try String(contentsOf: directory.appendingPathComponent("run.csv"), encoding: .utf8)
        // The CSV that --format csv prints: the run's rows, with LF line ends.
        #expect(!csv.contains("\r"))
        #expect(try ReportFiles.summaries(from: Array(csv.utf8), path: "run.csv") == summaries)
        let json = try Data(contentsOf: directory.appendingPathComponent("run.json"))
        let document = try #require(try JSONSerialization.jsonObject(with: json) as? [String: Any])
        #expect((document["results"] as? [Any])?.count == summaries.count)
        // The Markdown table: a row per case. (Its figures are rounded from the run's, which the CSV
        // holds to three decimals, so they are not compared here.)
        let markdown = try String(contentsOf: directory.appendingPathComponent("run.md"), encoding: .utf8)
        #expect(markdown.hasPrefix("| operation | size | threads | backend |"))
        #expect(
            markdown.split(separator: "\n").filter { $0.hasPrefix("| random | 32 | 1 | ") }.count == summaries.count)
    }

    @Test("bench compare writes exactly what --format prints, to each file")
    func compare() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // Six earlier runs of the build beside the file: its spread between runs is measured.
        try SyntheticRun.writeHistory(in: directory)
        let report = SyntheticRun.report()
        let path = directory.appendingPathComponent("run.csv").path
        try ReportFiles.write(ReportSchema.encode(report.rows, columns: ReportSchema.summary), to: path)
        try ReportFiles.write(
            ReportSchema.encode(report.sampleRows, columns: ReportSchema.samples),
            to: directory.appendingPathComponent("run.samples.csv").path)
        let exported = try bench(
            ["compare", path, path, "--export-json", "c.json", "--export-markdown", "c.md", "--export-csv", "c.csv"],
            in: directory)
        #expect(exported.status == 0, "\(exported.stderr)")
        for format in ["json", "markdown", "csv"] {
            let printed = try bench(["compare", path, path, "--format", format], in: directory)
            let file = directory.appendingPathComponent("c.\(format == "markdown" ? "md" : format)")
            #expect(try String(contentsOf: file, encoding: .utf8) == printed.stdout)
        }
        #expect(exported.stdout == (try bench(["compare", path, path], in: directory)).stdout)
    }

    @Test("Text from a report reaches --export-markdown shown, not obeyed: no tag, no live link, no line of its own")
    func markdownEscaped() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // A library's version is free text in a report; the comparison's warning quotes it. The
        // prepended U+0600 and the combining U+0301 once hid the `<` and the `[` from the escape.
        let planted = "\u{600}<img src=x onerror=alert(1)>\n# injected\r\n[\u{301}x\u{600}](https://example.com)"
        var paths: [String] = []
        for (name, report) in [("base", SyntheticRun.report()), ("current", SyntheticRun.report(openssl: planted))] {
            let path = directory.appendingPathComponent("\(name).csv").path
            try ReportFiles.write(ReportSchema.encode(report.rows, columns: ReportSchema.summary), to: path)
            paths.append(path)
        }
        let result = try bench(["compare"] + paths + ["--export-markdown", "c.md"], in: directory)
        #expect([0, 1, 2].contains(result.status), "\(result.stderr)")
        let markdown = try String(contentsOf: directory.appendingPathComponent("c.md"), encoding: .utf8)
        let lines = markdown.split(separator: "\n", omittingEmptySubsequences: false)
        let warning = try #require(lines.first { $0.hasPrefix("> warning: the runs differ in openssl") })
        // Kept out of #expect, whose quoting of a literal that holds both a `\u{…}` escape and a
        // backslash leaves the backslash unescaped and does not compile.
        let shown = "\u{600}&lt;img src=x onerror=alert(1)&gt;\u{FFFD}\\# injected"
        #expect(warning.contains(shown))
        #expect(!containsScalars(markdown, "<img"))
        #expect(unescapedLinkDestinations(in: markdown) == 0)
        #expect(!lines.contains { $0.hasPrefix("# ") || $0.hasPrefix("> # ") || $0.hasPrefix("[") })
        #expect(!markdown.unicodeScalars.contains("\r"))
    }

    @Test("An export that cannot be written is 73 before anything is measured; two exports to one file, 64")
    func failures() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let missing = try bench(
            Self.small + ["--output", "out", "--export-json", "no/such/dir/run.json"], in: directory)
        #expect(missing.status == 73)
        #expect(missing.stderrLines == ["bench: cannot write no/such/dir/run.json: No such file or directory"])
        let folder = try bench(Self.small + ["--output", "out", "--export-csv", "."], in: directory)
        #expect(folder.status == 73)
        #expect(folder.stderrLines == ["bench: cannot write .: it is a directory"])
        let twice = try bench(
            Self.small + ["--output", "out", "--export-json", "a.txt", "--export-csv", "./a.txt"], in: directory)
        #expect(twice.status == 64)
        #expect(
            twice.stderrLines == [
                "bench: --export-json and --export-csv both name ./a.txt (see 'bench --help')"
            ])
        for result in [missing, folder, twice] {
            #expect(result.stdout.isEmpty)
        }
        #expect(try listing(directory).isEmpty)
    }

    @Test("bench ab writes the comparison to each export")
    func ab() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let me = productsDirectory.appendingPathComponent("bench").path
        let result = try bench(
            ["ab", me, "--backend", "swift", "--operation", "sha256", "--size", "64", "--quick", "--threshold", "50"]
                + ["--output", "out"]
                + ["--export-markdown", "ab.md", "--export-csv", "ab.csv"], in: directory)
        #expect(result.status == 0 || result.status == 2, "\(result.stderr)")
        let markdown = try String(contentsOf: directory.appendingPathComponent("ab.md"), encoding: .utf8)
        #expect(markdown.hasPrefix("### PKCEBench: "))
        let csv = try String(contentsOf: directory.appendingPathComponent("ab.csv"), encoding: .utf8)
        // The comparison's CSV as --format csv prints it: what ab-comparison.csv holds, with LF.
        let written = try String(contentsOf: directory.appendingPathComponent("out/ab-comparison.csv"), encoding: .utf8)
        #expect(csv == written.replacingOccurrences(of: "\r\n", with: "\n"))
    }
}
