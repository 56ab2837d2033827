import Foundation
import PKCEBenchKit
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
        let result = try bench(["ab", me] + Self.small + ["--output", output.path, "--format", "csv"])
        // The same build: never a regression; inconclusive (2) is allowed for a run this short.
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
        #expect(Set(baseline.map(\.process)) == Set(0..<4))
        #expect(
            try ReportFiles.readSummary(at: output.appendingPathComponent("ab-baseline.csv").path).first?
                .runID.hasSuffix("-baseline") == true)
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
            "exit 64",  // an older bench, which has no --protocol-version
            "echo pkcebench-worker-protocol 999; echo build release; echo target_cpu x86-64",  // a newer one
            "echo hello",  // another program
        ])
    func notBench(body: String) throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let fake = try Self.script(body, in: directory)
        let result = try bench(["ab", fake, "--output", directory.appendingPathComponent("out").path] + Self.small)
        #expect(result.status == 65)
        #expect(
            result.stderrLines == [
                "bench: \(fake): is not a bench that speaks worker protocol 1 (built from an older or newer commit?)"
            ])
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("out").path))
    }

    @Test("A baseline that passes the handshake, then breaks the protocol: one line, exit 70, nothing written")
    func brokenWorker() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let handshake = try bench(["worker", "--protocol-version"]).stdout
        let fake = try Self.script(
            """
            if [ "$2" = "--protocol-version" ]; then printf '\(handshake.replacingOccurrences(of: "\n", with: "\\n"))'; exit 0; fi
            echo "case sha256 openssl 64 1"; echo "nonsense"
            """, in: directory)
        let output = directory.appendingPathComponent("out")
        let result = try bench(["ab", fake, "--output", output.path] + Self.small)
        #expect(result.status == 70)
        #expect(result.stderrLines.last?.contains("the baseline's worker 1 broke the worker protocol") == true)
        #expect(try listing(output).isEmpty)
    }

    @Test("bench worker --protocol-version names the protocol and the build")
    func handshake() throws {
        let result = try bench(["worker", "--protocol-version"])
        #expect(result.status == 0)
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == "pkcebench-worker-protocol \(WorkerProtocol.version)")
        #expect(lines.contains("build debug") || lines.contains("build release"))
        #expect(lines.contains { $0.hasPrefix("target_cpu ") })
    }

    @Test("bench ab --filter against a build whose handshake has no 'selects' line: one line, 64, nothing written")
    func baselineWithoutPatterns() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // The handshake of a build from before --filter, --skip and --size OPERATION:SIZE.
        let fake = try olderBench(withoutHandshakeLine: "selects ", in: directory)
        for selection in [["--filter", "sha256"], ["--skip", "random"], ["--size", "sha256:64"]] {
            let result = try bench(["ab", fake, "--quick", "--output", "out"] + selection, in: directory)
            #expect(result.status == 64)
            #expect(
                result.stderrLines == [
                    "bench: \(fake) predates --filter, --skip and --size OPERATION:SIZE; select its cases with --backend, --operation and --size"
                ])
            #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("out").path))
        }
    }
}
