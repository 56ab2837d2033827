import Foundation
import PKCEBenchCore
@testable import PKCEBenchReports
import PKCEBenchTestSupport
import Testing

@Suite("bench: the default run", .serialized)
struct RunCommandTests {
    /// The package's commit as the PKCEBenchBuildCommit plugin records it when bench is built: as git
    /// sees the checkout now, which is the build's when the tests run on the tree they built.
    static var builtCommit: String {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let git = URL(fileURLWithPath: "/usr/bin/env")
        let commit = (try? runTool(git, ["git", "-C", root.path, "rev-parse", "--short", "HEAD"]))?.stdout ?? ""
        let changes =
            (try? runTool(git, ["git", "-C", root.path, "status", "--porcelain", "--untracked-files=no"]))?.stdout ?? ""
        let trimmed = commit.trimmingCharacters(in: .whitespacesAndNewlines)
        return changes.isEmpty ? trimmed : "\(trimmed)-dirty"
    }

    @Test("--quick measures every backend × case and writes both CSV files with every column")
    func quickSuite() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try bench(["--quick", "--output", "out"], in: directory)
        #expect(result.status == 0, "stderr: \(result.stderr)")

        let output = directory.appendingPathComponent("out")
        let files = try listing(output)
        #expect(files.contains("latest.csv") && files.contains("latest.samples.csv") && files.contains("history.csv"))
        let runFiles = files.filter { $0.hasSuffix(".csv") && !$0.hasPrefix("latest") && $0 != "history.csv" }
        #expect(runFiles.count == 2)
        #expect(!files.contains { $0.hasPrefix(".") })

        let summaries = try ReportFiles.readSummary(at: output.appendingPathComponent("latest.csv").path)
        let samples = try ReportFiles.readSamples(at: output.appendingPathComponent("latest.samples.csv").path)
        let expectedCases = ["openssl", "sodium", "swift", "crypto"].flatMap { backend in
            BenchmarkOperation.allCases.flatMap { operation in
                operation.defaultSizes.map { CaseKey(backend: backend, operation: operation, size: $0, threads: 1) }
            }
        }
        #expect(Set(summaries.map(\.key)) == Set(expectedCases))
        #expect(summaries.count == 64)
        // The commit bench was built from, though it ran outside any checkout.
        #expect(
            summaries.allSatisfy { $0.environment.commit == Self.builtCommit && $0.environment.commitSource == .build })
        #expect(
            summaries.allSatisfy {
                $0.isOK && $0.summary.samples == 10 && $0.environment.build == BuildConfiguration.current
            })
        #expect(samples.count == 64 * 10)
        #expect(Set(samples.map(\.key)) == Set(expectedCases))

        // The malloc interposer counts every case's allocations, except in a sanitized build, where
        // it steps aside and the column stays empty. The exact counts of the hashing cases hold in
        // a debug build too: only swift-crypto's SHA256 allocates, its context.
        if processIsSanitized {
            #expect(summaries.allSatisfy { $0.allocationsPerOperation == nil })
        } else {
            for row in summaries {
                let allocations = try #require(row.allocationsPerOperation, "\(row.key)")
                switch row.key.operation {
                case .random:
                    // OpenSSL's DRBG reseeds every 2^16 calls, and allocates then.
                    #expect(row.key.backend == "openssl" ? allocations < 0.001 : allocations == 0, "\(row.key)")
                case .sha256:
                    #expect(allocations == (row.key.backend == "crypto" ? 1 : 0), "\(row.key)")
                case .challenge:
                    // Nothing: the challenge holds its characters inline. swift-crypto's SHA256
                    // allocates its context.
                    #expect(allocations == (row.key.backend == "crypto" ? 1 : 0), "\(row.key)")
                case .challengeString:
                    // The String that `value` makes, and swift-crypto's context.
                    #expect(allocations == (row.key.backend == "crypto" ? 2 : 1), "\(row.key)")
                case .verifier:
                    // Nothing: the verifier holds its characters inline. OpenSSL's DRBG reseeds, as
                    // in `random`.
                    #expect(row.key.backend == "openssl" ? allocations < 0.001 : allocations == 0, "\(row.key)")
                case .verifierString, .challengeBatch:
                    // At least the String, or the batch's array; a debug build's unoptimised code
                    // allocates more.
                    #expect(allocations >= 1, "\(row.key)")
                case .verify:
                    // A debug build's unoptimised checks allocate (a release build's do not), alike for
                    // every backend; swift-crypto's context adds one.
                    let swift = summaries.first {
                        $0.key
                            == CaseKey(
                                backend: "swift", operation: .verify, size: row.key.size, threads: row.key.threads)
                    }
                    let base = try #require(swift?.allocationsPerOperation)
                    #expect(allocations == base + (row.key.backend == "crypto" ? 1 : 0), "\(row.key)")
                }
            }
            #expect(samples.allSatisfy { $0.sample.allocations != nil })
        }
        #expect(summaries.allSatisfy { $0.environment.targetCPU == BuildConfiguration.targetCPU })

        let header = try String(contentsOf: output.appendingPathComponent("latest.csv"), encoding: .utf8)
            .prefix { $0 != "\r\n" }.split(separator: ",").map(String.init)
        #expect(header == ReportSchema.summaryColumnNames)
        let samplesHeader = try String(contentsOf: output.appendingPathComponent("latest.samples.csv"), encoding: .utf8)
            .prefix { $0 != "\r\n" }.split(separator: ",").map(String.init)
        #expect(samplesHeader == ReportSchema.samples.map(\.name))

        // The table lines the backends up and marks one fastest per group of four: 16 groups.
        let tableLines = result.stdout.split(separator: "\n")
        #expect(tableLines.first?.hasPrefix("operation") == true)
        #expect(tableLines.filter { $0.hasSuffix("fastest") }.count == 16)
        if BuildConfiguration.current == .debug {
            #expect(result.stderr.contains("warning: this is a debug build"))
        }
    }

    @Test("--format json and markdown print the same rows", arguments: ["json", "markdown", "csv"])
    func formats(format: String) throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try bench(
            ["--quick", "--backend", "swift,openssl", "--operation", "random", "--format", format, "--output", "out"],
            in: directory)
        #expect(result.status == 0, "stderr: \(result.stderr)")
        switch format {
        case "json":
            let document = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
            let rows = document?["results"] as? [[String: Any]]
            #expect(rows?.count == 2)
            #expect(Set(rows?.compactMap { $0["backend"] as? String } ?? []) == ["swift", "openssl"])
        case "markdown":
            let lines = result.stdout.split(separator: "\n")
            #expect(lines.count == 4)
            #expect(lines[1].hasPrefix("| --- |"))
        default:
            // LF on standard output; the report files keep RFC 4180's CRLF.
            #expect(!result.stdout.utf8.contains(UInt8(ascii: "\r")))
            #expect(result.stdout.split(separator: "\n").count == 3)
            let file = try String(contentsOf: directory.appendingPathComponent("out/latest.csv"), encoding: .utf8)
            #expect(file.utf8.count(where: { $0 == UInt8(ascii: "\r") }) == 3)
        }
    }

    @Test("bench list prints the selected cases' names, one per line, without measuring")
    func list() throws {
        let result = try bench(["list", "--operation", "challenge", "--backend", "sodium"])
        #expect(result.status == 0)
        #expect(
            result.stdout == "challenge/sodium/43\nchallenge/sodium/55\nchallenge/sodium/56\nchallenge/sodium/128\n")
        let threaded = try bench(["list", "--operation", "verify", "--backend", "swift", "--threads", "2"])
        #expect(threaded.stdout == "verify/swift/43×2\n")
    }

    @Test("--filter, --skip and --size OPERATION:SIZE select by name and per operation")
    func selectByName() throws {
        let scoped = try bench(["list", "--size", "sha256:1024", "--size", "challenge:43", "--backend", "openssl"])
        #expect(scoped.status == 0, "stderr: \(scoped.stderr)")
        #expect(scoped.stdout == "challenge/openssl/43\nsha256/openssl/1024\n")
        let filtered = try bench(["list", "--filter", "^sha256/(swift|sodium)/", "--skip", "/16384$", "--skip", "/43$"])
        #expect(filtered.stdout == "sha256/sodium/64\nsha256/swift/64\nsha256/sodium/1024\nsha256/swift/1024\n")
        let either = try bench(["list", "--filter", "^random/", "--filter", "^verify/crypto"])
        #expect(
            either.stdout
                == "verify/crypto/43\nrandom/openssl/32\nrandom/sodium/32\nrandom/swift/32\nrandom/crypto/32\n")
        let pattern = try bench(["list", "--filter", "(unclosed"])
        #expect(pattern.status == 64)
        #expect(
            pattern.stderr.contains("--filter '(unclosed' is not a regular expression"), "stderr: \(pattern.stderr)")

        // A run's workers get the same selection: the report holds exactly the listed cases.
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let run = try bench(
            [
                "--quick", "--size", "sha256:100", "--size", "random:16", "--filter", "swift|sodium", "--skip",
                "random/sodium",
                "--output", "out",
            ], in: directory)
        #expect(run.status == 0, "stderr: \(run.stderr)")
        let rows = try ReportFiles.readSummary(at: directory.appendingPathComponent("out/latest.csv").path)
        #expect(rows.map(\.key.description).sorted() == ["random/swift/16", "sha256/sodium/100", "sha256/swift/100"])
    }

    struct Misselection: Sendable, CustomTestStringConvertible {
        let arguments: [String]
        let message: String
        var testDescription: String { arguments.joined(separator: " ") }
    }

    static let misselections = [
        Misselection(
            arguments: ["--size", "1024"],
            message:
                "size 1024 is invalid for verifier: it takes 43 to 128 characters; scope a size to one operation with --size OPERATION:SIZE"
        ),
        Misselection(
            arguments: ["--operation", "challenge", "--size", "sha256:64"],
            message: "--size sha256:… names an operation that --operation does not select"),
        Misselection(
            arguments: ["--size", "hash:64"],
            message:
                "unknown operation 'hash'; valid operations: verifier, verifier-string, challenge, challenge-string, challenge-batch, verify, sha256, random"
        ),
        Misselection(
            arguments: ["--size", "sha256:"], message: "size 'sha256:' is not a whole number, or OPERATION:SIZE"),
        Misselection(
            arguments: ["--filter", "nothing-is-called-this"],
            message: "--filter and --skip leave no case to measure; 'bench list' shows the names"),
        Misselection(
            arguments: ["--skip", "."],
            message: "--filter and --skip leave no case to measure; 'bench list' shows the names"),
    ]

    @Test("A selection that cannot be made is a one-line usage error", arguments: misselections)
    func misselected(case misselection: Misselection) throws {
        for command in [["list"], [], ["history"]] {
            let result = try bench(command + misselection.arguments)
            #expect(result.status == 64)
            #expect(result.stderr.contains(misselection.message), "stderr: \(result.stderr)")
        }
    }

    @Test("--processes shares the samples out among that many processes", arguments: [1, 3])
    func processes(count: Int) throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try bench(
            ["--quick", "--processes", String(count), "--operation", "random", "--output", "out"], in: directory)
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let samples = try ReportFiles.readSamples(at: directory.appendingPathComponent("out/latest.samples.csv").path)
        #expect(samples.count == 4 * 10)
        #expect(Set(samples.map(\.sample.process)) == Set(0..<count))
        for key in Set(samples.map(\.key)) {
            // 10 samples: 4, 3 and 3 from three processes; each process calibrates for itself.
            let perProcess = Dictionary(grouping: samples.filter { $0.key == key }, by: \.sample.process).mapValues(
                \.count)
            #expect(perProcess.values.reduce(0, +) == 10)
            #expect(perProcess.values.allSatisfy { $0 >= 10 / count })
        }
        #expect(result.stderr.contains("measuring in process") == (count > 1))
    }

    @Test("--threads runs every case on that many threads")
    func threads() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try bench(
            ["--quick", "--threads", "3", "--operation", "sha256", "--size", "64", "--output", "out"], in: directory)
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let summaries = try ReportFiles.readSummary(at: directory.appendingPathComponent("out/latest.csv").path)
        #expect(summaries.count == 4)
        #expect(summaries.allSatisfy { $0.key.threads == 3 && $0.isOK })
    }

    @Test(
        "An OPENSSL_ia32cap mask is recorded with the library of OpenSSL's and swift-crypto's rows, with or without worker processes"
    )
    func openSSLCapabilityMask() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var environment = ProcessInfo.processInfo.environment
        environment["OPENSSL_ia32cap"] = "~0x0:~0x20000000"
        for processes in ["1", "2"] {
            let result = try bench(
                [
                    "--quick", "--backend", "openssl,crypto", "--operation", "sha256", "--size", "64", "--processes",
                    processes, "--output", "out",
                ],
                in: directory, environment: environment)
            #expect(result.status == 0, "stderr: \(result.stderr)")
            let rows = try ReportFiles.readSummary(at: directory.appendingPathComponent("out/latest.csv").path)
            #expect(rows.count == 2)
            // Each row records its own backend's library: OpenSSL's, and swift-crypto's, whose
            // BoringSSL reads the same mask.
            let library = rows.first { $0.key.backend == "openssl" }?.environment.libraries["openssl"] ?? ""
            #expect(library.hasPrefix("OpenSSL ") && library.hasSuffix(" (OPENSSL_ia32cap=~0x0:~0x20000000)"))
            #expect(
                rows.first { $0.key.backend == "crypto" }?.environment.libraries
                    == ["crypto": "swift-crypto (OPENSSL_ia32cap=~0x0:~0x20000000)"])
        }
        environment["OPENSSL_ia32cap"] = nil
        let unmasked = try bench(
            ["--quick", "--backend", "openssl", "--operation", "sha256", "--size", "64", "--output", "plain"],
            in: directory, environment: environment)
        #expect(unmasked.status == 0, "stderr: \(unmasked.stderr)")
        let rows = try ReportFiles.readSummary(at: directory.appendingPathComponent("plain/latest.csv").path)
        #expect(rows.count == 1)
        #expect(rows.first?.environment.libraries["openssl"]?.hasPrefix("OpenSSL ") == true)
        #expect(rows.first?.environment.libraries["openssl"]?.contains("OPENSSL_ia32cap") == false)
    }

    #if os(Linux) && arch(x86_64)
    @Test(
        "The pure-Swift backend's rows record its hash's path, and PKCE_SWIFT_SHA256 forces one where it can run")
    func swiftHashPath() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let cpuinfo = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
        let flags = Set(cpuinfo.split(separator: "\n").first { $0.hasPrefix("flags") }?.split(separator: " ") ?? [])
        let hasAVX2 = flags.isSuperset(of: ["avx2", "bmi1", "bmi2"])
        let automatic =
            flags.contains("sha_ni") && flags.contains("ssse3")
            ? "SHA extensions" : hasAVX2 ? "AVX2 schedule" : "SSE2 schedule"
        var environment = ProcessInfo.processInfo.environment
        for (variable, expected) in [
            (nil, "PKCE (pure Swift, \(automatic))"),
            ("portable", "PKCE (pure Swift, SSE2 schedule, PKCE_SWIFT_SHA256=portable)"),
            (
                "avx2",
                hasAVX2
                    ? "PKCE (pure Swift, AVX2 schedule, PKCE_SWIFT_SHA256=avx2)"
                    : "PKCE (pure Swift, \(automatic), PKCE_SWIFT_SHA256=avx2 ignored)"
            ),
            ("fast", "PKCE (pure Swift, \(automatic), PKCE_SWIFT_SHA256=fast ignored)"),
        ] {
            environment["PKCE_SWIFT_SHA256"] = variable
            let result = try bench(
                [
                    "--quick", "--backend", "swift", "--operation", "sha256,challenge-batch", "--size",
                    "sha256:64,challenge-batch:43",
                    "--output", "out",
                ],
                in: directory, environment: environment)
            #expect(result.status == 0, "stderr: \(result.stderr)")
            let rows = try ReportFiles.readSummary(at: directory.appendingPathComponent("out/latest.csv").path)
            #expect(rows.count == 2)
            #expect(rows.allSatisfy { $0.environment.libraries == ["swift": expected] }, "\(variable ?? "unset")")
        }
    }
    #endif
}
