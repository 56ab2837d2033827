import Foundation
import PKCEBenchCore
import PKCEBenchReports
import PKCEBenchTestSupport
import Testing

/// `bench backfill` over a repository of ten commits of a package of a user's own
/// (`Tests/Fixtures/OwnBackend`), stopped by signals at several points and resumed.
@Suite(
    "bench backfill: a range of commits measured into the history, resumed after any stop",
    .enabled(if: buildTestsEnabled, "builds a package; set PKCEBENCH_BUILD_TESTS=1 to run it"))
struct BackfillTests {
    /// Waits up to `seconds` for `condition`, asking every 100 ms.
    static func wait(seconds: Double, for condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if condition() { return true }
            usleep(100_000)
        }
        return condition()
    }

    /// The history's runs, each checked whole: one row per selected case, one commit each.
    static func runs(in history: URL) throws -> [RunResult] {
        guard FileManager.default.fileExists(atPath: history.path) else { return [] }
        let runs = SummaryRow.runs(of: try ReportFiles.readHistory(at: history.path))
        for run in runs {
            #expect(run.summaries.map(\.key.description) == ["sha256/urandom/64"], "run \(run.environment.runID)")
        }
        return runs
    }

    @Test("Ten commits: SIGKILL while building, SIGINT while measuring, SIGKILL after a run lands; resumed, each once")
    func survivesSignals() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let ownbench = try OwnBackendPackageTests.build(in: directory)
        let environment = ABAgainstTests.environment(caching: directory.appendingPathComponent("home"))
        let package = directory.appendingPathComponent("OwnBackend")
        func git(_ arguments: [String]) throws {
            try WorkflowTests.run(
                ["git", "-c", "user.name=t", "-c", "user.email=t@t"] + arguments, in: directory,
                environment: environment)
        }
        try git(["init", "--quiet", "-b", "main"])
        try git(["add", "OwnBackend/Package.swift", "OwnBackend/Sources", "PKCEBench"])
        try git(["commit", "--quiet", "-m", "own backend"])
        // Ten commits, each of which changes the executable's source, as a commit of a user's would;
        // the sixth also makes the backend's SHA-256 hash every message sixteen times, a step that a busy
        // machine (other tests building beside this one) cannot hide in runs of --quick.
        let main = package.appendingPathComponent("Sources/ownbench/main.swift")
        let backend = package.appendingPathComponent("Sources/ownbench/URandomBackend.swift")
        for number in 1...10 {
            let handle = try FileHandle(forWritingTo: main)
            handle.seekToEndOfFile()
            handle.write(Data("// change \(number)\n".utf8))
            try handle.close()
            if number == 6 {
                let once = "        SwiftBackend().sha256(message, into: digest)\n"
                let source = try String(contentsOf: backend, encoding: .utf8)
                #expect(source.contains(once))
                try source.replacingOccurrences(of: once, with: String(repeating: once, count: 16))
                    .write(to: backend, atomically: true, encoding: .utf8)
            }
            try git(["commit", "--quiet", "-am", "change \(number)"])
        }
        let commits = try WorkflowTests.run(["git", "log", "--reverse", "--format=%h", "-10"], in: directory)
            .split(separator: "\n").map(String.init)
        #expect(commits.count == 10)

        let arguments = [
            "backfill", "HEAD~10..HEAD", "--quick", "--backend", "urandom", "--operation", "sha256", "--size", "64",
            "--output", "results",
        ]
        let history = package.appendingPathComponent("results/history.csv")
        let log = directory.appendingPathComponent("stderr")
        func start() throws -> RunningBench {
            try RunningBench(arguments, in: package, stderrTo: log, environment: environment, executable: ownbench)
        }
        func stderr() -> String { (try? String(contentsOf: log, encoding: .utf8)) ?? "" }

        // Killed while the first commit builds: nothing in the history.
        var running = try start()
        #expect(Self.wait(seconds: 120) { stderr().contains("building \(commits[0])") })
        usleep(500_000)
        kill(running.process.processIdentifier, SIGKILL)
        _ = try running.wait()
        #expect(try Self.runs(in: history).isEmpty)

        // Interrupted while measuring, after two runs: those two stay, and it says it stopped.
        running = try start()
        #expect(Self.wait(seconds: 600) { ((try? Self.runs(in: history).count) ?? 0) >= 2 })
        #expect(Self.wait(seconds: 120) { stderr().components(separatedBy: ": run 1 of 1").count > 3 })
        running.process.interrupt()
        let interrupted = try running.wait()
        #expect(interrupted.status == 130, "\(interrupted.stderr)")
        let afterInterrupt = try Self.runs(in: history)
        #expect(afterInterrupt.count >= 2)

        // Killed the moment the fifth run has landed.
        running = try start()
        #expect(Self.wait(seconds: 600) { ((try? Self.runs(in: history).count) ?? 0) >= 5 })
        kill(running.process.processIdentifier, SIGKILL)
        _ = try running.wait()
        let afterKill = try Self.runs(in: history)
        #expect(afterKill.count >= 5)
        #expect(
            Array(afterKill.prefix(afterInterrupt.count).map(\.environment.runID))
                == afterInterrupt.map(\.environment.runID))

        // Resumed to the end: each commit once, in order, the runs written before kept as they were.
        let finished = try bench(arguments, in: package, environment: environment, executable: ownbench)
        #expect(finished.status == 0, "\(finished.stderr)")
        let runs = try Self.runs(in: history)
        // On failure, what each start printed says which commit was skipped, or why.
        #expect(runs.map(\.environment.commit) == commits, "\(stderr())\n\(finished.stderr)")
        #expect(Array(runs.prefix(afterKill.count).map(\.environment.runID)) == afterKill.map(\.environment.runID))
        #expect(finished.stderr.contains("\(commits[0]): 1 run(s) in the history already"))
        // No staged file of a killed write is left in the results directory.
        #expect(try listing(package.appendingPathComponent("results")).allSatisfy { !$0.hasPrefix(".") })

        // Once more: nothing left to measure.
        let again = try bench(arguments, in: package, environment: environment, executable: ownbench)
        #expect(again.status == 0)
        #expect(again.stdout.hasPrefix("measured 0 run(s) of 10 commit(s)"))
        #expect(try Self.runs(in: history).count == 10)

        // The step at the sixth commit is found, and confirmed by comparing its build with the fifth's.
        let changes = try bench(
            ["history", "--changes", "--confirm", "--format", "csv", "--output", "results"], in: package,
            environment: environment, executable: ownbench)
        #expect(changes.status == 1, "\(changes.stderr)")
        let table = try CSV.parse(Array(changes.stdout.utf8))
        func field(_ name: String, _ record: CSVRecord?) -> String? {
            table.header.firstIndex(of: name).flatMap { record?.fields[$0] }
        }
        let step = table.records.first { field("commit_after", $0) == commits[5] }
        #expect(field("status", step) == "regressed", "\(changes.stdout)")
        #expect(field("alert", step) == "yes")
        #expect(field("confirmation", step) == "confirmed", "\(changes.stderr)")

        // A timed bisect of the ten commits names the sixth.
        let bisect = try bench(
            [
                "bisect", "--good", "HEAD~10", "--bad", "HEAD", "--case", "sha256/urandom/64", "--quick",
                "--threshold", "20", "--output", "results",
            ], in: package, environment: environment, executable: ownbench)
        #expect(bisect.status == 0, "\(bisect.stdout)\n\(bisect.stderr)")
        let lines = bisect.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("step 1: \(commits[9]) against ") == true, "\(bisect.stdout)")
        #expect(lines.last?.hasPrefix("first changed: ") == true && lines.last?.contains(" change 6 (+") == true)
        #expect(
            lines.dropLast().last?.hasPrefix(
                "step \(lines.count - 1): \(commits[5]) against \(commits[4]) slower? changed") == true)

        // The article's nightly job, its "Find the steps" as two nights would run it: the first confirms
        // the step, fails the job and records the newest alert's run; the second, with no run since,
        // alerts on nothing and keeps that record.
        let newestAlert = try #require(
            table.records.filter { field("alert", $0) == "yes" }.compactMap { field("first_run_after", $0) }.max())
        let find = try #require(try Self.nightlyJob().first { $0.name == "Find the steps" })
        #expect(find.script.contains(".build/release/bench history --changes --confirm"))
        let output = directory.appendingPathComponent("github-output")
        let summary = directory.appendingPathComponent("summary.md")
        var night = environment
        night["GITHUB_OUTPUT"] = output.path
        night["GITHUB_STEP_SUMMARY"] = summary.path
        let script = find.script.replacingOccurrences(of: ".build/release/bench", with: ownbench.path)
        for (number, status) in [(1, "status=1"), (2, "status=0")] {
            try? FileManager.default.removeItem(at: output)
            let result = try WorkflowTests.shell(
                ["bash", "--noprofile", "--norc", "-e", "-c", script], in: package, environment: night)
            #expect(result.status == 0, "night \(number): \(result.output)")
            #expect(try String(contentsOf: output, encoding: .utf8) == status + "\n", "night \(number)")
            let lastAlert = try String(contentsOf: package.appendingPathComponent("last-alert"), encoding: .utf8)
            #expect(lastAlert == newestAlert + "\n", "night \(number)")
            #expect(!result.output.contains("::warning::"), "night \(number): \(result.output)")
        }
        let confirmed = try String(contentsOf: summary, encoding: .utf8)
        #expect(confirmed.contains("confirmed"), "\(confirmed)")

        // Three machines' shares of the range, each into its own results directory (from the builds
        // kept above): the 1st, 4th, 7th and 10th commits, the 2nd, 5th and 8th, the 3rd, 6th and 9th.
        var shared: [[String]] = []
        for number in 1...3 {
            let share = [
                "backfill", "HEAD~10..HEAD", "--quick", "--backend", "urandom", "--operation", "sha256", "--size", "64",
                "--shard", "\(number)/3", "--output", "share-\(number)",
            ]
            let result = try bench(share, in: package, environment: environment, executable: ownbench)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.contains("share \(number)/3: \(number == 1 ? 4 : 3) of the range's 10 commit(s)"))
            shared.append(
                try Self.runs(in: package.appendingPathComponent("share-\(number)/history.csv")).map(
                    \.environment.commit))
        }
        #expect(shared == [[0, 3, 6, 9], [1, 4, 7], [2, 5, 8]].map { $0.map { commits[$0] } })

        #if PostgreSQL
        if ProcessInfo.processInfo.environment["PKCEBENCH_TEST_POSTGRES"] != nil {
            try Self.sharesIntoOneStore(
                package: package, commits: commits, environment: environment, ownbench: ownbench)
        }
        #endif
    }

    #if PostgreSQL
    /// Two machines' shares of the range, `--runs 2`, into one store, from the builds kept above: one
    /// killed with SIGKILL halfway through its share and started again with an empty results directory
    /// (as on another machine, so that only the store says what it had done), the other stopped with
    /// SIGSTOP mid-run and continued. On one machine the two wait in turn for its cache of builds; two
    /// machines would measure at once.
    static func sharesIntoOneStore(package: URL, commits: [String], environment: [String: String], ownbench: URL)
        throws
    {
        let database = try PostgresStoreTests.Database()
        func stored() throws -> Int { Int(try database.value("SELECT count(*) FROM pkcebench_runs")) ?? -1 }
        func share(_ number: Int, into output: String) throws -> RunningBench {
            try RunningBench(
                [
                    "backfill", "HEAD~10..HEAD", "--quick", "--backend", "urandom", "--operation", "sha256", "--size",
                    "64", "--runs", "2", "--shard", "\(number)/2", "--store", database.url, "--output", output,
                ], in: package, stderrTo: package.appendingPathComponent("\(output).log"), environment: environment,
                executable: ownbench)
        }
        /// What a share has written to standard error so far.
        func log(_ output: String) -> String {
            (try? String(contentsOf: package.appendingPathComponent("\(output).log"), encoding: .utf8)) ?? ""
        }

        // The store's schema first, as its owner would make it.
        let created = try bench(["history", "--store", database.url], in: package, executable: ownbench)
        try #require(created.status == 0, "\(created.stderr)")
        // The first share until it has stored its first runs; the second waits for the cache meanwhile.
        let first = try share(1, into: "store-1")
        #expect(wait(seconds: 300) { ((try? stored()) ?? 0) >= 1 }, "\(log("store-1"))")
        let second = try share(2, into: "store-2")
        #expect(wait(seconds: 300) { ((try? stored()) ?? 0) >= 5 }, "\(log("store-1"))")
        kill(first.process.processIdentifier, SIGKILL)
        _ = try first.wait()
        let beforeRestart = try stored()
        #expect(beforeRestart < 10, "the first share ran to its end before it was killed")

        // The second share takes the cache; stopped after its first run is stored, and continued.
        #expect(wait(seconds: 300) { ((try? stored()) ?? 0) > beforeRestart }, "\(log("store-2"))")
        kill(second.process.processIdentifier, SIGSTOP)
        let restarted = try share(1, into: "store-1-again")
        usleep(2_000_000)
        kill(second.process.processIdentifier, SIGCONT)
        let secondDone = try second.wait()
        #expect(secondDone.status == 0, "\(secondDone.stderr)")
        let restartedDone = try restarted.wait()
        #expect(restartedDone.status == 0, "\(restartedDone.stderr)")

        // Every commit twice in the store, each run once; the restarted share measured only what the
        // killed one had not stored.
        let counts = try database.value(
            #"SELECT string_agg("commit" || '=' || n, ',' ORDER BY "commit") FROM "#
                + #"(SELECT "commit", count(*) AS n FROM pkcebench_runs GROUP BY "commit") AS c"#)
        #expect(counts == commits.sorted().map { "\($0)=2" }.joined(separator: ","), "\(counts)")
        // The first share's 5 commits, 10 runs: those the killed one had stored, and the rest.
        let again = try runs(in: package.appendingPathComponent("store-1-again/history.csv"))
        #expect(again.count == 10 - beforeRestart)
        #expect(restartedDone.stderr.contains("\(commits[0]): 2 run(s) in the history already"))
    }
    #endif

    /// The steps of the nightly job in the article "Tracking regressions over time".
    static func nightlyJob() throws -> [WorkflowTests.Step] {
        let article = try String(
            contentsOf: WorkflowTests.root.appendingPathComponent(
                "Sources/PKCEBenchKit/PKCEBenchKit.docc/TrackingRegressionsOverTime.md"), encoding: .utf8)
        let job = article.components(separatedBy: "```yaml\nname: nightly benchmarks\n").dropFirst().first?
            .components(separatedBy: "\n```").first
        return WorkflowTests.steps(of: try #require(job, "the article's nightly job"))
    }
}
