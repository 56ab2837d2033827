#if PostgreSQL
import Foundation
import PKCEBenchCore
import PKCEBenchReports
import PKCEBenchReportsTestSupport
import PKCEBenchTestSupport
import Testing

/// The cluster `.ci/postgres` starts: its URL, whose role may create databases, over loopback
/// with a password. CI always has one; elsewhere these tests run when it is set.
private let cluster = ProcessInfo.processInfo.environment["PKCEBENCH_TEST_POSTGRES"]

@Suite("In CI, the store's tests have their server")
struct PostgresClusterTests {
    @Test(
        "CI started the cluster that .ci/postgres makes", .enabled(if: ProcessInfo.processInfo.environment["CI"] != nil)
    )
    func clusterInCI() {
        #expect(cluster != nil, "PKCEBENCH_TEST_POSTGRES is not set: .ci/run starts the cluster before these tests")
    }
}

@Suite("The history in PostgreSQL (--store), against a real server", .enabled(if: cluster != nil))
struct PostgresStoreTests {
    /// A database of its own for one test, dropped when it ends: the cluster's URL with its name.
    final class Database {
        let name = "t_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        let url: String

        init() throws {
            let cluster = try #require(cluster)
            url = cluster.replacingOccurrences(of: #"/[^/?]*(\?.*)?$"#, with: "/\(name)", options: .regularExpression)
            try psql(cluster, "CREATE DATABASE \(name)")
        }

        deinit {
            if let cluster { _ = try? psql(cluster, "DROP DATABASE IF EXISTS \(name) WITH (FORCE)") }
        }

        /// The first column of the first row of `sql`'s result.
        func value(_ sql: String) throws -> String {
            try psql(url, sql).trimmingCharacters(in: .whitespacesAndNewlines)
        }
    }

    /// Runs one statement with psql, and gives what it printed (unaligned, no headers).
    @discardableResult
    static func psql(_ url: String, _ sql: String) throws -> String {
        let process = Process()
        let output = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/psql")
        process.arguments = [url, "--no-psqlrc", "--tuples-only", "--no-align", "--quiet", "--command", sql]
        process.standardOutput = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "psql \(sql)")
        return text
    }

    /// Writes `runs` as a history file in a new directory; gives the directory and the file.
    static func historyFile(of runs: [RunResult]) throws -> (directory: URL, file: URL) {
        let directory = try temporaryDirectory()
        let file = directory.appendingPathComponent("history.csv")
        try HistoryStore.file(of: runs.flatMap(\.rows)).write(to: file, atomically: true, encoding: .utf8)
        return (directory, file)
    }

    @Test("import stores each run once, export gives the same rows back, and a second import adds nothing")
    func importAndExport() throws {
        let database = try Database()
        let (directory, file) = try Self.historyFile(of: SyntheticRun.series(runs: 6))
        defer { try? FileManager.default.removeItem(at: directory) }

        let first = try bench(["history", "import", file.path, "--store", database.url])
        #expect(first.status == 0 && first.stderr.isEmpty)
        #expect(first.stdout.hasPrefix("stored 6 of the 6 run(s)"))
        #expect(!first.stdout.contains("bench-test"))
        let again = try bench(["history", "import", file.path], environment: ["PKCEBENCH_STORE": database.url])
        #expect(again.status == 0 && again.stdout.hasPrefix("stored 0 of the 6 run(s)"))
        #expect(try database.value("SELECT count(*) FROM pkcebench_runs") == "6")

        let exported = directory.appendingPathComponent("exported.csv")
        let export = try bench(["history", "export", exported.path, "--store", database.url])
        #expect(export.status == 0)
        #expect(try ReportFiles.readHistory(at: exported.path) == ReportFiles.readHistory(at: file.path))
    }

    @Test("8 processes appending 20 runs each at once store exactly 160 runs, each whole and once")
    func concurrentWriters() throws {
        let database = try Database()
        let runs = SyntheticRun.series(runs: 160)
        let files = try (0..<8).map { try Self.historyFile(of: Array(runs[($0 * 20)..<($0 * 20 + 20)])) }
        defer { files.forEach { try? FileManager.default.removeItem(at: $0.directory) } }

        // Each file twice: the second writer of a run finds it stored, or waits for the first's commit.
        let running = try (files + files).map { directory, file in
            try RunningBench(["history", "import", file.path, "--store", database.url], in: directory)
        }
        let results = try running.map { try $0.wait() }
        #expect(results.allSatisfy { $0.status == 0 }, "\(results.map(\.stderr))")
        #expect(try database.value("SELECT count(*) FROM pkcebench_runs") == "160")
        let cases = runs[0].summaries.count
        #expect(try database.value("SELECT count(*) FROM pkcebench_cases") == String(160 * cases))
        #expect(
            try database.value(
                "SELECT count(*) FROM (SELECT run_id FROM pkcebench_cases GROUP BY run_id HAVING count(*) <> \(cases)) t"
            ) == "0")
    }

    @Test("A bench killed with SIGKILL inside its write's transaction leaves nothing of that run")
    func killedWriter() throws {
        let database = try Database()
        let runs = SyntheticRun.series(runs: 5)
        let (directory, file) = try Self.historyFile(of: Array(runs[1...]))
        defer { try? FileManager.default.removeItem(at: directory) }
        // The schema first, and one run.
        let (_, first) = try Self.historyFile(of: [runs[0]])
        #expect(try bench(["history", "import", first.path, "--store", database.url]).status == 0)

        // A session that holds the cases' table, so that the writer inserts its run's row and then
        // waits, inside its transaction, to insert the run's cases.
        let holder = Process()
        let input = Pipe()
        holder.executableURL = URL(fileURLWithPath: "/usr/bin/psql")
        holder.arguments = [database.url, "--no-psqlrc", "--quiet"]
        holder.standardInput = input
        holder.standardOutput = FileHandle.nullDevice
        try holder.run()
        input.fileHandleForWriting.write(Data("BEGIN;\nLOCK TABLE pkcebench_cases IN EXCLUSIVE MODE;\n".utf8))
        try Self.waitFor(
            database,
            "SELECT count(*) FROM pg_locks WHERE relation = 'pkcebench_cases'::regclass "
                + "AND mode = 'ExclusiveLock' AND granted")

        let writer = try RunningBench(["history", "import", file.path, "--store", database.url], in: directory)
        try Self.waitFor(
            database,
            "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
                + "AND query LIKE 'INSERT INTO pkcebench_cases%'")
        kill(writer.process.processIdentifier, SIGKILL)
        #expect(try writer.wait().status == SIGKILL)
        input.fileHandleForWriting.write(Data("ROLLBACK;\n".utf8))
        try input.fileHandleForWriting.close()
        holder.waitUntilExit()
        // The writer's server process goes once it finds its client gone, rolling back.
        try Self.waitFor(
            database,
            "SELECT count(*) = 0 FROM pg_stat_activity WHERE datname = current_database() "
                + "AND pid <> pg_backend_pid() AND backend_type = 'client backend'", equals: "t")

        let cases = runs[0].summaries.count
        #expect(
            try database.value("SELECT count(*) || ' ' || (SELECT count(*) FROM pkcebench_cases) FROM pkcebench_runs")
                == "1 \(cases)")
        let rest = try bench(["history", "import", file.path, "--store", database.url])
        #expect(rest.stdout.hasPrefix("stored 4 of the 4 run(s)"))
    }

    /// Waits until `sql` gives `value`, for at most 30 s.
    static func waitFor(_ database: Database, _ sql: String, equals value: String = "1") throws {
        let deadline = Date().addingTimeInterval(30)
        while try database.value(sql) != value {
            try #require(Date() < deadline, "waited 30 s for \(sql)")
            Thread.sleep(forTimeInterval: 0.05)
        }
    }

    @Test("bench history --changes finds the same steps in the store as in history.csv")
    func changesAgree() throws {
        let database = try Database()
        let (directory, _) = try HistoryChangesCommandTests.writeSteppedHistory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("history.csv")
        #expect(try bench(["history", "import", file.path, "--store", database.url]).status == 0)
        let fromFile = try bench(["history", "--changes", "--format", "csv", "--output", directory.path])
        let fromStore = try bench(["history", "--changes", "--format", "csv", "--store", database.url])
        #expect(fromFile.status == 1 && fromStore.status == 1)
        #expect(fromStore.stdout == fromFile.stdout)
        let trendsFile = try bench(["history", "--format", "csv", "--output", directory.path])
        let trendsStore = try bench(["history", "--format", "csv", "--store", database.url])
        #expect(trendsStore.status == 0 && trendsStore.stdout == trendsFile.stdout)
    }

    @Test("The runs of a commit, by the prefix of its hash that bench backfill reads, taken literally")
    func runsOfACommit() throws {
        let database = try Database()
        let runs = SyntheticRun.series(runs: 12)
        let (directory, file) = try Self.historyFile(of: runs)
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(try bench(["history", "import", file.path, "--store", database.url]).status == 0)
        let address = try #require(try StoreAddress.chosen(database.url))
        let store = try HistoryStore(checking: address)
        func ids(_ prefix: String) throws -> [String] {
            try store.runs(ofCommitsBeginning: prefix).map(\.environment.runID)
        }
        #expect(try ids("c000010") == [runs[10].environment.runID])
        #expect(try ids("c00001") == runs[10...].map(\.environment.runID))
        #expect(try ids("") == runs.map(\.environment.runID))
        // LIKE's wildcards are characters like any other.
        #expect(try ids("c00001_").isEmpty && ids("%").isEmpty)
    }

    @Test("bench compare measures the spread between runs from the store as from the same runs in a file")
    func compareWithStore() throws {
        let database = try Database()
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try SyntheticRun.writeHistory(in: directory)
        let history = directory.appendingPathComponent("history.csv").path
        #expect(try bench(["history", "import", history, "--store", database.url]).status == 0)
        // The compared file where no history.csv lies beside it: the spread can come from the store alone.
        let elsewhere = directory.appendingPathComponent("elsewhere")
        try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)
        let path = try CompareCommandTests.write(SyntheticRun.report(), "base", in: elsewhere)

        let fromFile = try bench(["compare", path, path, "--history", history])
        let fromStore = try bench(["compare", path, path, "--store", database.url])
        #expect(fromStore.status == 0 && fromStore.stderr.isEmpty)
        #expect(fromStore.stdout.contains("measured from 6 runs of 1 commit(s) of this host in the history"))
        #expect(fromStore.stdout == fromFile.stdout)
        var environment = ProcessInfo.processInfo.environment
        environment["PKCEBENCH_STORE"] = nil
        let unmeasured = try bench(["compare", path, path], environment: environment)
        #expect(unmeasured.status == 2 && unmeasured.stdout.contains("the spread between runs is unmeasured"))
        // The store the environment names, unless --history names a file: here one that is not there (66).
        environment["PKCEBENCH_STORE"] = database.url
        let fromEnvironment = try bench(["compare", path, path], environment: environment)
        #expect(fromEnvironment.status == 0 && fromEnvironment.stdout == fromFile.stdout)
        let fileFirst = try bench(["compare", path, path, "--history", history + ".none"], environment: environment)
        #expect(fileFirst.status == 66 && fileFirst.stderr.contains(".none"))
        let both = try bench(["compare", path, path, "--history", history, "--store", database.url])
        #expect(
            both.status == 64 && both.stderr.contains("--history or --store, not both") && both.stderrLines.count == 1)
    }

    @Test("bench run --baseline reads the spread between runs from the store; from history.csv, said, when it is down")
    func runBaselineWithStore() throws {
        let database = try Database()
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let selection = ["--operation", "sha256", "--backend", "swift", "--size", "0,1,2,3,4,5,6,7", "--quick"]
        let first = try bench(["run"] + selection + ["--output", "first"], in: directory)
        try #require(first.status == 0, "\(first.stderr)")
        // That run of this host, and five more as other machines of it would store them.
        let baseline = directory.appendingPathComponent("first/latest.csv").path
        let run = try ReportFiles.run(summaryAt: baseline)
        let runs =
            [run]
            + (1...5).map { number in
                var copy = run
                // Of a clean build (a checkout under test may have changes, whose runs the spread leaves
                // out), with ids of the runs' own form: <timestamp>-<commit>-<8 hexadecimal digits>.
                let timestamp = copy.environment.runID.prefix { $0 != "-" }
                copy.environment.recordedCommit = RecordedCommit(recorded: "abc1234")
                copy.environment.runID = "\(timestamp)-abc1234-" + String(format: "%08x", number)
                return copy
            }
        let (history, file) = try Self.historyFile(of: runs)
        defer { try? FileManager.default.removeItem(at: history) }
        let imported = try bench(["history", "import", file.path, "--store", database.url])
        #expect(imported.status == 0, "\(imported.stderr)")

        let fromStore = try bench(
            ["run"] + selection + ["--baseline", baseline, "--output", "second", "--store", database.url],
            in: directory)
        #expect(fromStore.stdout.contains("measured from 5 runs"), "\(fromStore.stdout)\n\(fromStore.stderr)")
        let closed = try closedPort()
        let down = try bench(
            ["run"] + selection + [
                "--baseline", baseline, "--output", "third", "--store",
                "postgresql://bench:bench-test@127.0.0.1:\(closed)/bench",
            ], in: directory)
        #expect(down.stdout.contains("the spread between runs is unmeasured"), "\(down.stdout)")
        #expect(
            down.stderr.contains(
                "connection refused; the spread between runs comes from \(directory.path)/third/history.csv"),
            "\(down.stderr)")
        #expect(down.status == 2 && down.stderr.contains("the run is in \(directory.path)/third/history.csv"))
    }

    @Test("A run whose store is down waits in the results directory; the next run or a push stores it, once")
    func runWhileDownThenPush() throws {
        let database = try Database()
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let closed = try closedPort()
        let down = "postgresql://bench:bench-test@127.0.0.1:\(closed)/bench"
        let selection = [
            "--operation", "challenge", "--backend", "swift", "--size", "43", "--quick", "--output", "out",
        ]
        let history = directory.appendingPathComponent("out/history.csv")
        func runIDs() throws -> [String] { try ReportFiles.runs(inHistoryAt: history.path).map(\.environment.runID) }
        func stored() throws -> String {
            try database.value("SELECT string_agg(run_id, ',' ORDER BY started_at) FROM pkcebench_runs")
        }

        let first = try bench(selection + ["--store", down], in: directory)
        #expect(first.status == 75)
        #expect(
            first.stderrLines.last
                == "bench: cannot reach the store at postgresql://bench@127.0.0.1:\(closed)/bench: connection refused; "
                + "the run is in \(history.path), and the next run with the store, or 'bench history push', stores it")
        #expect(!first.stderr.contains("bench-test"))
        #expect(try runIDs().count == 1)

        let second = try bench(selection + ["--store", database.url], in: directory)
        #expect(second.status == 0)
        let ids = try runIDs()
        #expect(ids.count == 2)
        #expect(
            second.stderrLines.contains(
                "stored run \(ids[1]) in "
                    + "postgresql://bench@127.0.0.1:\(try #require(URL(string: database.url)?.port))/\(database.name)"
                    + ", and 1 earlier run(s) of \(history.path) it lacked"),
            "\(second.stderr)")
        #expect(try stored() == ids.joined(separator: ","))

        let third = try bench(selection + ["--store", down], in: directory)
        #expect(third.status == 75)
        let push = try bench(["history", "push", "--output", "out", "--store", database.url], in: directory)
        #expect(push.status == 0 && push.stdout.hasPrefix("stored 1 of the 3 run(s)"))
        let pushAgain = try bench(["history", "push", "--output", "out", "--store", database.url], in: directory)
        #expect(pushAgain.stdout.hasPrefix("stored 0 of the 3 run(s)"))
        #expect(try stored() == runIDs().joined(separator: ","))
    }

    @Test("A regression or an inconclusive case keeps its exit code when the store is down, with the store's line")
    func verdictBeforeStore() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // A baseline a thousand times faster than the case can be: the run cannot come out clear.
        let key = CaseKey(backend: "swift", operation: .challenge, size: 43, threads: 1)
        let baseline = directory.appendingPathComponent("fast.csv").path
        try ReportFiles.write(SyntheticRun.report(build: .debug, scale: [key: 0.001]), summaryAt: baseline)
        let down = "postgresql://bench:bench-test@127.0.0.1:\(try closedPort())/bench"
        let result = try bench(
            [
                "--operation", "challenge", "--backend", "swift", "--size", "43", "--quick", "--output", "out",
                "--baseline", baseline, "--store", down,
            ], in: directory)
        #expect(result.status == 1 || result.status == 2, "\(result.stderr)")
        #expect(!result.stderr.contains("bench-test"))
        #expect(
            result.stderrLines.contains {
                $0.hasPrefix("bench: cannot reach the store at ") && $0.hasSuffix("or 'bench history push', stores it")
            })
    }

    @Test("A bad URL, a refused password, an unreachable host and a newer schema: one line each, and its code")
    func failures() throws {
        let database = try Database()
        let (directory, file) = try Self.historyFile(of: SyntheticRun.series(runs: 2))
        defer { try? FileManager.default.removeItem(at: directory) }
        let port = try #require(ProcessInfo.processInfo.environment["PKCEBENCH_TEST_POSTGRES_PORT"])
        func importing(into url: String) throws -> CommandResult {
            try bench(["history", "import", file.path, "--store", url])
        }

        let bad = try importing(into: "postgresql://bench:bench-test@127.0.0.1:port/x")
        #expect(bad.status == 64)
        #expect(
            bad.stderrLines == [
                "bench: the store's URL is not a PostgreSQL URL bench reads: the port is not a number from 1 to 65535 (see 'bench --help')"
            ])
        let refused = try importing(into: "postgresql://bench:wrong-password@127.0.0.1:\(port)/\(database.name)")
        #expect(refused.status == 77)
        #expect(
            refused.stderrLines == [
                "bench: the store at postgresql://bench@127.0.0.1:\(port)/\(database.name) refused: "
                    + "password authentication failed for user \"bench\""
            ])
        let closed = try closedPort()
        let unreachable = try importing(into: "postgresql://bench:bench-test@127.0.0.1:\(closed)/x")
        #expect(unreachable.status == 75)
        #expect(
            unreachable.stderrLines == [
                "bench: cannot reach the store at postgresql://bench@127.0.0.1:\(closed)/x: connection refused"
            ])
        #expect(![bad, refused, unreachable].contains { $0.stderr.contains("bench-test") })

        #expect(try importing(into: database.url).status == 0)
        try Self.psql(database.url, "UPDATE pkcebench_schema SET version = 99")
        let newer = try importing(into: database.url)
        #expect(newer.status == 65)
        #expect(
            newer.stderrLines == [
                "bench: the store at postgresql://bench@127.0.0.1:\(port)/\(database.name) has schema version 99, "
                    + "newer than this bench's \(PostgresStore.schemaVersion): use a newer bench"
            ])
    }

    @Test(
        "TLS against the real server: the certificate checked against its authority connects; another authority is refused (77)",
        .enabled(if: ProcessInfo.processInfo.environment["PKCEBENCH_TEST_POSTGRES_TLS"] != nil))
    func tls() throws {
        let environment = ProcessInfo.processInfo.environment
        let tls = try #require(environment["PKCEBENCH_TEST_POSTGRES_TLS"])
        let port = try #require(environment["PKCEBENCH_TEST_POSTGRES_PORT"])
        let database = try Database()
        // The server's certificate names localhost, and is signed by root.crt; other-root.crt signed nothing here.
        func history(_ query: String) throws -> CommandResult {
            try bench([
                "history", "--store", "postgresql://bench:bench-test@localhost:\(port)/\(database.name)?\(query)",
            ])
        }
        for query in [
            "sslmode=verify-full&sslrootcert=\(tls)/root.crt", "sslmode=verify-ca&sslrootcert=\(tls)/root.crt",
            "sslmode=require", "sslmode=disable",
        ] {
            let result = try history(query)
            #expect(result.status == 0 && result.stderr.isEmpty, "\(query): \(result.stderr)")
        }
        for query in [
            "sslmode=verify-full&sslrootcert=\(tls)/other-root.crt",
            "sslmode=verify-ca&sslrootcert=\(tls)/other-root.crt",
        ] {
            let result = try history(query)
            #expect(result.status == 77, "\(query): \(result.stderr)")
            #expect(
                result.stderrLines.count == 1
                    && result.stderr.hasPrefix(
                        "bench: the store at postgresql://bench@localhost:\(port)/\(database.name) failed TLS's checks: "
                    ),
                "\(result.stderr)")
        }
    }

    @Test("A Unix socket's directory as the host")
    func socketDirectory() throws {
        let database = try Database()
        let environment = ProcessInfo.processInfo.environment
        let directory = try #require(environment["PKCEBENCH_TEST_POSTGRES_SOCKET"])
        let port = try #require(environment["PKCEBENCH_TEST_POSTGRES_PORT"])
        let (files, file) = try Self.historyFile(of: SyntheticRun.series(runs: 2))
        defer { try? FileManager.default.removeItem(at: files) }
        let url = "postgresql:///\(database.name)?host=\(directory)&port=\(port)&user=bench"
        let result = try bench(["history", "import", file.path, "--store", url])
        #expect(result.status == 0 && result.stdout.hasPrefix("stored 2 of the 2 run(s)"), "\(result.stderr)")
    }

    /// A loopback port that nothing listens on: one the kernel gave a socket that is closed again.
    private func closedPort() throws -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        try withUnsafeMutablePointer(to: &address) { pointer in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                try #require(bind(descriptor, address, length) == 0)
                try #require(getsockname(descriptor, address, &length) == 0)
            }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
#else
import Foundation
import PKCEBenchTestSupport
import Testing

@Suite("--store in a bench built without the PostgreSQL trait")
struct StoreNotBuiltTests {
    @Test("Each command that takes --store refuses it in one usage line, before measuring or writing anything")
    func refused() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let line =
            "bench: this bench was built without its PostgreSQL store (--store): build it with "
            + "'swift build -c release --traits PostgreSQL'"
        let store = ["--store", "postgresql://bench:hunter2@db.example.com/perf"]
        let commands = [
            ["--quick", "--output", "out"], ["history", "--output", "out"], ["history", "push"],
            ["compare", "a.csv", "b.csv"], ["backfill", "HEAD~1..HEAD", "--shard", "1/2"],
        ]
        for arguments in commands {
            let result = try bench(arguments + store, in: directory)
            #expect(result.status == 64 && result.stderrLines == [line], "\(arguments)")
        }
        let environment = ProcessInfo.processInfo.environment.merging(["PKCEBENCH_STORE": store[1]]) { $1 }
        let fromEnvironment = try bench(["history", "import", "history.csv"], in: directory, environment: environment)
        #expect(fromEnvironment.status == 64 && fromEnvironment.stderrLines == [line])
        #expect(try listing(directory).isEmpty)
    }
}
#endif
