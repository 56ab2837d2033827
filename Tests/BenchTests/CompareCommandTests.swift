import Foundation
import PKCEBenchCore
import PKCEBenchReports
import PKCEBenchReportsTestSupport
import PKCEBenchTestSupport
import Testing

@Suite("bench compare, baseline and history")
struct CompareCommandTests {
    static let target = CaseKey(backend: "openssl", operation: .challenge, size: 43, threads: 1)

    /// Writes a synthetic run and its samples into `directory` as `name`.csv.
    static func write(_ report: RunResult, _ name: String, in directory: URL) throws -> String {
        let path = directory.appendingPathComponent("\(name).csv").path
        try ReportFiles.write(report, summaryAt: path)
        return path
    }

    @Test("A file compared with itself: nothing changed, exit 0")
    func itself() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // Six earlier runs of the build beside the files: its spread between runs is measured.
        try SyntheticRun.writeHistory(in: directory)
        let path = try Self.write(SyntheticRun.report(), "base", in: directory)
        let result = try bench(["compare", path, path])
        #expect(result.status == 0)
        #expect(result.stderr.isEmpty)
        #expect(result.stdout.contains("0 regressed, 0 improved, 64 unchanged (threshold 5%, alpha 0.01)"))
    }

    @Test("Without a history the spread between runs is unmeasured: the drift floor leaves cases undecided (2)")
    func withoutHistory() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = try Self.write(SyntheticRun.report(), "base", in: directory)
        let result = try bench(["compare", path, path])
        #expect(result.status == 2)
        #expect(result.stdout.contains("the spread between runs is unmeasured"))
        #expect(result.stdout.contains("widened by the 3% drift floor"))
        #expect(!result.stdout.contains(" regressed\n"))
        // The history, named where it lies, measures it.
        let elsewhere = directory.appendingPathComponent("kept")
        try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)
        try SyntheticRun.writeHistory(in: elsewhere)
        let measured = try bench([
            "compare", path, path, "--history", elsewhere.appendingPathComponent("history.csv").path,
        ])
        #expect(measured.status == 0)
        #expect(measured.stdout.contains("measured from 6 runs of 1 commit(s) of this host in the history"))
        // A named history that is not there is missing input, in one line.
        let missing = try bench(["compare", path, path, "--history", directory.appendingPathComponent("none.csv").path])
        #expect(missing.status == 66)
        #expect(missing.stderr.split(separator: "\n").count == 1)
        #expect(missing.stdout.isEmpty)
    }

    @Test("A history's runs of another host or of uncommitted changes are left out, and the output says so")
    func historyLeftOut() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var elsewhere = SyntheticRun.report(runID: "20261121T010000.000Z-abc1234-000000aa")
        elsewhere.environment.cpu = "Other CPU"
        var dirty = SyntheticRun.report(runID: "20261121T010100.000Z-abc1234-dirty-000000bb")
        dirty.environment.recordedCommit = RecordedCommit(recorded: "abc1234-dirty")
        try SyntheticRun.writeHistory(of: SyntheticRun.history() + [elsewhere, dirty], in: directory)
        let path = try Self.write(SyntheticRun.report(), "base", in: directory)
        let result = try bench(["compare", path, path])
        #expect(result.status == 0)
        #expect(result.stdout.contains("measured from 6 runs of 1 commit(s) of this host in the history"))
        #expect(
            result.stdout.contains(
                "history: 2 run(s) not used for the spread between runs: 1 of another host or build, 1 of a build "
                    + "with uncommitted changes or no known commit"))
        let json = try bench(["compare", path, path, "--format", "json"])
        let compact = json.stdout.filter { !$0.isWhitespace }
        #expect(compact.contains(#""runs_left_out":{"few_cases":0,"older":0,"other_host":1,"unknown_code":1}"#))
    }

    @Test("One case's samples scaled by 1.10: exactly that case regressed, exit 1")
    func regression() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // Six earlier runs of the build beside the files: its spread between runs is measured.
        try SyntheticRun.writeHistory(in: directory)
        let base = try Self.write(SyntheticRun.report(), "base", in: directory)
        let slower = try Self.write(SyntheticRun.report(scale: [Self.target: 1.10]), "slower", in: directory)
        let result = try bench(["compare", base, slower])
        #expect(result.status == 1)
        let regressed = result.stdout.split(separator: "\n").filter { $0.hasSuffix("regressed") }
        #expect(regressed.count == 1)
        #expect(regressed.first?.hasPrefix("challenge") == true && regressed.first?.contains("openssl") == true)
        #expect(regressed.first?.contains("+10.0%") == true)
        #expect(result.stdout.contains("1 regressed, 0 improved, 63 unchanged"))
    }

    @Test("One case's samples scaled by 0.90: exactly that case improved, exit 0")
    func improvement() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // Six earlier runs of the build beside the files: its spread between runs is measured.
        try SyntheticRun.writeHistory(in: directory)
        let base = try Self.write(SyntheticRun.report(), "base", in: directory)
        let faster = try Self.write(SyntheticRun.report(scale: [Self.target: 0.90]), "faster", in: directory)
        let result = try bench(["compare", base, faster, "--format", "csv"])
        #expect(result.status == 0)
        // Standard output's CSV ends its lines in LF: no line tool sees a stray carriage return.
        #expect(!result.stdout.utf8.contains(UInt8(ascii: "\r")))
        let rows = result.stdout.split(separator: "\n").dropFirst()
        #expect(
            rows.filter { $0.hasSuffix(",improved,time,,") }.map {
                $0.split(separator: ",").prefix(3).joined(separator: ",")
            } == ["openssl,challenge,43"])
        #expect(rows.filter { $0.hasSuffix(",unchanged,time,,") }.count == 63)
    }

    @Test("Without a samples file, the threshold alone decides, and the output says so")
    func thresholdOnly() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // Six earlier runs of the build beside the files: its spread between runs is measured.
        try SyntheticRun.writeHistory(in: directory)
        let base = try Self.write(SyntheticRun.report(), "base", in: directory)
        let slower = try Self.write(SyntheticRun.report(scale: [Self.target: 1.10]), "slower", in: directory)
        try FileManager.default.removeItem(atPath: ReportFiles.samplesPath(for: slower))
        let result = try bench(["compare", base, slower, "--format", "markdown"])
        #expect(result.status == 1)
        #expect(result.stdout.hasPrefix("### PKCEBench: 1 regressed, 0 improved, 63 unchanged"))
        #expect(result.stdout.contains("no samples for 64 case(s): their verdicts use the 5% threshold alone"))
    }

    @Test("Markdown for a pull request: attention first, unchanged folded, both runs' ids and commits, the warnings")
    func markdownComment() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // Six earlier runs of the build beside the files: its spread between runs is measured.
        try SyntheticRun.writeHistory(in: directory)
        let base = try Self.write(
            SyntheticRun.report(runID: "20261122T000000.000Z-aaaaaaa-00000000"), "base", in: directory)
        let slower = try Self.write(
            SyntheticRun.report(
                runID: "20261123T000000.000Z-bbbbbbb-00000000", openssl: "OpenSSL 3.5.0 8 Apr 2025",
                scale: [Self.target: 1.10]),
            "slower", in: directory)
        let result = try bench(["compare", base, slower, "--format", "markdown"])
        #expect(result.status == 1)
        let text = result.stdout
        #expect(text.hasPrefix("### PKCEBench: 1 regressed, 0 improved, 63 unchanged"))
        let commits = try [base, slower].map { try ReportFiles.readSummary(at: $0)[0].environment.commit }
        #expect(text.contains("Baseline `20261122T000000.000Z-aaaaaaa-00000000` at commit `\(commits[0])`"))
        #expect(text.contains("current `20261123T000000.000Z-bbbbbbb-00000000` at commit `\(commits[1])`"))
        // The warning that also goes to stderr, as a GitHub alert.
        #expect(text.contains("> [!WARNING]\n> warning: the runs differ in openssl"))
        #expect(result.stderr.contains("warning: the runs differ in openssl"))
        // The regression in its own table, before the folded unchanged cases.
        let regression = try #require(text.range(of: "| challenge | 43 | 1 | openssl |"))
        let folded = try #require(text.range(of: "<details><summary>63 unchanged</summary>"))
        #expect(regression.upperBound < folded.lowerBound)
        let afterFold = text[folded.upperBound...]
        #expect(afterFold.split(separator: "\n").filter { $0.hasSuffix("| unchanged |") }.count == 63)
        #expect(!afterFold.contains("| regressed |"))
        #expect(afterFold.contains("</details>"))
    }

    @Test("JSON gives every case with every key")
    func json() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // Six earlier runs of the build beside the files: its spread between runs is measured.
        try SyntheticRun.writeHistory(in: directory)
        let base = try Self.write(SyntheticRun.report(), "base", in: directory)
        let result = try bench(["compare", base, base, "--format", "json"])
        let document = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let comparison = try #require(document["comparison"] as? [String: Any])
        #expect(comparison["regression"] as? Bool == false)
        let cases = try #require(comparison["cases"] as? [[String: Any]])
        #expect(cases.count == 64)
        #expect(comparison["inconclusive"] as? Bool == false)
        #expect(comparison["metric"] as? String == "time")
        #expect(cases.allSatisfy { $0.count == 17 && $0["verdict"] as? String == "unchanged" })
        #expect(cases.allSatisfy { $0["baseline_instructions_per_op"] is NSNull })
    }

    @Test("The same files compare to the same bytes every time, whatever order a process hashes in")
    func deterministic() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // Six earlier runs of the build beside the files: its spread between runs is measured.
        try SyntheticRun.writeHistory(in: directory)
        let base = try Self.write(SyntheticRun.report(), "base", in: directory)
        let slower = try Self.write(SyntheticRun.report(scale: [Self.target: 1.03]), "slower", in: directory)
        // Each process seeds its hashing afresh: a sum taken in a dictionary's order would differ.
        let outputs = try (0..<4).map { _ in try bench(["compare", base, slower, "--format", "json"]).stdout }
        #expect(Set(outputs).count == 1)
    }

    @Test("A debug build against a release build: 65, saying why")
    func debugAgainstRelease() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // Six earlier runs of the build beside the files: its spread between runs is measured.
        try SyntheticRun.writeHistory(in: directory)
        let release = try Self.write(SyntheticRun.report(), "release", in: directory)
        let debug = try Self.write(SyntheticRun.report(build: .debug), "debug", in: directory)
        let result = try bench(["compare", release, debug])
        #expect(result.status == 65)
        #expect(
            result.stderrLines == [
                "bench: cannot compare \(release) (release build) with \(debug) (debug build): figures of a debug build say nothing about a release build"
            ])
        #expect(result.stdout.isEmpty)
    }

    @Test("Different library versions: one warning line, and the comparison still runs")
    func environmentWarning() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // Six earlier runs of the build beside the files: its spread between runs is measured.
        try SyntheticRun.writeHistory(in: directory)
        let base = try Self.write(SyntheticRun.report(), "base", in: directory)
        let other = try Self.write(SyntheticRun.report(openssl: "OpenSSL 3.5.0 8 Apr 2025"), "other", in: directory)
        let result = try bench(["compare", base, other])
        #expect(result.status == 0)
        #expect(
            result.stderrLines == [
                "bench: warning: the runs differ in openssl library 'OpenSSL 3.0.19 27 Jan 2026' → 'OpenSSL 3.5.0 8 Apr 2025'; the comparison may reflect that rather than the code"
            ])
    }

    @Test("A run saved as baseline, then compared against it in one command; history and its chart")
    func baselineRunAndHistory() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // Four processes, not --quick's two: with two per side, Welch's interval has about one
        // degree of freedom (t = 12.7), and under a sanitizer on a loaded machine it exceeded even
        // the 900% threshold below, making the verdict inconclusive (exit 2) in CI.
        let quick = ["--quick", "--processes", "4", "--backend", "swift", "--operation", "random", "--output", "out"]

        let first = try bench(quick + ["--save-baseline"], in: directory)
        #expect(first.status == 0, "stderr: \(first.stderr)")
        let baseline = directory.appendingPathComponent("out/baseline.csv").path
        #expect(try ReportFiles.readSummary(at: baseline).count == 1)

        // A threshold no noise reaches, so that the verdict cannot depend on the machine's mood.
        let second = try bench(quick + ["--baseline", baseline, "--threshold", "900"], in: directory)
        #expect(second.status == 0, "stderr: \(second.stderr)")
        #expect(second.stdout.contains("0 regressed, 0 improved, 1 unchanged (threshold 900%, alpha 0.01)"))

        let promoted = try bench(["baseline", "out/latest.csv", "--output", "out"], in: directory)
        #expect(promoted.status == 0)
        let latestRun = try ReportFiles.readSummary(at: directory.appendingPathComponent("out/latest.csv").path)
        #expect(
            try ReportFiles.readSummary(at: baseline).map(\.environment.runID) == latestRun.map(\.environment.runID))

        let history = try bench(["history", "--output", "out", "--chart", "out/history.svg"], in: directory)
        #expect(history.status == 0)
        #expect(history.stdout.split(separator: "\n").filter { $0.hasPrefix("random") }.count == 2)
        let csv = try bench(["history", "--output", "out", "--format", "csv"], in: directory)
        #expect(csv.status == 0)
        #expect(!csv.stdout.utf8.contains(UInt8(ascii: "\r")))
        #expect(csv.stdout.split(separator: "\n").count == 3)
        let chart = try String(contentsOf: directory.appendingPathComponent("out/history.svg"), encoding: .utf8)
        #expect(chart.contains("<polyline"))
        #expect(try listing(directory.appendingPathComponent("out")).contains("latest.svg"))
    }
}
