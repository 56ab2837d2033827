#if PostgreSQL
import Foundation
import PKCEBenchCore
import PKCEBenchReports
import PKCEBenchReportsTestSupport
import PKCEBenchTestSupport
import Testing

/// The article "A fleet of runners", run against the cluster `.ci/postgres` starts: its SQL as
/// written, its `bench` command and Otava's with the cluster's port, and Otava's own PostgreSQL
/// importer configured by its `otava.yaml`.
@Suite(
    "The article 'A fleet of runners', against a real server",
    .enabled(if: ProcessInfo.processInfo.environment["PKCEBENCH_TEST_POSTGRES_SOCKET"] != nil), .serialized)
struct FleetOfRunnersTests {
    static let article = WorkflowTests.root.appendingPathComponent(
        "Sources/PKCEBenchKit/PKCEBenchKit.docc/FleetOfRunners.md")

    /// The article's fenced blocks of one language, in order.
    static func blocks(_ language: String) throws -> [String] {
        let text = try String(contentsOf: article, encoding: .utf8)
        var blocks: [String] = []
        var block: [Substring]?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if let lines = block {
                if line == "```" {
                    blocks.append(lines.joined(separator: "\n") + "\n")
                    block = nil
                } else {
                    block?.append(line)
                }
            } else if line == "```\(language)" {
                block = []
            }
        }
        return blocks
    }

    /// The cluster: its socket's directory, where the `postgres` superuser logs in without a
    /// password, and its loopback port, where the article's roles log in with theirs.
    struct Cluster {
        let socket: String
        let port: String

        init() throws {
            let environment = ProcessInfo.processInfo.environment
            socket = try #require(environment["PKCEBENCH_TEST_POSTGRES_SOCKET"])
            port = try #require(environment["PKCEBENCH_TEST_POSTGRES_PORT"])
        }

        /// psql, as `role` (the superuser over the socket by default) on `database`, on `sql` given
        /// as a file, so that `CREATE DATABASE` runs outside a transaction as it must.
        func psql(_ sql: String, as role: String = "postgres", password: String? = nil, database: String = "postgres")
            throws -> (status: Int32, output: String)
        {
            let directory = try temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let file = directory.appendingPathComponent("statements.sql")
            try sql.write(to: file, atomically: true, encoding: .utf8)
            let host = password == nil ? socket : "127.0.0.1"
            return try WorkflowTests.shell(
                [
                    "psql", "--host=\(host)", "--port=\(port)", "--username=\(role)", "--dbname=\(database)",
                    "--no-psqlrc", "--tuples-only", "--no-align", "--set=ON_ERROR_STOP=1", "--file=\(file.path)",
                ], in: directory, environment: password.map { ["PGPASSWORD": $0] } ?? [:])
        }

        /// Drops what the article creates, so that the test can run again on the same cluster.
        func reset() throws {
            let result = try psql(
                """
                DROP DATABASE IF EXISTS benchmarks WITH (FORCE);
                DROP ROLE IF EXISTS bench_owner, bench_runner, bench_reader;
                """)
            #expect(result.status == 0, "\(result.output)")
        }
    }

    /// 16 runs of the last 16 hours, `sha256/swift/1024` 6% slower from the 11th: Otava reads the
    /// last 365 days by default.
    static func steppedRuns() -> [RunResult] {
        let now = Date()
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return SyntheticRun.series(runs: 16) { $0 >= 10 ? [HistoryChangesCommandTests.stepped: 1.06] : [:] }
            .enumerated().map { index, run in
                var run = run
                run.environment.timestamp = formatter.string(from: now.addingTimeInterval(Double(index - 16) * 3600))
                return run
            }
    }

    /// The article's set-up, done as it says: the roles and the database, the schema by the owner's
    /// first command, the grants, and the stepped runs stored by the runner.
    struct Fleet {
        let cluster: Cluster
        let directory: URL
        let runs = FleetOfRunnersTests.steppedRuns()
        let sql: [String]
        let sh: [String]
        let yaml: [String]
        var runner: String { "postgresql://bench_runner@127.0.0.1:\(cluster.port)/benchmarks" }
        let asRunner = ProcessInfo.processInfo.environment.merging(["PGPASSWORD": "runner-secret"]) { $1 }

        init() throws {
            cluster = try Cluster()
            try cluster.reset()
            (sql, sh, yaml) = try (blocks("sql"), blocks("sh"), blocks("yaml"))
            try #require(sql.count == 3 && sh.count == 3 && yaml.count == 2)
            directory = try temporaryDirectory()

            let roles = try cluster.psql(sql[0])
            try #require(roles.status == 0, "\(roles.output)")
            let created = try shell(sh[0])
            try #require(created.status == 0, "\(created.output)")
            let version = try owner("SELECT version FROM pkcebench_schema")
            #expect(version.output == "\(PostgresStore.schemaVersion)\n")
            let grants = try owner(sql[1])
            try #require(grants.status == 0, "\(grants.output)")

            let history = directory.appendingPathComponent("history.csv")
            try HistoryStore.file(of: runs.flatMap(\.rows)).write(to: history, atomically: true, encoding: .utf8)
            let imported = try bench(["history", "import", history.path, "--store", runner], environment: asRunner)
            try #require(imported.status == 0, "\(imported.stderr)")
        }

        /// Drops the article's database and roles, and the temporary directory.
        func tearDown() {
            try? cluster.reset()
            try? FileManager.default.removeItem(at: directory)
        }

        /// One of the article's commands, with the cluster's port and this build's `bench`.
        func shell(_ command: String) throws -> (status: Int32, output: String) {
            let local =
                command
                .replacingOccurrences(of: "127.0.0.1/", with: "127.0.0.1:\(cluster.port)/")
                .replacingOccurrences(of: "POSTGRES_PORT=5432", with: "POSTGRES_PORT=\(cluster.port)")
                .replacingOccurrences(
                    of: ".build/release/bench", with: productsDirectory.appendingPathComponent("bench").path)
            return try WorkflowTests.shell(["bash", "-e", "-c", local], in: directory)
        }

        func owner(_ sql: String) throws -> (status: Int32, output: String) {
            try cluster.psql(sql, as: "bench_owner", password: "owner-secret", database: "benchmarks")
        }

        func runnerSQL(_ sql: String) throws -> (status: Int32, output: String) {
            try cluster.psql(sql, as: "bench_runner", password: "runner-secret", database: "benchmarks")
        }

        func reader(_ sql: String) throws -> (status: Int32, output: String) {
            try cluster.psql(sql, as: "bench_reader", password: "reader-secret", database: "benchmarks")
        }
    }

    @Test("A runner stores runs and can change none; a reader reads the view alone, named as bench names series")
    func rolesAndView() throws {
        let fleet = try Fleet()
        defer { fleet.tearDown() }
        for statement in ["DELETE FROM pkcebench_runs", "UPDATE pkcebench_cases SET ns_min = 0"] {
            let refused = try fleet.runnerSQL(statement)
            #expect(refused.status != 0 && refused.output.contains("permission denied"), "\(refused.output)")
        }
        let hidden = try fleet.reader("SELECT count(*) FROM pkcebench_runs")
        #expect(hidden.status != 0 && hidden.output.contains("permission denied"), "\(hidden.output)")

        let host = SeriesHost(run: fleet.runs[0], metric: .time)
        let names = try fleet.reader("SELECT DISTINCT series FROM pkcebench_series ORDER BY series")
        #expect(names.status == 0)
        #expect(names.output.split(separator: "\n").count == 64)
        #expect(names.output.contains("\(HistoryChangesCommandTests.stepped) on \(host)\n"))

        // The Grafana panel's query: one line a host (here one), each run once, oldest first.
        let panel = try fleet.reader(fleet.sql[2])
        #expect(panel.status == 0)
        let rows = panel.output.split(separator: "\n")
        #expect(rows.count == 16, "\(panel.output)")
        #expect(rows.allSatisfy { $0.hasSuffix("|" + host.description.dropLast(", time".count)) })
        #expect(rows.map { $0.split(separator: "|")[0] } == rows.map { $0.split(separator: "|")[0] }.sorted())
    }

    @Test("A store of schema 1 is refused to a runner's newer bench (77), and migrated by the owner's, runs kept")
    func migrationByTheOwner() throws {
        let fleet = try Fleet()
        defer { fleet.tearDown() }
        // The store as version 1 left it: its tables, no view.
        let back = try fleet.owner("DROP VIEW pkcebench_series; UPDATE pkcebench_schema SET version = 1")
        try #require(back.status == 0, "\(back.output)")
        let refused = try bench(["history", "--store", fleet.runner], environment: fleet.asRunner)
        #expect(refused.status == 77 && refused.stderrLines.count == 1, "\(refused.stderr)")
        #expect(
            refused.stderr.contains(
                "has schema version 1, older than this bench's \(PostgresStore.schemaVersion), and its role may not "
                    + "migrate it: run this bench once as the role that owns the store"))
        #expect(try fleet.owner("SELECT version FROM pkcebench_schema").output == "1\n")

        let migrated = try fleet.shell(fleet.sh[0])
        #expect(migrated.status == 0, "\(migrated.output)")
        #expect(try fleet.owner("SELECT version FROM pkcebench_schema").output == "\(PostgresStore.schemaVersion)\n")
        #expect(try fleet.owner("SELECT count(DISTINCT run_id) FROM pkcebench_series").output == "16\n")
        // The grants on the view are the owner's to give again: a view made anew has none.
        #expect(try fleet.reader("SELECT count(*) FROM pkcebench_series").status != 0)
        #expect(try fleet.owner(fleet.sql[1]).status == 0)
        #expect(try fleet.reader("SELECT count(*) FROM pkcebench_series").output == "\(16 * 64)\n")
    }

    /// Whether Apache Otava's command line can be run here (with its importers' packages).
    static let otavaWorks: Bool = {
        (try? WorkflowTests.shell(["otava", "--help"], in: URL(fileURLWithPath: NSTemporaryDirectory())))?.status == 0
    }()

    @Test(
        "Apache Otava's PostgreSQL importer, configured as the article says, finds bench's step within 2 runs",
        .enabled(if: otavaWorks, "Apache Otava's command line is not installed: python3 -m pip install apache-otava"))
    func otavaReadsTheView() throws {
        let fleet = try Fleet()
        defer { fleet.tearDown() }
        let key = HistoryChangesCommandTests.stepped
        let changes = try bench(
            ["history", "--changes", "--format", "csv", "--store", fleet.runner], environment: fleet.asRunner)
        #expect(changes.status == 1)
        let step = try #require(changes.stdout.split(separator: "\n").first { $0.hasPrefix("\(key),") })
            .split(separator: ",", omittingEmptySubsequences: false)
        let benchIndex = try #require(fleet.runs.firstIndex { $0.environment.runID == step[14] })
        #expect(benchIndex == 10)

        try fleet.yaml[1].write(
            to: fleet.directory.appendingPathComponent("otava.yaml"), atomically: true, encoding: .utf8)
        let series = "\(key) on \(SeriesHost(run: fleet.runs[0], metric: .time))"
        let command = try #require(fleet.sh[2].firstRange(of: "--branch '")).upperBound
        let example = fleet.sh[2][command...].prefix { $0 != "'" }
        let local = fleet.sh[2].replacingOccurrences(of: example, with: series)
        let otava = try fleet.shell(local.trimmingCharacters(in: .whitespacesAndNewlines) + " --output json")
        try #require(otava.status == 0, "\(otava.output)")
        let json = try #require(otava.output.split(separator: "\n").last { $0.hasPrefix("{") })
        let report = try #require(
            try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: [[String: Any]]])
        let indexes = (report["pkcebench"] ?? []).flatMap { group in
            (group["changes"] as? [[String: Any]] ?? []).compactMap { $0["index"] as? Int }
        }
        #expect(indexes.contains { abs($0 - benchIndex) <= 2 }, "Otava: \(otava.output)")
    }
}
#endif
