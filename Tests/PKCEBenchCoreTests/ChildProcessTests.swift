import Foundation
@testable import PKCEBenchCore
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

@Suite("Short commands: bounded in time and in what is read of them")
struct ChildProcessTests {
    @Test("A command past its time is stopped and has failed; what it printed is still read")
    func timeout() throws {
        let started = Date()
        let captured = try ChildProcess.run("/bin/sh", ["-c", "echo started; exec sleep 30"], timeout: 0.3)
        #expect(Date().timeIntervalSince(started) < 10)
        #expect(!captured.succeeded)
        #expect(captured.output == "started\n")
        #expect(captured.lastLine == "/bin/sh was stopped after 0.3 s")
    }

    @Test("Of a command that prints without end, only the first bytes are read")
    func bounded() throws {
        let captured = try ChildProcess.run("/bin/sh", ["-c", "head -c 20000000 /dev/zero"])
        #expect(captured.succeeded)
        #expect(captured.output.utf8.count == ChildProcess.capturedLimit)
        #expect(captured.isTruncated)
        let exact = try ChildProcess.run("/bin/sh", ["-c", "head -c \(ChildProcess.capturedLimit) /dev/zero"])
        #expect(!exact.isTruncated && exact.output.utf8.count == ChildProcess.capturedLimit)
    }

    @Test(
        "The scratch directory is 0700 and a child's output files 0600, where the default umask would leave 0755 and 0644"
    )
    func privateModes() throws {
        // The test process's umask (022 by default) would leave 0755 and 0644: the modes are bench's.
        let directory = try makeScratchDirectory(for: "a test's files")
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("file").path
        let output = directory.appendingPathComponent("output").path
        let error = directory.appendingPathComponent("error").path
        let standardError = directory.appendingPathComponent("standard-error").path
        for (streams, script) in [
            (ChildProcess.Streams.file(file), "echo out"),
            (.files(output: output, error: error), "echo out; echo error >&2"),
            (.pipes(standardError: standardError), "echo error >&2"),
        ] {
            let child = try ChildProcess(executable: "/bin/sh", arguments: ["-c", script], streams: streams)
            child.closeInput()
            #expect("\(child.wait())" == "exited(0)", "\(script)")
        }
        #expect(Self.mode(of: directory.path) == "700")
        for path in [file, output, error, standardError] {
            #expect(Self.mode(of: path) == "600", "\(path)")
        }
    }

    /// The permission bits of what is at `path` (`lstat`), in octal, or why they cannot be read.
    static func mode(of path: String) -> String {
        var status = stat()
        guard lstat(path, &status) == 0 else { return String(cString: strerror(errno)) }
        return String(status.st_mode & 0o7777, radix: 8)
    }
}
