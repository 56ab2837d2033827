import Foundation
import PKCE
@testable import PKCEBenchCore
import PKCEBenchTestSupport
import Testing

@Suite("Measuring in several processes")
struct MeasuringProcessesTests {
    static let cases = [BenchmarkCase(backend: SwiftBackend(), operation: .random, size: 32)]
    static let plan = SamplingPlan(warmup: .zero, sampleTime: .milliseconds(1), samples: 4)

    /// Processes that run `/bin/sh -c script` instead of `bench worker`.
    static func processes(_ script: String, cancellation: Cancellation = .never) -> MeasuringProcesses {
        MeasuringProcesses(count: 2, command: ("/bin/sh", ["-c", script]), cancellation: cancellation)
    }

    /// What measuring ``cases`` with processes that run `script` reports.
    static func measure(_ script: String) throws -> [CaseMeasurement] {
        try processes(script).measure(cases, selection: Selection(), plan: plan, progress: nil, check: false)
    }

    @Test(
        "A process that fails fails every case with its reason, and no process runs after it",
        arguments: [
            ("exit 3", "measuring process 1 exited with 3"),
            ("kill -9 $$", "measuring process 1 died of signal 9"),
        ])
    func processFails(script: String, reason: String) throws {
        let measurements = try Self.measure(script)
        #expect(measurements.map(\.key) == Self.cases.map(\.key))
        #expect(measurements.allSatisfy { $0.failure == reason && $0.samples.isEmpty })
    }

    @Test("A process that exits 0 without a report fails every case, saying so")
    func noReport() throws {
        let measurements = try Self.measure("exit 0")
        #expect(measurements.map(\.failure) == ["measuring process 1 exited before it answered"])
    }

    /// A shell script that says this version's hello, reads one request, and answers `reply`.
    static func worker(answering reply: WorkerProtocol.Reply, then: String = "") -> String {
        let hello = WorkerProtocol.line(WorkerProtocol.Reply.hello(.init()))
        return "printf '%s' '\(hello)'; read request; printf '%s' '\(WorkerProtocol.line(reply))'; \(then)"
    }

    @Test("A process that reports, then exits with an error (a sanitizer's report, say), fails every case")
    func failsAfterReporting() throws {
        let measurements = try Self.measure(Self.worker(answering: .measured([]), then: "exit 3"))
        #expect(measurements.map(\.failure) == ["measuring process 1 exited with 3"])
    }

    @Test("A process that refuses its job fails every case, naming the process and saying why")
    func refuses() throws {
        let measurements = try Self.measure(
            Self.worker(answering: .refused(status: 64, message: "unknown backend boringssl"), then: "exit 64"))
        #expect(measurements.map(\.failure) == ["measuring process 1 refused its job: unknown backend boringssl"])
    }

    @Test("A process that answers something other than the protocol fails every case, saying what it said")
    func notAWorker() throws {
        let measurements = try Self.measure("echo 'measured 3 cases'")
        #expect(measurements.map(\.failure) == ["measuring process 1 broke the worker protocol: 'measured 3 cases'"])
    }

    @Test(
        "A process stopped by Ctrl-C before this one noticed stops the run, not fails it",
        arguments: [
            ("exit 130", BenchError(.interrupted, "stopped by SIGINT; no report was written")),
            ("exit 143", BenchError(.terminated, "stopped by SIGTERM; no report was written")),
            ("kill -INT $$", BenchError(.interrupted, "stopped by SIGINT; no report was written")),
        ])
    func childInterrupted(script: String, error: BenchError) {
        #expect(throws: error) { try Self.measure(script) }
    }

    @Test("A signal stops the running process and the run, with the signal's status")
    func interrupted() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let pidFile = directory.appendingPathComponent("pid")
        #expect(throws: BenchError(.interrupted, "stopped by SIGINT; no report was written")) {
            try Self.processes(
                "echo $$ > '\(pidFile.path).new' && mv '\(pidFile.path).new' '\(pidFile.path)'; exec sleep 30",
                cancellation: Cancellation {
                    FileManager.default.fileExists(atPath: pidFile.path) ? 2 : nil
                }
            ).measure(Self.cases, selection: Selection(), plan: Self.plan, progress: nil, check: false)
        }
        // The child was signalled and reaped: its process id is gone.
        let pid = try #require(
            Int32(
                String(decoding: try Data(contentsOf: pidFile), as: UTF8.self).trimmingCharacters(
                    in: .whitespacesAndNewlines)))
        #expect(kill(pid, 0) == -1 && errno == ESRCH)
    }
}
