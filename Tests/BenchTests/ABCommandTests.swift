import Foundation
import PKCEBenchCore
@testable import PKCEBenchKit
import PKCEBenchReports
import PKCEBenchTestSupport
import Testing

@Suite("bench ab")
struct ABCommandTests {
    /// A small selection, so that a whole `bench ab` takes a second or two.
    static let small = ["--backend", "openssl,swift", "--operation", "sha256", "--size", "64", "--quick"]

    /// Writes an executable shell script into `directory`.
    static func script(_ body: String, in directory: URL) throws -> String {
        let path = directory.appendingPathComponent("fake-bench").path
        try ("#!/bin/sh\n" + body + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        chmod(path, 0o755)
        return path
    }

    @Test("This build against itself: both builds' reports and the comparison are written")
    func itself() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("out")
        let me = productsDirectory.appendingPathComponent("bench").path
        // The same build: at a 50% threshold no false alarm is possible in practice (at the default
        // 1%, the gate allows at most one run in a hundred); inconclusive (2) is allowed for a run this short.
        let result = try bench(
            ["ab", me] + Self.small + ["--threshold", "50", "--output", output.path, "--format", "csv"])
        #expect(result.status == 0 || result.status == 2, "\(result.stderr)")
        #expect(!result.stdout.utf8.contains(UInt8(ascii: "\r")))
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("backend,operation,size,threads,baseline_ns_median") == true)
        #expect(
            lines.dropFirst().map { $0.split(separator: ",").prefix(3).joined(separator: ",") }
                == ["openssl,sha256,64", "swift,sha256,64"])
        #expect(lines.dropFirst().allSatisfy { $0.contains(",pairs,") })
        #expect(
            try listing(output) == [
                "ab-baseline.csv", "ab-baseline.samples.csv", "ab-comparison.csv", "ab-current.csv",
                "ab-current.samples.csv", "ab.html",
            ])
        // The file is RFC 4180: CRLF, and otherwise what standard output showed.
        let file = try String(contentsOf: output.appendingPathComponent("ab-comparison.csv"), encoding: .utf8)
        #expect(file.replacingOccurrences(of: "\r\n", with: "\n") == result.stdout)
        #expect(file.utf8.count(where: { $0 == UInt8(ascii: "\r") }) == 3)
        // Both builds' samples come in pairs of processes: the same count for each.
        let baseline = try ReportFiles.readSamples(at: output.appendingPathComponent("ab-baseline.samples.csv").path)
        let current = try ReportFiles.readSamples(at: output.appendingPathComponent("ab-current.samples.csv").path)
        #expect(baseline.count == current.count && baseline.count == 2 * 40)
        #expect(Set(baseline.map(\.sample.process)) == Set(0..<4))
        #expect(
            try ReportFiles.readSummary(at: output.appendingPathComponent("ab-baseline.csv").path).first?
                .environment.runID.hasSuffix("-baseline") == true)
    }

    @Test("Looks: cases decided at a look are not measured again; stderr counts the open ones")
    func looks() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("out")
        let me = productsDirectory.appendingPathComponent("bench").path
        // Two pairs a look, of two turns each, up to three looks: too few pairs to pass a 1%
        // threshold at the first looks, so a later look measures again.
        let result = try bench(
            [
                "ab", me, "--backend", "openssl,swift", "--operation", "sha256", "--size", "64", "--processes", "2",
                "--samples", "4", "--max-pairs", "6", "--sample-time", "0.05", "--output", output.path,
                "--format", "csv",
            ])
        #expect([0, 1, 2].contains(result.status), "\(result.stderr)")
        let baseline = try ReportFiles.readSamples(at: output.appendingPathComponent("ab-baseline.samples.csv").path)
        let looks = result.stderrLines.filter { $0.hasPrefix("look ") }
        // Two pairs cannot bound a change within 1% (t with one degree of freedom): a second look.
        #expect(!looks.isEmpty, "\(result.stderr)")
        // Each later look names the cases still open, and measures exactly those in its pairs.
        for line in looks {
            #expect(line.contains(" case(s) still open; measuring them in 2 more pairs"), "\(line)")
        }
        let pairsByCase = Dictionary(grouping: baseline, by: \.key).mapValues { Set($0.map(\.sample.process)) }
        #expect(pairsByCase.count == 2)
        #expect(pairsByCase.values.allSatisfy { [2, 4, 6].contains($0.count) && $0.isSubset(of: Set(0..<6)) })
        #expect(Set(pairsByCase.values.map(\.count)).max() == 2 * (looks.count + 1))
        // The later pairs' numbers follow on: a case measured at a look has all pairs before it.
        #expect(pairsByCase.values.allSatisfy { $0 == Set(0..<$0.count) })
    }

    @Test("--confirm's sampling, PairedSampling.standard, is what bench ab's options give when none is set")
    func standardSampling() throws {
        let parsed = try PairedSampling(SamplingOptions.parse([]), GateOptions.parse([]))
        #expect(PairedSampling.standard.plan == parsed.plan)
        #expect(PairedSampling.standard.looks == parsed.looks)
        #expect(parsed.looks == LookSchedule(pairsPerLook: 20, looks: 4))
    }

    @Test("--max-pairs: 1 to 640, and no fewer than one look's pairs; exit 64 otherwise")
    func maxPairs() throws {
        let me = productsDirectory.appendingPathComponent("bench").path
        for (arguments, message) in [
            (["--max-pairs", "0"], "bench: --max-pairs must be 1 to 640, not 0"),
            (["--max-pairs", "10"], "bench: --max-pairs 10 is fewer than the 20 pairs of one look (--processes)"),
        ] {
            let result = try bench(["ab", me] + Self.small.dropLast() + arguments)
            #expect(result.status == 64)
            #expect(result.stderrLines.first?.hasPrefix(message) == true, "\(result.stderr)")
        }
    }

    @Test("A baseline that is missing, or not executable: one line, exit 66, nothing measured")
    func missing() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let absent = try bench(["ab", directory.appendingPathComponent("nope").path] + Self.small)
        #expect(absent.status == 66)
        #expect(absent.stderrLines.count == 1 && absent.stderr.contains("no such file"))
        let plain = directory.appendingPathComponent("plain").path
        try "not a program".write(toFile: plain, atomically: true, encoding: .utf8)
        let notExecutable = try bench(["ab", plain] + Self.small)
        #expect(notExecutable.status == 66)
        #expect(notExecutable.stderrLines == ["bench: \(plain): is not executable"])
        let folder = try bench(["ab", directory.path] + Self.small)
        #expect(folder.status == 66)
    }

    @Test(
        "A baseline that is not a bench of this worker protocol: one line, exit 65",
        arguments: [
            "exit 0",  // answers nothing
            "exit 64",  // a bench of protocol 1, whose worker needed options
            "echo pkcebench-worker-protocol 1; echo build release; echo target_cpu x86-64",  // protocol 1's hello
            "echo hello",  // another program
        ])
    func notBench(body: String) throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let fake = try Self.script(body, in: directory)
        try Self.expectNotBench(fake, in: directory)
    }

    @Test("A baseline whose hello is of a newer version: one line, exit 65")
    func newerBench() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let lines = try workerLines(editingHello: { $0["version"] = WorkerProtocol.version + 1 })
        try Self.expectNotBench(try fakeBench(saying: lines, in: directory), in: directory)
    }

    static func expectNotBench(_ fake: String, in directory: URL) throws {
        let result = try bench(["ab", fake, "--output", directory.appendingPathComponent("out").path] + Self.small)
        #expect(result.status == 65)
        #expect(
            result.stderrLines == [
                "bench: \(fake): is not a bench that speaks worker protocol \(WorkerProtocol.version) (built from an older or newer commit?)"
            ])
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("out").path))
    }

    @Test("A baseline that says hello, then breaks the protocol: one line, exit 70, nothing written")
    func brokenWorker() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let fake = try fakeBench(saying: try workerLines(), otherwise: "echo nonsense", in: directory)
        let output = directory.appendingPathComponent("out")
        let result = try bench(["ab", fake, "--output", output.path] + Self.small)
        #expect(result.status == 70)
        #expect(
            result.stderrLines.last?.contains("the baseline's worker 1 (\(fake)) broke the worker protocol: 'nonsense'")
                == true)
        #expect(try listing(output).isEmpty)
    }

    @Test("bench worker says hello first, then describes the build when asked; it exits 0 at the end of its input")
    func hello() throws {
        let result = try bench(["worker"])
        #expect(result.status == 0)
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 1)
        let reply = try #require(try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any])
        let hello = try #require((reply["hello"] as? [String: Any])?["_0"] as? [String: Any])
        #expect(hello["protocol"] as? String == "pkcebench-worker")
        #expect(hello["version"] as? Int == WorkerProtocol.version)
        let described = try workerLines().described
        let message = try #require(try JSONSerialization.jsonObject(with: Data(described.utf8)) as? [String: Any])
        let facts = try #require((message["described"] as? [String: Any])?["_0"] as? [String: Any])
        #expect(["debug", "release"].contains(facts["build"] as? String ?? ""))
        #expect(facts["targetCPU"] is String && facts["swift"] is String)
    }

    @Test("bench worker given a line that is not a request: one line, exit 64")
    func notARequest() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = directory.appendingPathComponent("input")
        try "sample 0\n".write(to: input, atomically: true, encoding: .utf8)
        let result = try bench(["worker"], standardInput: input)
        #expect(result.status == 64)
        #expect(
            result.stderrLines == ["bench: a worker read a line that is not a request it can carry out: 'sample 0'"])
    }
}
