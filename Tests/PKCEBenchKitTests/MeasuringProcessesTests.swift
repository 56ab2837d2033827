import Foundation
import PKCE
import PKCEBenchKit
import PKCEBenchTestSupport
import Testing

@Suite("Measuring in several processes")
struct MeasuringProcessesTests {
    static let cases = [BenchmarkCase(backend: SwiftBackend(), operation: .random, size: 32)]
    static let plan = SamplingPlan(warmup: .zero, sampleTime: .milliseconds(1), samples: 4)

    /// Processes that run `/bin/sh -c script` instead of `bench worker`.
    static func processes(_ script: String, interruption: @escaping () -> Int32? = { nil }) -> MeasuringProcesses {
        MeasuringProcesses(count: 2, command: { _ in ("/bin/sh", ["-c", script]) }, interruption: interruption)
    }

    @Test("A process that exits with an error fails the run with 70")
    func exitStatus() {
        #expect(throws: BenchError(.backendFailed, "measuring process 1 exited with 3")) {
            try Self.processes("exit 3").measure(Self.cases, selection: Selection(), plan: Self.plan, progress: nil)
        }
    }

    @Test("A process that dies of a signal fails the run with 70")
    func crash() {
        #expect(throws: BenchError(.backendFailed, "measuring process 1 died of signal 9")) {
            try Self.processes("kill -9 $$").measure(Self.cases, selection: Selection(), plan: Self.plan, progress: nil)
        }
    }

    @Test("A process that writes no report fails the run")
    func noReport() {
        #expect(throws: BenchError.self) {
            try Self.processes("exit 0").measure(Self.cases, selection: Selection(), plan: Self.plan, progress: nil)
        }
    }

    @Test("A signal stops the running process and the run, with the signal's status")
    func interrupted() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let pidFile = directory.appendingPathComponent("pid")
        #expect(throws: BenchError(.interrupted, "stopped by SIGINT; no report was written")) {
            try Self.processes(
                "echo $$ > '\(pidFile.path).new' && mv '\(pidFile.path).new' '\(pidFile.path)'; exec sleep 30",
                interruption: {
                    FileManager.default.fileExists(atPath: pidFile.path) ? 2 : nil
                }
            ).measure(Self.cases, selection: Selection(), plan: Self.plan, progress: nil)
        }
        // The child was signalled and reaped: its process id is gone.
        let pid = try #require(
            Int32(
                String(decoding: try Data(contentsOf: pidFile), as: UTF8.self).trimmingCharacters(
                    in: .whitespacesAndNewlines)))
        #expect(kill(pid, 0) == -1 && errno == ESRCH)
    }
}
