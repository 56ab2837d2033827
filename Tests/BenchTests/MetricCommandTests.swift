import Foundation
import PKCEBenchKit
import PKCEBenchTestSupport
import Testing

@Suite("bench --metric instructions", .serialized)
struct MetricCommandTests {
    static let valgrind = InstructionCounter.executableInPath("valgrind")

    @Test("A bad metric, or counting on several threads, is a usage error (64)")
    func usageErrors() throws {
        let bad = try bench(["--metric", "cycles"])
        #expect(bad.status == 64)
        #expect(
            bad.stderrLines == [
                "bench: unknown metric 'cycles'; valid metrics: time, instructions (see 'bench --help')"
            ])
        let threads = try bench(["--metric", "instructions", "--threads", "2"])
        #expect(threads.status == 64)
        #expect(threads.stderrLines == ["bench: --metric instructions counts on one thread; leave out --threads"])
    }

    @Test("Without valgrind: one line naming the package, exit 69, nothing written")
    func valgrindMissing() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let empty = directory.appendingPathComponent("empty-path")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        let result = try bench(
            ["--metric", "instructions", "--output", "out"], in: directory, environment: ["PATH": empty.path])
        #expect(result.status == 69)
        #expect(
            result.stderrLines == [
                "bench: --metric instructions needs valgrind, which is not installed (apt-get install -y valgrind)"
            ])
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("out").path))
    }

    @Test(
        "Counts under Callgrind repeat exactly, whatever bench's environment, and compare as exact counts",
        .enabled(if: valgrind != nil, "valgrind is not installed: apt-get install -y valgrind"),
        .enabled(if: !processIsSanitized, "a sanitizer's runtime cannot run under Valgrind"))
    func countsRepeat() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // challenge-batch allocates, so its count depends on the heap the runtime's start-up left,
        // which depends on the environment (SWIFT_BACKTRACE, for one): the worker gets a fixed one.
        let selection = [
            "--operation", "sha256", "--operation", "challenge-batch", "--size", "64", "--backend", "swift",
            "--backend", "openssl",
        ]
        var environment = ProcessInfo.processInfo.environment
        environment["SWIFT_BACKTRACE"] = "enable=no"
        environment["PKCEBENCH_TEST_PADDING"] = String(repeating: "x", count: 500)
        var runs: [[SummaryRow]] = []
        for (name, environment) in [("a", nil), ("b", environment)] {
            let result = try bench(
                ["--metric", "instructions", "--output", name, "--format", "csv"] + selection, in: directory,
                environment: environment)
            #expect(result.status == 0, "stderr: \(result.stderr)")
            runs.append(try ReportFiles.readSummary(at: directory.appendingPathComponent("\(name)/latest.csv").path))
        }
        for rows in runs {
            #expect(rows.count == 4)
            #expect(rows.allSatisfy { $0.metric == .instructions && ($0.instructionsPerOp ?? 0) > 100 })
            #expect(rows.allSatisfy { $0.nsMedian == nil && !$0.cpuFlags.contains("avx512f") })
        }
        #expect(runs[0].map(\.instructionsPerOp) == runs[1].map(\.instructionsPerOp))

        let compared = try bench(["compare", "a/latest.csv", "b/latest.csv"], in: directory)
        #expect(compared.status == 0)
        #expect(compared.stdout.contains("0 regressed, 0 improved, 4 unchanged (threshold 0.1%, instruction counts)"))

        // A time run is not comparable with a counted one.
        let timed = try bench(["--output", "t", "--quick", "--processes", "1"] + selection, in: directory)
        #expect(timed.status == 0)
        let mixed = try bench(["compare", "t/latest.csv", "a/latest.csv"], in: directory)
        #expect(mixed.status == 65)
        #expect(mixed.stderrLines.first?.contains("instruction counts and timings are different measures") == true)
    }
}
