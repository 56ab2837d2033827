import Foundation
import PKCEBenchCore
import PKCEBenchReports
import PKCEBenchTestSupport
import Testing

@Suite("bench --metric instructions", .serialized)
struct MetricCommandTests {
    static let valgrind = executableInPath("valgrind")

    @Test("A bad metric, or counting on several threads, is a usage error (64)")
    func usageErrors() throws {
        let bad = try bench(["--metric", "cycles"])
        #expect(bad.status == 64)
        #expect(
            bad.stderrLines == [
                "bench: The value 'cycles' is invalid for '--metric <metric>'. Please provide one of 'time' and 'instructions'. (see 'bench --help')"
            ])
        for command in [[], ["ab", productsDirectory.appendingPathComponent("bench").path]] {
            let threads = try bench(command + ["--metric", "instructions", "--threads", "2"])
            #expect(threads.status == 64)
            #expect(threads.stderrLines == ["bench: --metric instructions counts on one thread; leave out --threads"])
        }
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
        #if arch(x86_64)
        let portablePath = "SSE2 schedule"
        #else
        let portablePath = "scalar"
        #endif
        for (name, environment) in [("a", nil), ("b", environment)] {
            let result = try bench(
                ["--metric", "instructions", "--output", name, "--format", "csv"] + selection, in: directory,
                environment: environment)
            #expect(result.status == 0, "stderr: \(result.stderr)")
            runs.append(try ReportFiles.readSummary(at: directory.appendingPathComponent("\(name)/latest.csv").path))
        }
        for rows in runs {
            #expect(rows.count == 4)
            #expect(
                rows.allSatisfy {
                    $0.metric == .instructions && ($0.instructionsPerOperation ?? 0) > 100
                })
            #expect(rows.allSatisfy { $0.median == nil && !$0.environment.cpuFlags.contains("avx512f") })
            // The worker's own account of the path it took, not what bench sees natively.
            #expect(
                rows.filter { $0.key.backend == "swift" }.map { $0.environment.libraries["swift"] }
                    == Array(repeating: "PKCE (pure Swift, \(portablePath), PKCE_SWIFT_SHA256=portable)", count: 2))
        }
        #expect(runs[0].map(\.instructionsPerOperation) == runs[1].map(\.instructionsPerOperation))

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

    @Test(
        "bench ab --metric instructions: both builds counted, compared exactly, their reports written",
        .enabled(if: valgrind != nil, "valgrind is not installed: apt-get install -y valgrind"),
        .enabled(if: !processIsSanitized, "a sanitizer's runtime cannot run under Valgrind"))
    func abCounts() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let me = productsDirectory.appendingPathComponent("bench").path
        let selection = ["--operation", "sha256", "--size", "64", "--backend", "swift,openssl"]
        let result = try bench(["ab", me, "--metric", "instructions", "--output", "out"] + selection, in: directory)
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stdout.contains("0 regressed, 0 improved, 2 unchanged (threshold 0.1%, instruction counts)"))
        let output = directory.appendingPathComponent("out")
        let builds = try ["ab-baseline.csv", "ab-current.csv"].map {
            try ReportFiles.readSummary(at: output.appendingPathComponent($0).path)
        }
        for rows in builds {
            #expect(rows.map(\.key.description) == ["sha256/openssl/64", "sha256/swift/64"])
            #expect(
                rows.allSatisfy {
                    $0.metric == .instructions && ($0.instructionsPerOperation ?? 0) > 100
                })
        }
        // One build counted twice: the same counts, to the last instruction.
        #expect(builds[0].map(\.instructionsPerOperation) == builds[1].map(\.instructionsPerOperation))
        #expect(builds[0].first?.environment.runID.hasSuffix("-baseline") == true)
    }

    @Test(
        "bench ab --metric instructions against a build that cannot count: one line, exit 65, nothing written",
        .enabled(if: valgrind != nil, "valgrind is not installed: apt-get install -y valgrind"))
    func abBaselineCannotCount() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // The hello of a build whose workers cannot count: time, and no instructions.
        let lines = try workerLines(facts: { $0["metrics"] = ["time"] })
        let fake = try fakeBench(saying: lines, in: directory)
        let result = try bench(["ab", fake, "--metric", "instructions", "--output", "out"], in: directory)
        #expect(result.status == 65)
        #expect(
            result.stderrLines == [
                "bench: \(fake): cannot count instructions: its workers offer no instructions metric"
            ])
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("out").path))
    }
}
