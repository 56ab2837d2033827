import Foundation
import PKCEBenchCore
import PKCEBenchReports
import PKCEBenchTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite("bench: stopped by a signal", .serialized)
struct SignalTests {
    /// Waits until `file` contains `text`, for at most a minute.
    static func wait(for text: String, in file: URL) throws {
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            if let contents = try? String(contentsOf: file, encoding: .utf8), contents.contains(text) { return }
            Thread.sleep(forTimeInterval: 0.02)
        }
        Issue.record("'\(text)' never appeared in \(file.lastPathComponent)")
    }

    @Test(
        "SIGINT or SIGTERM mid-run: exit 130 or 143, baseline and history untouched, nothing new written",
        arguments: [(SIGINT, Int32(130), "SIGINT"), (SIGTERM, Int32(143), "SIGTERM")])
    func stopped(signal: Int32, status: Int32, name: String) throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let results = ResultsDirectory(path: directory.appendingPathComponent("out").path)
        try results.prepare()
        try results.save(SyntheticRun.report(), asBaseline: .unnamed)
        let before = try snapshot(results.url)

        let stderrFile = directory.appendingPathComponent("stderr.log")
        let result = try bench(["--backend", "swift", "--output", "out"], in: directory, stderrTo: stderrFile) {
            process in
            // Signal once measuring has begun, in the first measuring process.
            try? Self.wait(for: "measuring in process 1 of", in: stderrFile)
            kill(process.processIdentifier, signal)
        }
        #expect(result.status == status)
        #expect(result.stderrLines.last == "bench: stopped by \(name); no report was written")
        #expect(result.stdout.isEmpty)
        #expect(try snapshot(results.url) == before, "the results directory changed")
    }

    @Test("Started with SIGCHLD ignored, as a parent's setting passes through exec: the workers' exits are read")
    func childSignalIgnored() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let me = productsDirectory.appendingPathComponent("bench").path
        // Bash's empty trap ignores SIGCHLD (dash's does not), and exec keeps it ignored in bench.
        let result = try bench(
            [
                "-c", "trap '' CHLD; exec \"$0\" \"$@\"", me, "--quick", "--backend", "swift", "--operation", "random",
                "--processes", "2", "--output", "out",
            ], in: directory, executable: URL(fileURLWithPath: "/bin/bash"))
        #expect(result.status == 0, "\(result.stderr)")
        let rows = try ReportFiles.readSummary(at: directory.appendingPathComponent("out/latest.csv").path)
        #expect(rows.count == 1 && rows.allSatisfy(\.isOK))
    }

    /// Every file in a directory, hidden ones included, with its contents.
    private func snapshot(_ directory: URL) throws -> [String: Data] {
        var files: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) {
            files[name] = try Data(contentsOf: directory.appendingPathComponent(name))
        }
        return files
    }
}
