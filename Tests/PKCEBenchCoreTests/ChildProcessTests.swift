import Foundation
@testable import PKCEBenchCore
import Testing

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
}
