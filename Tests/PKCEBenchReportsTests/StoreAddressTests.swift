import Foundation
import PKCEBenchCore
import PKCEBenchReports
import Testing

@Suite("The PostgreSQL store's address, read as libpq reads a URL and its environment")
struct StoreAddressTests {
    @Test("A whole URL: user, password, host, port, database and parameters; the description holds no password")
    func wholeURL() throws {
        let address = try StoreAddress(
            url: "postgresql://bench:s%40cret@db.example.com:6543/history?sslmode=verify-full&connect_timeout=5",
            environment: [:])
        #expect(address.user == "bench" && address.password == "s@cret")
        #expect(address.host == "db.example.com" && address.port == 6543 && address.databaseName == "history")
        #expect(address.sslMode == .verifyFull && address.connectTimeout == 5 && !address.isSocket)
        #expect(address.description == "postgresql://bench@db.example.com:6543/history")
        #expect(!address.description.contains("cret"))
    }

    @Test("The environment fills in what the URL leaves out, and libpq's defaults the rest")
    func environmentBeneathURL() throws {
        let environment = [
            "PGHOST": "10.0.0.7", "PGPORT": "5433", "PGUSER": "ci", "PGPASSWORD": "from-env", "PGDATABASE": "perf",
            "PGSSLMODE": "require", "USER": "someone",
        ]
        let bare = try StoreAddress(url: "postgresql://", environment: environment)
        #expect(bare.host == "10.0.0.7" && bare.port == 5433 && bare.user == "ci" && bare.password == "from-env")
        #expect(bare.databaseName == "perf" && bare.sslMode == .require)
        let given = try StoreAddress(url: "postgres://other@h2/db2?sslmode=disable", environment: environment)
        #expect(given.user == "other" && given.host == "h2" && given.port == 5433 && given.databaseName == "db2")
        #expect(given.password == "from-env" && given.sslMode == .disable)
        // The user is the one the process runs as, as libpq has it, whatever $USER says.
        let defaults = try StoreAddress(url: "postgresql://", environment: ["USER": "someone"])
        let running = String(cString: try #require(getpwuid(geteuid())).pointee.pw_name)
        #expect(defaults.socketPath == "/var/run/postgresql/.s.PGSQL.5432" && defaults.isSocket)
        #expect(defaults.user == running && defaults.databaseName == running && defaults.sslMode == .prefer)
        #expect(defaults.connectTimeout == 10 && defaults.password == nil)
    }

    @Test("A Unix socket's directory as the host: percent-encoded, or as the host parameter; IPv6 in brackets")
    func socketsAndAddresses() throws {
        let encoded = try StoreAddress(url: "postgresql://%2Fsrv%2Fsockets:5999/db", environment: [:])
        #expect(encoded.isSocket && encoded.socketPath == "/srv/sockets/.s.PGSQL.5999")
        let parameter = try StoreAddress(url: "postgresql:///db?host=/run/pg&port=7000", environment: [:])
        #expect(parameter.socketPath == "/run/pg/.s.PGSQL.7000" && parameter.databaseName == "db")
        let six = try StoreAddress(url: "postgresql://u@[::1]:5440/db", environment: [:])
        #expect(six.host == "::1" && six.port == 5440 && six.description == "postgresql://u@[::1]:5440/db")
    }

    @Test("What bench does not read is one usage error that never quotes the password")
    func refusals() {
        let urls = [
            "mysql://u:hunter2@h/db", "postgresql://u:hunter2@h:port/db", "postgresql://u:hunter2@h:70000/db",
            "postgresql://u:hunter2@h/db?sslmode=sometimes", "postgresql://u:hunter2@h/db?options=-c%20x",
            "postgresql://u:hunter2@h1,h2/db", "postgresql://u:hunter2@h/db?connect_timeout=soon",
            // A forgotten @host puts the password where the port goes; a bad escape; text after an address.
            "postgresql://bench:hunter2/db", "postgresql://u:hunter2%@h/db", "postgresql://u:hunter2@[::1]x/db",
            "postgresql://u:hunter2@10.0.0.1/db?sslmode=verify-full", "postgresql://u:pw@h/db?hunter2=1",
            "postgresql://u:hunter2@h/db?sslmode=verify-ca&sslrootcert=/nonexistent/root.crt",
        ]
        for url in urls {
            #expect {
                _ = try StoreAddress(url: url, environment: [:])
            } throws: { error in
                let error = error as? BenchError
                return error?.kind == .usage && error?.message.contains("hunter2") == false
            }
        }
    }

    @Test("A parameter of libpq that bench does not implement is named; unknown text is not")
    func unimplementedParameters() {
        #expect(
            throws: BenchError(
                .usage,
                "the store's URL is not a PostgreSQL URL bench reads: bench does not implement libpq's parameter options"
            )
        ) {
            _ = try StoreAddress(url: "postgresql://u@h/db?options=-c%20x", environment: [:])
        }
        #expect(
            throws: BenchError(
                .usage, "the store's URL is not a PostgreSQL URL bench reads: it has a parameter libpq does not have")
        ) {
            _ = try StoreAddress(url: "postgresql://u@h/db?hunter2=1", environment: [:])
        }
    }

    @Test("sslrootcert is read only where the certificate is checked, as libpq reads it")
    func rootsOnlyWhenChecked() throws {
        let environment = ["PGSSLROOTCERT": "/nonexistent/root.crt"]
        #expect(
            try StoreAddress(url: "postgresql://u@h/db?sslmode=require", environment: environment).sslMode == .require)
        #expect(throws: BenchError.self) {
            _ = try StoreAddress(url: "postgresql://u@h/db?sslmode=verify-full", environment: environment)
        }
    }

    @Test("--store wins over PKCEBENCH_STORE; neither means no store")
    func chosen() throws {
        let environment = ["PKCEBENCH_STORE": "postgresql://env@h/db"]
        #expect(try StoreAddress.chosen(nil, environment: [:]) == nil)
        #expect(try StoreAddress.chosen(nil, environment: environment)?.user == "env")
        #expect(try StoreAddress.chosen("postgresql://flag@h/db", environment: environment)?.user == "flag")
    }
}
