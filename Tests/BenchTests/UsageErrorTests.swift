import Foundation
import PKCEBenchCore
import PKCEBenchReports
import PKCEBenchTestSupport
import Testing

@Suite("bench: bad command lines")
struct UsageErrorTests {
    struct BadArguments: Sendable, CustomTestStringConvertible {
        let arguments: [String]
        let message: String
        var testDescription: String { arguments.joined(separator: " ") }
    }

    static let cases = [
        BadArguments(
            arguments: ["--backend", "boringssl"],
            message:
                "bench: unknown backend 'boringssl'; valid backends: openssl, sodium, swift, crypto (see 'bench --help')"
        ),
        BadArguments(
            arguments: ["--operation", "sign"],
            message:
                "bench: The value 'sign' is invalid for '--operation <operation>': unknown operation 'sign'; valid operations: verifier, verifier-string, challenge, challenge-string, challenge-batch, verify, sha256, random (see 'bench --help')"
        ),
        // A control character in a value quoted back is written as an escape: one whole line.
        BadArguments(
            arguments: ["--format", "ya\nml"],
            message:
                "bench: The value 'ya\\nml' is invalid for '--format <format>'. Please provide one of 'table', 'csv', 'json' or 'markdown'. (see 'bench --help')"
        ),
        BadArguments(
            arguments: ["--format", "yaml"],
            message:
                "bench: The value 'yaml' is invalid for '--format <format>'. Please provide one of 'table', 'csv', 'json' or 'markdown'. (see 'bench --help')"
        ),
        BadArguments(
            arguments: ["--operation", "verifier", "--size", "42"],
            message: "bench: size 42 is invalid for verifier: it takes 43 to 128 characters (see 'bench --help')"),
        BadArguments(
            arguments: ["--operation", "challenge", "--size", "129"],
            message: "bench: size 129 is invalid for challenge: it takes 43 to 128 characters (see 'bench --help')"),
        BadArguments(
            arguments: ["--operation", "verify", "--size", "0"],
            message: "bench: size 0 is invalid for verify: it takes 43 to 128 characters (see 'bench --help')"),
        BadArguments(
            arguments: ["--operation", "sha256", "--size", "-5"],
            message: "bench: size -5 is invalid for sha256: it takes 0 to 1048576 bytes (see 'bench --help')"),
        BadArguments(
            arguments: ["--size", "big"],
            message: "bench: size 'big' is not a whole number, or OPERATION:SIZE (see 'bench --help')"),
        BadArguments(
            arguments: ["--threads", "0"], message: "bench: --threads must be 1 to 256, not 0 (see 'bench --help')"),
        BadArguments(
            arguments: ["--threads", "-3"], message: "bench: --threads must be 1 to 256, not -3 (see 'bench --help')"),
        BadArguments(
            arguments: ["--threads", "1000000"],
            message: "bench: --threads must be 1 to 256, not 1000000 (see 'bench --help')"),
        BadArguments(
            arguments: ["--sample-time", "0"],
            message:
                "bench: --sample-time must be more than 0 and at most 60000 milliseconds, not 0.0 (see 'bench --help')"),
        BadArguments(
            arguments: ["--sample-time", "-1"],
            message:
                "bench: --sample-time must be more than 0 and at most 60000 milliseconds, not -1.0 (see 'bench --help')"
        ),
        BadArguments(
            arguments: ["--sample-time", "0.0000001"],
            message:
                "bench: --sample-time must be at least 0.000001 milliseconds (1 ns), not 1e-07 (see 'bench --help')"),
        BadArguments(
            arguments: ["--warmup", "-5"],
            message: "bench: --warmup must be at least 0 and at most 60000 milliseconds, not -5.0 (see 'bench --help')"),
        BadArguments(
            arguments: ["--samples", "1"], message: "bench: --samples must be 2 to 100000, not 1 (see 'bench --help')"),
        BadArguments(
            arguments: ["--samples", "0"], message: "bench: --samples must be 2 to 100000, not 0 (see 'bench --help')"),
        BadArguments(
            arguments: ["--processes", "0"], message: "bench: --processes must be 1 to 64, not 0 (see 'bench --help')"),
        BadArguments(
            arguments: ["--processes", "65"], message: "bench: --processes must be 1 to 64, not 65 (see 'bench --help')"
        ),
        BadArguments(
            arguments: ["--operation", "sha256", "--size", "1048576", "--threads", "64"],
            message:
                "bench: --size 1048576 on 64 threads is more than 16 MiB of input; use fewer threads or a smaller size (see 'bench --help')"
        ),
        BadArguments(arguments: ["--bogus"], message: "bench: Unknown option '--bogus' (see 'bench --help')"),
    ]

    @Test("A bad command line is one line on stderr, exit 64, and writes nothing", arguments: cases)
    func rejected(bad: BadArguments) throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try bench(bad.arguments + ["--output", "out"], in: directory)
        #expect(result.status == 64)
        #expect(result.stderrLines == [bad.message])
        #expect(result.stdout.isEmpty)
        #expect(try listing(directory).filter { !$0.hasPrefix(".") }.isEmpty)
    }

    @Test(
        "bench backfill --shard takes K/N: anything else is one line and 64, before git or a build",
        arguments: [
            "0/2", "3/2", "1/0", "1", "one/two",
        ])
    func badShard(shard: String) throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try bench(["backfill", "HEAD~1..HEAD", "--shard", shard, "--output", "out"], in: directory)
        #expect(result.status == 64)
        #expect(result.stderrLines == ["bench: --shard takes K/N, with 1 <= K <= N <= 1000, not '\(shard)'"])
        #expect(try listing(directory).filter { !$0.hasPrefix(".") }.isEmpty)
    }

    @Test("An output path that is a file: 73 before anything is measured, the file untouched")
    func outputIsFile() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("out")
        try Data("keep me".utf8).write(to: file)
        let result = try bench(["--quick", "--output", "out"], in: directory)
        #expect(result.status == 73)
        #expect(result.stderrLines == ["bench: cannot write \(file.path): it is a file, not a directory"])
        #expect(try String(contentsOf: file, encoding: .utf8) == "keep me")
        #expect(result.stdout.isEmpty)
    }

    @Test("An output directory that cannot be created or written: 73", arguments: ["/proc/pkcebench", "/proc"])
    func outputNotWritable(path: String) throws {
        let result = try bench(["--quick", "--output", path])
        #expect(result.status == 73)
        #expect(result.stderrLines.count == 1)
        #expect(result.stderr.hasPrefix("bench: cannot write \(path)"))
    }

    @Test("--help exits 0, gives the exit codes, and run --help documents every option")
    func help() throws {
        let root = try bench(["--help"])
        #expect(root.status == 0)
        #expect(root.stdout.contains("Exit codes: 0 ok; 1 a regression found; 2 inconclusive"))
        let run = try bench(["run", "--help"])
        #expect(run.status == 0)
        for option in [
            "--backend", "--operation", "--size", "--threads", "--quick", "--samples", "--sample-time", "--warmup",
            "--output", "--format", "--export-json", "--export-markdown", "--export-csv", "--quiet", "--baseline",
            "--save-baseline", "--metric",
        ] {
            #expect(run.stdout.contains(option), "run --help lacks \(option)")
        }
        #expect(!run.stdout.contains("--save-baseline-name"), "the name's hidden option is not for users")
    }

    @Test("--help lists the values of every option that takes one of a few")
    func helpListsValues() throws {
        // argument-parser wraps help at 80 columns: compare with the line breaks folded.
        func help(_ arguments: [String]) throws -> String {
            try bench(arguments + ["--help"]).stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        }
        let run = try help(["run"])
        #expect(run.contains("openssl, sodium, swift, crypto"))
        #expect(run.contains(BenchmarkOperation.allCases.map(\.rawValue).joined(separator: ", ")))
        #expect(run.contains("(values: table, csv, json, markdown; default: table)"))
        #expect(run.contains("(values: time, instructions; default: time)"))
        #expect(try help(["ab"]).contains("(values: table, csv, json, markdown; default: table)"))
        #expect(try help(["export"]).contains("(values: bencher, github-action-benchmark)"))
    }

    @Test("--version prints one line: the release, the build, the worker protocol and report schema; exit 0")
    func version() throws {
        let result = try bench(["--version"])
        #expect(result.status == 0)
        #expect(result.stderr.isEmpty)
        let expected =
            "bench \(BenchVersion.release) (\(BuildConfiguration.current) build for \(BuildConfiguration.targetCPU), "
            + "Swift "
        #expect(result.stdout.hasPrefix(expected), "\(result.stdout)")
        #expect(
            result.stdout.hasSuffix(
                "; worker protocol \(WorkerProtocol.version), report schema \(ReportSchema.version))\n"))
        #expect(result.stdout.split(separator: "\n").count == 1)
    }
}
