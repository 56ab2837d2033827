import Foundation
import PKCEBenchCore
import PKCEBenchReportsTestSupport
import PKCEBenchTestSupport
import Testing

@Suite("bench history --changes")
struct HistoryChangesCommandTests {
    static let stepped = CaseKey(backend: "swift", operation: .sha256, size: 1024, threads: 1)

    /// 16 runs, each of its own commit; `sha256/swift/1024` 6% slower from run 10 on.
    static func writeSteppedHistory() throws -> (directory: URL, runs: [RunResult]) {
        let directory = try temporaryDirectory()
        let runs = SyntheticRun.series(runs: 16) { $0 >= 10 ? [Self.stepped: 1.06] : [:] }
        try SyntheticRun.writeHistory(of: runs, in: directory)
        return (directory, runs)
    }

    @Test("A step names the runs and commits either side, and exits 1 until --since is past it")
    func stepAndWindow() throws {
        let (directory, runs) = try Self.writeSteppedHistory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try bench(["history", "--changes", "--format", "csv", "--output", directory.path])
        #expect(result.status == 1)
        #expect(result.stderr.isEmpty)
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(
            lines.first?.hasPrefix(
                "case,operation,backend,size,threads,cpu,cpu_flags,build,target_cpu,metric,runs,status,last_run_before,"
            ) == true)
        #expect(lines.count == 1 + 64)
        let step = try #require(lines.first { $0.hasPrefix("sha256/swift/1024,") }).split(separator: ",")
        #expect(step[1...4] == ["sha256", "swift", "1024", "1"])
        #expect(
            step[5...15] == [
                "Test CPU", "sha_ni avx2", "release", "x86-64", "time",
                "16", "regressed", Substring(runs[9].environment.runID), "c000009",
                Substring(runs[10].environment.runID), "c000010",
            ])
        let change = try #require(Double(step[16]))
        #expect(abs(change - 6) < 1)
        #expect(step.last == "yes")
        #expect(lines.filter { $0.contains(",no-change,") }.count == 63)

        // Alerts only after --since: a commit before the step still alerts, the step's own does not.
        let before = try bench(["history", "--changes", "--since", "c000008", "--output", directory.path])
        #expect(before.status == 1)
        #expect(before.stdout.contains("1 regression after c000008"))
        let after = try bench(["history", "--changes", "--since", "c000010", "--output", directory.path])
        #expect(after.status == 0)
        #expect(after.stdout.contains("sha256/swift/1024") && after.stdout.contains("0 regressions after c000010"))
        // The table names both sides of the step.
        #expect(after.stdout.contains("c000009") && after.stdout.contains("regressed"))
        // --since finds its run in the whole history, older than the runs read: every step read is after it.
        let older = try bench(
            ["history", "--changes", "--last", "10", "--since", "c000001", "--output", directory.path])
        #expect(older.status == 1)
        #expect(older.stdout.contains("1 regression after c000001"))
    }

    @Test("A history too short to tell says so and exits 0; bad options are usage errors")
    func shortAndUsage() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try SyntheticRun.writeHistory(of: SyntheticRun.series(runs: 5), in: directory)
        let short = try bench(["history", "--changes", "--format", "csv", "--output", directory.path])
        #expect(short.status == 0)
        #expect(short.stdout.split(separator: "\n").dropFirst().allSatisfy { $0.contains(",too-short,") })
        for arguments in [
            ["--since", "c000001"], ["--threshold", "3"], ["--metric", "instructions"], ["--metric", "time"],
            ["--confirm"],
        ] {
            let result = try bench(["history", "--output", directory.path] + arguments)
            #expect(result.status == 64)
            #expect(result.stderr.contains("needs --changes"))
        }
        let unknown = try bench(["history", "--changes", "--since", "nowhere", "--output", directory.path])
        #expect(unknown.status == 64)
        #expect(unknown.stderrLines == ["bench: --since nowhere: no run with that id or commit in the history"])
    }
}
