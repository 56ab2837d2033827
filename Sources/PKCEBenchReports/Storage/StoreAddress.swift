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
    ///   a port or timeout that is not a number, an `sslmode` libpq does not have, several hosts.
    package init(url: String, environment: [String: String] = ProcessInfo.processInfo.environment)
        throws(BenchError)
    {
        func refuse(_ reason: String) -> BenchError {
            // The URL may hold a password: never quote it back.
            BenchError(.usage, "the store's URL is not a PostgreSQL URL bench reads: \(reason)")
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
                guard parts.count == 2, let name = parts[0].removingPercentEncoding,
                    let value = parts[1].removingPercentEncoding
                else { throw refuse("a parameter is not name=value") }
                parameters[name] = value
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
            let userInfo = rest[..<at]
            let parts = userInfo.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            given["user"] = parts[0].removingPercentEncoding
            if parts.count == 2 { given["password"] = parts[1].removingPercentEncoding }
            rest = rest[rest.index(after: at)...]
        }
        guard !rest.contains(",") else { throw refuse("bench connects to one host, not a list") }
        var hostPart = rest
        if hostPart.hasPrefix("["), let close = hostPart.firstIndex(of: "]") {
            given["host"] = String(hostPart[hostPart.index(after: hostPart.startIndex)..<close])
            hostPart = hostPart[hostPart.index(after: close)...]
            if hostPart.hasPrefix(":") { given["port"] = String(hostPart.dropFirst()) }
        } else if let colon = hostPart.lastIndex(of: ":") {
            given["host"] = hostPart[..<colon].removingPercentEncoding
            given["port"] = String(hostPart[hostPart.index(after: colon)...])
        } else if !hostPart.isEmpty {
            given["host"] = hostPart.removingPercentEncoding
        }
        if !path.isEmpty { given["dbname"] = path.removingPercentEncoding }
        let known: Set = ["host", "port", "user", "password", "dbname", "sslmode", "sslrootcert", "connect_timeout"]
        if let unknown = parameters.keys.sorted().first(where: { !known.contains($0) }) {
            throw refuse("bench does not implement the parameter \(unknown)")
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
        user = value("user") ?? environment["USER"] ?? "postgres"
        password = value("password")
        database = value("dbname")
        if let host = value("host") {
            guard !host.contains(",") else { throw refuse("bench connects to one host, not a list") }
            self.host = host
        }
        if let port = value("port") {
            guard let number = Int(port), (1...65535).contains(number) else {
                throw refuse("the port '\(port.prefix(20))' is not a number from 1 to 65535")
            }
            self.port = number
        }
        if let mode = value("sslmode") {
            guard let sslMode = SSLMode(rawValue: mode) else {
                let modes = SSLMode.allCases.map(\.rawValue).joined(separator: ", ")
                throw refuse("sslmode '\(mode.prefix(20))' is not one of \(modes)")
            }
            self.sslMode = sslMode
        }
        sslRootCertificate = value("sslrootcert")
        if let timeout = value("connect_timeout") {
            // libpq takes 0 as no limit, and less than 2 as 2.
            guard let seconds = Int(timeout), seconds >= 0 else {
                throw refuse("connect_timeout '\(timeout.prefix(20))' is not a whole number of seconds")
            }
            connectTimeout = seconds == 0 ? 3600 : max(seconds, 2)
        }
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
