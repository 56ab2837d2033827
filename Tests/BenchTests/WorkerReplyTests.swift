import Foundation
import PKCEBenchCore
@testable import PKCEBenchKit
import PKCEBenchTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Another build's worker, broken or old: what `bench ab` must refuse with one line and exit 70,
/// never trap on, nor let fill its memory.
@Suite("bench ab against a worker that breaks the protocol")
struct WorkerReplyTests {
    static let small = ["--backend", "swift", "--operation", "sha256", "--size", "64", "--quick"]

    /// A worker that is this build's, but for its first sample reply, which `tamper` rewrites:
    /// a Python proxy in front of `bench worker`.
    static func fakeWorker(in directory: URL, tamper: String) throws -> String {
        let real = productsDirectory.appendingPathComponent("bench").path
        let path = directory.appendingPathComponent("fake-bench").path
        let script = """
            #!/usr/bin/env python3
            import re, subprocess, sys, time
            real = subprocess.Popen([\(String(reflecting: real)), "worker"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
            def forward():
                for line in sys.stdin.buffer:
                    real.stdin.write(line)
                    real.stdin.flush()
                    yield real.stdout.readline()
            sys.stdout.buffer.write(real.stdout.readline())
            sys.stdout.buffer.flush()
            tampered = False
            for reply in forward():
                if not tampered and reply.startswith(b'{"sample"'):
                    tampered = True
                    mode = \(String(reflecting: tamper))
                    if mode == "long":
                        chunk = b"x" * (1 << 20)
                        for _ in range(300):
                            sys.stdout.buffer.write(chunk)
                        sys.stdout.buffer.flush()
                        time.sleep(60)
                    elif mode == "allocations":
                        big = b'"allocations":9223372036854775807'
                        if b'"allocations":' in reply:
                            reply = re.sub(rb'"allocations":\\d+', big, reply)
                        else:
                            reply = reply.replace(b'"iterations":', big + b',"iterations":')
                    elif mode == "process":
                        reply = re.sub(rb'"process":\\d+', b'"process":99', reply)
                    elif mode == "negative":
                        reply = re.sub(rb'"nanosecondsPerOperation":[0-9.e+-]+', b'"nanosecondsPerOperation":-5', reply)
                sys.stdout.buffer.write(reply)
                sys.stdout.buffer.flush()
            """
        try script.write(toFile: path, atomically: true, encoding: .utf8)
        chmod(path, 0o755)
        return path
    }

    @Test(
        "A worker's wrong reply is 70 and one line naming it and what was wrong, never a trap",
        arguments: [
            ("long", "a line longer than 1048576 bytes"),
            ("allocations", "a sample of 9223372036854775807 allocations"),
            ("process", "a sample of process 99, asked of process 0"),
            ("negative", "a sample of -5.0 ns per operation"),
        ])
    func brokenWorker(tamper: String, problem: String) throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let fake = try Self.fakeWorker(in: directory, tamper: tamper)
        // Through Python, which reports the largest resident set of the processes it waited for:
        // bench, and through it the workers.
        let measure = """
            import resource, subprocess, sys
            status = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL).returncode
            print(status, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
            """
        let bench = productsDirectory.appendingPathComponent("bench").path
        let errors = directory.appendingPathComponent("stderr")
        let result = try WorkflowTests.shell(
            [
                "python3", "-c", measure, "sh", "-c", "exec \"$0\" \"$@\" 2>\(errors.path)", bench, "ab", fake,
                "--output", directory.appendingPathComponent("out").path, "--quiet",
            ] + Self.small, in: directory)
        #expect(result.status == 0, "\(result.output)")
        let figures = result.output.split(whereSeparator: \.isWhitespace).compactMap { Int($0) }
        #expect(figures.first == 70, "\(result.output)")
        // The parent kept at most the bound of a line, not the 300 MiB the worker wrote.
        if tamper == "long", !processIsSanitized {
            #expect((figures.last ?? .max) < 200 * 1024, "peak resident set \(figures.last ?? 0) KiB")
        }
        // One line of failure (a debug build also warns that its figures are not representative).
        let lines = try String(contentsOf: errors, encoding: .utf8).split(separator: "\n").filter {
            !$0.hasPrefix("warning: this is a debug build")
        }
        #expect(lines.count == 1, "\(lines)")
        let line = String(lines.last ?? "")
        #expect(line.contains("broke the worker protocol: \(problem)"), "\(line)")
        #expect(line.contains("the baseline's worker 1 (\(fake))"), "the worker's path: \(line)")
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("out/ab-comparison.csv").path))
    }
}

@Suite("Exit codes: the command line's, and the worker protocol's numbering of a refusal")
struct ExitCodeTests {
    @Test("Every kind of error ends bench with the code a worker's refusal carries for it, as protocol 3 fixed them")
    func refusalsNumberKindsAsExitCodes() {
        for kind in BenchError.Kind.allCases {
            #expect(ExitStatus(kind).rawValue == WorkerProtocol.refusalStatus(of: kind), "\(kind)")
        }
        #expect(ExitStatus(.clear) == .ok && ExitStatus(.regression).rawValue == 1)
        #expect(ExitStatus(.inconclusive).rawValue == 2)
    }
}
