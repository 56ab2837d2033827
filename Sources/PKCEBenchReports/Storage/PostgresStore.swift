#if PostgreSQL
import Foundation
import Logging
import PKCEBenchCore
import PostgresNIO

/// A history kept in PostgreSQL, which many machines append to: the same rows as `history.csv`,
/// one transaction a run, idempotent by run id. The article "A history in PostgreSQL" has the
/// schema.
///
/// Synchronous, as the commands are: each statement waits on NIO's future from the calling
/// thread, so nothing runs on Swift's cooperative pool (under which Valgrind's workers once
/// hung), and NIO's shared event loop does the I/O.
package final class PostgresStore {
    /// The schema version this bench writes: it migrates an older store to it, and refuses a newer one.
    package static let schemaVersion = 2

    package let address: StoreAddress
    private let connection: PostgresConnection
    /// postgres-nio logs to it; bench reports its failures itself, as one line.
    private static let logger = Logger(label: "pkcebench.store") { _ in SwiftLogNoOpLogHandler() }

    private init(address: StoreAddress, connection: PostgresConnection) {
        self.address = address
        self.connection = connection
    }

    /// Connects, and brings the store's schema to ``schemaVersion``.
    ///
    /// - Throws: `BenchError`: `.storeUnavailable` when the server cannot be reached; `.storeRefused`
    ///   when it refuses the login, or the role may not create the tables of a new store;
    ///   `.malformedInput` when the store's schema is newer than this bench's; `.usage` when its
    ///   TLS cannot be set up.
    package static func open(_ address: StoreAddress) throws(BenchError) -> PostgresStore {
        var configuration: PostgresConnection.Configuration
        let account = (username: address.user, password: address.password, database: address.databaseName)
        if address.isSocket {
            configuration = .init(
                unixSocketPath: address.socketPath, username: account.username, password: account.password,
                database: account.database)
        } else {
            configuration = .init(
                host: address.host, port: address.port, username: account.username, password: account.password,
                database: account.database, tls: try tls(address))
        }
        configuration.options.connectTimeout = .seconds(Int64(address.connectTimeout))
        let store: PostgresStore
        do {
            let connection = try PostgresConnection.connect(
                on: MultiThreadedEventLoopGroup.singleton.next(), configuration: configuration, id: 1,
                logger: logger
            ).wait()
            store = PostgresStore(address: address, connection: connection)
        } catch {
            throw failure(error, at: address, doing: "connect")
        }
        try store.migrate()
        return store
    }

    deinit { try? connection.close().wait() }

    // MARK: - Runs

    /// Stores a run's rows, all or none, in one transaction; a run whose id the store holds already
    /// adds nothing, so a write that is retried stores the run once.
    ///
    /// - Returns: Whether the run was added.
    /// - Throws: `BenchError`, as ``open(_:)``.
    @discardableResult
    package func append(run rows: [SummaryRow]) throws(BenchError) -> Bool {
        guard let first = rows.first else { return false }
        return try transaction { () throws(BenchError) in
            let runColumns = Self.runColumns.map(\.name)
            let cells = Self.cells(of: first)
            var runInsert = PostgresBindings()
            let runValues = Self.runColumns.enumerated().map { index, column in
                Self.bind(cells[column.name] ?? "", as: column.type, into: &runInsert, number: index + 1)
            }
            let inserted = try execute(
                """
                INSERT INTO pkcebench_runs (\(runColumns.map(Self.quoted).joined(separator: ", ")), started_at)
                VALUES (\(runValues.joined(separator: ", ")), $\(Self.runColumns.count + 1)::timestamptz)
                ON CONFLICT (run_id) DO NOTHING
                """, runInsert, binding: first.environment.timestamp)
            guard inserted.metadata.rows == 1 else { return false }

            let caseColumns = ["run_id", "position"] + Self.caseColumns.map(\.name)
            var caseInsert = PostgresBindings()
            var tuples: [String] = []
            for (position, row) in rows.enumerated() {
                let cells = Self.cells(of: row)
                var values = [
                    Self.bind(first.environment.runID, as: "text", into: &caseInsert, number: caseInsert.count + 1),
                    Self.bind(String(position), as: "integer", into: &caseInsert, number: caseInsert.count + 1),
                ]
                for column in Self.caseColumns {
                    values.append(
                        Self.bind(
                            cells[column.name] ?? "", as: column.type, into: &caseInsert, number: caseInsert.count + 1))
                }
                tuples.append("(\(values.joined(separator: ", ")))")
            }
            try execute(
                """
                INSERT INTO pkcebench_cases (\(caseColumns.map(Self.quoted).joined(separator: ", ")))
                VALUES \(tuples.joined(separator: ", "))
                """, caseInsert)
            return true
        }
    }

    /// The ids of the runs the store holds.
    ///
    /// - Throws: `BenchError`, as ``open(_:)``.
    package func runIDs() throws(BenchError) -> Set<String> {
        let result = try execute("SELECT run_id FROM pkcebench_runs", PostgresBindings())
        var ids = Set<String>()
        for row in result.rows {
            if let id = try? row.makeRandomAccess()[0].decode(String.self) { ids.insert(id) }
        }
        return ids
    }

    /// Every row, run by run in the order they started (a run pushed after an outage among those
    /// of its time), each run's cases in its order, read with `history.csv`'s checks; with
    /// `commitPrefix`, only those of the runs whose recorded commit begins with it.
    ///
    /// - Throws: `BenchError`, as ``open(_:)``; `.malformedInput` for a row that does not read.
    package func rows(commitPrefix: String? = nil) throws(BenchError) -> [SummaryRow] {
        let names = ReportSchema.summaryColumnNames
        let stored = Set(Self.runColumns.map(\.name) + Self.caseColumns.map(\.name))
        let selected = names.map { name in
            stored.contains(name) ? "coalesce(\(Self.quoted(name))::text, '')" : "''"
        }
        var bindings = PostgresBindings()
        var filter = ""
        if let commitPrefix {
            // LIKE's own characters taken literally: a prefix is matched as it is written.
            let pattern = commitPrefix.replacingOccurrences(of: "\\", with: "\\\\")
                .replacingOccurrences(of: "%", with: "\\%").replacingOccurrences(of: "_", with: "\\_")
            bindings.append(pattern + "%")
            filter = "WHERE pkcebench_runs.\"commit\" LIKE $1"
        }
        let result = try execute(
            """
            SELECT \(selected.joined(separator: ", "))
            FROM pkcebench_cases JOIN pkcebench_runs USING (run_id)
            \(filter)
            ORDER BY pkcebench_runs.started_at, pkcebench_runs.position, pkcebench_cases.position
            """, bindings)
        var text = CSV.encodeRecord(names)
        for row in result.rows {
            var fields: [String] = []
            for cell in row.makeRandomAccess() {
                fields.append((try? cell.decode(String.self)) ?? "")
            }
            text += CSV.encodeRecord(fields)
        }
        return try ReportFiles.history(from: Array(text.utf8), path: address.description)
    }

    // MARK: - Schema

    /// A column of the store, named as the report's, with its SQL type.
    private struct StoredColumn {
        let name: String
        let type: String
    }

    /// The columns of a run: its environment, recorded once a run.
    private static let runColumns = [
        ("run_id", "text"), ("timestamp", "text"), ("commit", "text"), ("commit_source", "text"),
        ("build", "text"), ("target_cpu", "text"), ("cpu", "text"), ("cpu_flags", "text"), ("cores", "integer"),
        ("kernel", "text"), ("swift", "text"),
    ].map(StoredColumn.init)

    /// The columns of one case and metric of a run: its figures. `schema` is the version of the
    /// report the row was first written in, which decides how its run id and commit read.
    private static let caseColumns =
        [
            ("schema", "integer"), ("backend", "text"), ("operation", "text"), ("size", "integer"),
            ("threads", "integer"), ("metric", "text"), ("status", "text"), ("error", "text"), ("library", "text"),
            ("samples", "integer"), ("iterations", "integer"),
        ].map(StoredColumn.init)
        + [
            "ns_median", "ns_p10", "ns_p90", "ns_min", "ns_mean", "ns_stddev", "cv", "ops_per_sec", "mb_per_sec",
            "allocs_per_op", "instructions_per_op",
        ].map { StoredColumn(name: $0, type: "double precision") }

    private static func definition(of columns: [StoredColumn]) -> String {
        columns.map { column in
            // Text is never null: an empty cell is an empty string, as in the CSV.
            "\(quoted(column.name)) \(column.type)\(column.type == "text" ? " NOT NULL" : "")"
        }.joined(separator: ",\n    ")
    }

    /// Each version's statements, in order: version N's are `migrations[N - 1]`.
    private static var migrations: [[String]] {
        [
            [
                """
                CREATE TABLE pkcebench_runs (
                    position bigserial UNIQUE,
                    started_at timestamptz NOT NULL,
                    stored_at timestamptz NOT NULL DEFAULT now(),
                    \(definition(of: runColumns)),
                    PRIMARY KEY (run_id)
                )
                """,
                "CREATE INDEX pkcebench_runs_host ON pkcebench_runs (cpu, cpu_flags, cores, position)",
                """
                CREATE TABLE pkcebench_cases (
                    run_id text NOT NULL REFERENCES pkcebench_runs (run_id) ON DELETE CASCADE,
                    position integer NOT NULL,
                    \(definition(of: caseColumns)),
                    PRIMARY KEY (run_id, position),
                    UNIQUE (run_id, backend, operation, size, threads, metric)
                )
                """,
                "CREATE INDEX pkcebench_cases_series ON pkcebench_cases (backend, operation, size, threads, metric)",
            ],
            [seriesView],
        ]
    }

    /// Version 2: each case's series on each host as Apache Otava and dashboards read it, one row a
    /// run. `series` names the case, the host and the metric as `bench history --changes` does
    /// (`sha256/swift/1024 on AMD EPYC (sha_ni avx2), 2 cores, release, x86-64, time`); `figure` is
    /// what that analysis reads before it takes out each run's host factor: the fastest sample in
    /// nanoseconds, or the instructions, per operation. A failed case has no row.
    private static let seriesView = """
        CREATE VIEW pkcebench_series AS
        SELECT
            r.started_at AS time,
            names.case_name || ' on ' || names.host || ', ' || c.metric AS series,
            names.case_name,
            names.host,
            c.metric,
            CASE c.metric WHEN 'instructions' THEN c.instructions_per_op ELSE c.ns_min END AS figure,
            r."commit",
            r.run_id,
            r.position AS run_position,
            r.kernel,
            r.swift,
            c.library
        FROM pkcebench_cases AS c
        JOIN pkcebench_runs AS r USING (run_id)
        CROSS JOIN LATERAL (
            SELECT
                format('%s/%s/%s', c.operation, c.backend, c.size)
                    || CASE WHEN c.threads = 1 THEN '' ELSE '×' || c.threads END AS case_name,
                format(
                    '%s (%s), %s core%s, %s, %s', r.cpu, CASE r.cpu_flags WHEN '' THEN 'no listed flags' ELSE r.cpu_flags END,
                    r.cores, CASE WHEN r.cores = 1 THEN '' ELSE 's' END, r.build, r.target_cpu) AS host
        ) AS names
        WHERE c.status = 'ok'
        """

    /// Brings the schema to ``schemaVersion`` under an advisory lock, so that many first runs at
    /// once create it once; a store at this version needs no right beyond reading and inserting.
    private func migrate() throws(BenchError) {
        // Refused before any statement that needs more than reading: a role that may only read and
        // insert gets this line, not a refused CREATE.
        let found = try storedVersion()
        if let found {
            guard found != Self.schemaVersion else { return }
            try refuseNewer(found)
        }
        do {
            try createOrMigrate()
        } catch  where error.kind == .storeRefused {
            // A store that a role which may only read and insert cannot bring to this version.
            guard let found else { throw error }
            throw BenchError(
                .storeRefused,
                "the store at \(address) has schema version \(found), older than this bench's \(Self.schemaVersion), "
                    + "and its role may not migrate it: run this bench once as the role that owns the store")
        }
    }

    private func createOrMigrate() throws(BenchError) {
        try transaction { () throws(BenchError) in
            // The key is any number that is bench's alone: "PKCE" in ASCII.
            try execute("SELECT pg_advisory_xact_lock(1346585413)", PostgresBindings())
            try execute(
                "CREATE TABLE IF NOT EXISTS pkcebench_schema (version integer NOT NULL)", PostgresBindings())
            let version = try storedVersion() ?? 0
            try refuseNewer(version)
            for statements in Self.migrations[version...] {
                for statement in statements { try execute(statement, PostgresBindings()) }
            }
            try execute("DELETE FROM pkcebench_schema", PostgresBindings())
            var bindings = PostgresBindings()
            _ = Self.bind(String(Self.schemaVersion), as: "integer", into: &bindings, number: 1)
            try execute("INSERT INTO pkcebench_schema (version) VALUES ($1::integer)", bindings)
        }
    }

    private func refuseNewer(_ version: Int) throws(BenchError) {
        guard version <= Self.schemaVersion else {
            throw BenchError(
                .malformedInput,
                "the store at \(address) has schema version \(version), newer than this bench's \(Self.schemaVersion): "
                    + "use a newer bench")
        }
    }

    /// The store's schema version, `nil` for a database without bench's tables.
    private func storedVersion() throws(BenchError) -> Int? {
        let exists = try execute("SELECT to_regclass('pkcebench_schema') IS NOT NULL", PostgresBindings())
        guard let row = exists.rows.first, (try? row.makeRandomAccess()[0].decode(Bool.self)) == true else {
            return nil
        }
        let result = try execute("SELECT max(version) FROM pkcebench_schema", PostgresBindings())
        return result.rows.first.flatMap { try? $0.makeRandomAccess()[0].decode(Int.self) }
    }

    // MARK: - Statements

    /// The cells of `row`, by column, as the CSV writes them; `schema` is the row's own version.
    private static func cells(of row: SummaryRow) -> [String: String] {
        Dictionary(uniqueKeysWithValues: ReportSchema.movedSummary.map { ($0.name, $0.encode(row)) })
    }

    /// Appends a cell as a parameter, and gives its place in the statement: an empty cell of a
    /// number is null.
    private static func bind(_ cell: String, as type: String, into bindings: inout PostgresBindings, number: Int)
        -> String
    {
        if cell.isEmpty && type != "text" {
            bindings.appendNull()
        } else {
            bindings.append(cell)
        }
        return "$\(number)::\(type)"
    }

    private static func quoted(_ name: String) -> String { "\"\(name)\"" }

    @discardableResult
    private func execute(_ sql: String, _ bindings: PostgresBindings, binding extra: String? = nil) throws(BenchError)
        -> PostgresQueryResult
    {
        var bindings = bindings
        if let extra { bindings.append(extra) }
        do {
            return try connection.query(PostgresQuery(unsafeSQL: sql, binds: bindings), logger: Self.logger).wait()
        } catch {
            throw Self.failure(error, at: address, doing: "run a statement")
        }
    }

    /// Runs `body` in a transaction: committed when it returns, rolled back when it throws.
    private func transaction<T>(_ body: () throws(BenchError) -> T) throws(BenchError) -> T {
        try execute("BEGIN", PostgresBindings())
        let value: T
        do {
            value = try body()
        } catch {
            _ = try? execute("ROLLBACK", PostgresBindings())
            throw error
        }
        try execute("COMMIT", PostgresBindings())
        return value
    }

    // MARK: - Connections and errors

    /// postgres-nio's TLS for libpq's `sslmode` (the article "A history in PostgreSQL" says how each
    /// differs from libpq's).
    private static func tls(_ address: StoreAddress) throws(BenchError) -> PostgresConnection.Configuration.TLS {
        var configuration = TLSConfiguration.makeClientConfiguration()
        switch address.sslMode {
        case .disable: return .disable
        case .allow, .prefer, .require: configuration.certificateVerification = .none
        case .verifyCA: configuration.certificateVerification = .noHostnameVerification
        case .verifyFull: configuration.certificateVerification = .fullVerification
        }
        if let roots = address.sslRootCertificate, roots != "system" {
            configuration.trustRoots = .file(roots)
        }
        do {
            let context = try NIOSSLContext(configuration: configuration)
            return address.sslMode == .allow || address.sslMode == .prefer ? .prefer(context) : .require(context)
        } catch {
            throw BenchError(.usage, "the store's TLS cannot be set up (sslrootcert?): \(error)")
        }
    }

    /// One line for what went wrong, without the password (which neither the address nor the
    /// server's messages hold).
    private static func failure(_ error: any Error, at address: StoreAddress, doing action: String) -> BenchError {
        guard let error = error as? PSQLError else {
            return BenchError(.storeUnavailable, "cannot \(action) with the store at \(address): \(error)")
        }
        let state = error.serverInfo?[.sqlState] ?? ""
        let message = error.serverInfo?[.message] ?? ""
        switch error.code {
        // Refusals that trying again will not change: the login, a right, a database that is not there.
        case .server where state.hasPrefix("28") || state == "42501" || state == "3D000":
            return BenchError(.storeRefused, "the store at \(address) refused: \(message)")
        // Connection failures, shutdowns, too many connections or no resources: for now.
        case .server where state.hasPrefix("08") || state.hasPrefix("57P") || state.hasPrefix("53"):
            return BenchError(.storeUnavailable, "the store at \(address) is not available: \(message)")
        case .server:
            return BenchError(.internalFailure, "the store at \(address) failed a statement (\(state)): \(message)")
        case .authMechanismRequiresPassword, .unsupportedAuthMechanism, .saslError:
            return BenchError(.storeRefused, "the store at \(address) refused the login: \(error.code)")
        case .sslUnsupported:
            return BenchError(.storeRefused, "the store at \(address) does not offer TLS, which sslmode requires")
        // A connection dropped under TLS is a connection dropped, not a failed check.
        case _ where (error.underlying as? NIOSSLError).map(Self.isTLSCheck) ?? (error.underlying is BoringSSLError):
            return BenchError(
                .storeRefused, "the store at \(address) failed TLS's checks: \(error.underlying.map { "\($0)" } ?? "")")
        default:
            let reason = error.underlying.map { self.reason($0, address) } ?? "\(error.code)"
            return BenchError(.storeUnavailable, "cannot reach the store at \(address): \(reason)")
        }
    }

    /// Whether `error` is TLS refusing the other side, rather than the connection ending early.
    private static func isTLSCheck(_ error: NIOSSLError) -> Bool {
        switch error {
        // The connection ended during the handshake, or without TLS's close.
        case .uncleanShutdown, .handshakeFailed(.syscallError), .handshakeFailed(.zeroReturn): false
        default: true
        }
    }

    /// Why a connection failed, in a few words: the system's for an errno, rather than NIO's
    /// description of every address it tried.
    private static func reason(_ error: any Error, _ address: StoreAddress) -> String {
        switch error {
        case let failure as NIOConnectionError:
            if let first = failure.connectionErrors.first { return reason(first.error, address) }
            return "\(address.host) does not resolve"
        case let error as IOError:
            return String(cString: strerror(error.errnoCode)).lowercased()
        case ChannelError.connectTimeout:
            return "no answer in \(address.connectTimeout) s"
        default:
            return "\(error)"
        }
    }
}
#endif
