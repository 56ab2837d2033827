import Foundation
import PKCEBenchCore

/// Where a PostgreSQL store of the history is, and how to reach it, read as libpq reads a
/// connection URI and its environment variables (PostgreSQL's documentation, "Connection
/// Strings" and "Environment Variables"), for the part of libpq's conventions that bench
/// implements: the article "A history in PostgreSQL" lists it.
///
/// A value given in the URL wins over the environment's (`PGHOST`, `PGPORT`, `PGUSER`,
/// `PGPASSWORD`, `PGDATABASE`, `PGSSLMODE`, `PGSSLROOTCERT`, `PGCONNECT_TIMEOUT`), and libpq's
/// defaults fill in the rest. Its ``description`` never holds the password.
package struct StoreAddress: Sendable, Equatable, CustomStringConvertible {
    /// libpq's `sslmode`, and what each asks of the server's certificate.
    package enum SSLMode: String, Sendable, CaseIterable {
        case disable, allow, prefer, require
        case verifyCA = "verify-ca"
        case verifyFull = "verify-full"
    }

    /// A host name or address, or an absolute path: the directory of the server's Unix socket.
    package var host = "/var/run/postgresql"
    package var port = 5432
    package var user: String
    package var password: String?
    package var database: String?
    package var sslMode = SSLMode.prefer
    /// The certificates that `verify-ca` and `verify-full` trust: a PEM file, or `system` for the
    /// system's trust store (the default when this is `nil`).
    package var sslRootCertificate: String?
    /// Seconds to wait for a connection.
    package var connectTimeout = 10

    /// The environment variable that names a store when `--store` does not.
    package static let environmentVariable = "PKCEBENCH_STORE"

    /// Whether ``host`` is a socket's directory.
    package var isSocket: Bool { host.hasPrefix("/") }

    /// The socket's path, in libpq's naming: `<directory>/.s.PGSQL.<port>`.
    package var socketPath: String { "\(host)/.s.PGSQL.\(port)" }

    /// The database's name: the user's when none is given, as libpq has it.
    package var databaseName: String { database ?? user }

    /// The URL without its password or parameters, for messages.
    package var description: String {
        let host = isSocket ? socketPath : (self.host.contains(":") ? "[\(self.host)]:\(port)" : "\(self.host):\(port)")
        return "postgresql://\(user)@\(host)/\(databaseName)"
    }

    /// Reads `url` (`postgresql://` or `postgres://`, RFC 3986 with percent-encoding) with the
    /// environment's values beneath it.
    ///
    /// - Throws: `BenchError` (`.usage`): not such a URL, a parameter bench does not implement,
    ///   a port or timeout that is not a number, an `sslmode` libpq does not have, several hosts,
    ///   `verify-full` of an address, an `sslrootcert` that is no readable file. A message never
    ///   quotes a value from the URL, which may hold the password.
    package init(url: String, environment: [String: String] = ProcessInfo.processInfo.environment)
        throws(BenchError)
    {
        func refuse(_ reason: String) -> BenchError {
            BenchError(.usage, "the store's URL is not a PostgreSQL URL bench reads: \(reason)")
        }
        func decoded(_ part: Substring) throws(BenchError) -> String {
            guard let text = part.removingPercentEncoding else {
                throw refuse("a part is not percent-encoded properly")
            }
            return text
        }
        let schemes = ["postgresql://", "postgres://"]
        guard let scheme = schemes.first(where: url.hasPrefix) else {
            throw refuse("it must start with postgresql:// or postgres://")
        }
        var rest = Substring(url.dropFirst(scheme.count))
        var parameters: [String: String] = [:]
        if let question = rest.firstIndex(of: "?") {
            for pair in rest[rest.index(after: question)...].split(separator: "&") {
                let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                guard parts.count == 2 else { throw refuse("a parameter is not name=value") }
                parameters[try decoded(parts[0])] = try decoded(parts[1])
            }
            rest = rest[..<question]
        }
        var path: Substring = ""
        if let slash = rest.firstIndex(of: "/") {
            path = rest[rest.index(after: slash)...]
            rest = rest[..<slash]
        }
        var given: [String: String] = [:]
        if let at = rest.lastIndex(of: "@") {
            let parts = rest[..<at].split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            given["user"] = try decoded(parts[0])
            if parts.count == 2 { given["password"] = try decoded(parts[1]) }
            rest = rest[rest.index(after: at)...]
        }
        guard !rest.contains(",") else { throw refuse("bench connects to one host, not a list") }
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else { throw refuse("an IPv6 address lacks its ]") }
            given["host"] = try decoded(rest[rest.index(after: rest.startIndex)..<close])
            let after = rest[rest.index(after: close)...]
            guard after.isEmpty || after.hasPrefix(":") else { throw refuse("text follows the IPv6 address") }
            if !after.isEmpty { given["port"] = String(after.dropFirst()) }
        } else if let colon = rest.lastIndex(of: ":") {
            given["host"] = try decoded(rest[..<colon])
            given["port"] = String(rest[rest.index(after: colon)...])
        } else if !rest.isEmpty {
            given["host"] = try decoded(rest)
        }
        if !path.isEmpty { given["dbname"] = try decoded(path) }
        if let unknown = parameters.keys.first(where: { !Self.parameters.contains($0) }) {
            // A name libpq has is no secret; any other text may be part of a password.
            throw refuse(
                Self.libpqParameters.contains(unknown)
                    ? "bench does not implement libpq's parameter \(unknown)" : "it has a parameter libpq does not have"
            )
        }
        given.merge(parameters.filter { !$0.value.isEmpty }) { _, parameter in parameter }
        given = given.filter { !$0.value.isEmpty }

        let fromEnvironment = [
            "host": "PGHOST", "port": "PGPORT", "user": "PGUSER", "password": "PGPASSWORD", "dbname": "PGDATABASE",
            "sslmode": "PGSSLMODE", "sslrootcert": "PGSSLROOTCERT", "connect_timeout": "PGCONNECT_TIMEOUT",
        ]
        func value(_ name: String) -> String? {
            given[name] ?? fromEnvironment[name].flatMap { environment[$0] }.flatMap { $0.isEmpty ? nil : $0 }
        }
        // libpq's default user is the one the process runs as, whatever $USER says.
        user = value("user") ?? getpwuid(geteuid()).map { String(cString: $0.pointee.pw_name) } ?? "postgres"
        password = value("password")
        database = value("dbname")
        if let host = value("host") {
            guard !host.contains(",") else { throw refuse("bench connects to one host, not a list") }
            self.host = host
        }
        if let port = value("port") {
            guard let number = Int(port), (1...65535).contains(number) else {
                throw refuse("the port is not a number from 1 to 65535")
            }
            self.port = number
        }
        if let mode = value("sslmode") {
            guard let sslMode = SSLMode(rawValue: mode) else {
                throw refuse("sslmode is not one of \(SSLMode.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            self.sslMode = sslMode
        }
        if sslMode == .verifyFull && !isSocket && Self.isAddress(host) {
            throw refuse("sslmode verify-full checks the server's host name, and the host is an address")
        }
        sslRootCertificate = value("sslrootcert")
        // Read only where the certificate is checked, as libpq reads it.
        if sslMode == .verifyCA || sslMode == .verifyFull, let roots = sslRootCertificate, roots != "system",
            !FileManager.default.isReadableFile(atPath: roots)
        {
            throw refuse("its sslrootcert names no readable file")
        }
        if let timeout = value("connect_timeout") {
            // libpq takes 0 as no limit, and less than 2 as 2.
            guard let seconds = Int(timeout), seconds >= 0 else {
                throw refuse("connect_timeout is not a whole number of seconds")
            }
            connectTimeout = seconds == 0 ? 3600 : max(seconds, 2)
        }
    }

    /// The parameters bench implements.
    private static let parameters: Set = [
        "host", "port", "user", "password", "dbname", "sslmode", "sslrootcert", "connect_timeout",
    ]

    /// libpq's other parameters (PostgreSQL 17's "Parameter Key Words"), named when refused.
    private static let libpqParameters: Set = [
        "hostaddr", "passfile", "require_auth", "channel_binding", "client_encoding", "options", "application_name",
        "fallback_application_name", "keepalives", "keepalives_idle", "keepalives_interval", "keepalives_count",
        "tcp_user_timeout", "replication", "gssencmode", "sslnegotiation", "sslcompression", "sslcert", "sslkey",
        "sslpassword", "sslcertmode", "sslcrl", "sslcrldir", "sslsni", "requirepeer", "ssl_min_protocol_version",
        "ssl_max_protocol_version", "krbsrvname", "gsslib", "gssdelegation", "service", "target_session_attrs",
        "load_balance_hosts", "requiressl",
    ]

    /// Whether `host` is an IPv4 or IPv6 address rather than a name.
    private static func isAddress(_ host: String) -> Bool {
        var buffer = [UInt8](repeating: 0, count: 16)
        return inet_pton(AF_INET, host, &buffer) == 1 || inet_pton(AF_INET6, host, &buffer) == 1
    }

    /// The store that `--store` or, without it, ``environmentVariable`` names; `nil` when neither does.
    ///
    /// - Throws: As ``init(url:environment:)``.
    package static func chosen(
        _ option: String?, environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(BenchError) -> StoreAddress? {
        guard let url = option ?? environment[environmentVariable].flatMap({ $0.isEmpty ? nil : $0 }) else {
            return nil
        }
        return try StoreAddress(url: url, environment: environment)
    }
}
