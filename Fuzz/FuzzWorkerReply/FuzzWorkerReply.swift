import Foundation
import PKCEBenchCore
import PKCEBenchReports

/// libFuzzer's entry point: a line from a worker, which may be another build, broken or old, as
/// the run that started it reads it.
///
/// Beyond "does not crash" (no trap on an overflow, an index or a number): a reply that decodes is
/// judged against every kind of request without trapping, and one that passes as the answer to a
/// measuring job encodes and decodes again, and its measurements make a run whose summary and
/// samples files read back with the schema every command reads them with, as a save checks
/// before it stages them (``ResultsDirectory/files(of:as:)``): what a worker may send can never
/// make a results directory unreadable.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWorkerReply(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let line = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let coder = WorkerProtocol.Coder()
    guard let reply = coder.decode(WorkerProtocol.Reply.self, from: line) else { return 0 }
    let job = WorkerProtocol.Job(
        selection: Selection(), plan: SamplingPlan(warmup: .zero, sampleTime: .milliseconds(1), samples: 90),
        process: 1)
    let requests: [WorkerProtocol.Request] = [
        .describe, .measure(job), .calibrate(job), .sample(index: 0), .sample(index: Int.max), .count(job), .quit,
    ]
    for request in requests {
        let problem = WorkerProtocol.problem(with: reply, answering: request, job: job)
        if problem == nil, case .measure = request {
            // An accepted reply reads back as the same kind of reply.
            precondition(coder.decode(WorkerProtocol.Reply.self, from: coder.line(reply)) != nil, "no round trip")
            if case .measured(let measurements) = reply {
                checkReadsBack(measurements)
            }
        }
    }
    return 0
}

/// The environment of the runs the fuzzer makes, as a run records it. (Not captured: finding the
/// Swift version runs `swiftc`, whose output Foundation reads with a buffer LeakSanitizer reports.)
private let environment = RunEnvironment(
    runID: "20261122T041556.042Z-5106788-4f0c2a9e", timestamp: "2026-11-22T04:15:56.042Z",
    commit: RecordedCommit(recorded: "5106788"),
    build: .release, targetCPU: "x86-64", cpu: "Fuzzed CPU", cpuFlags: "sha_ni avx2", cores: 2, kernel: "6.1.0",
    swift: "6.3.1", libraries: ["swift": "PKCE (pure Swift)"], commitSource: .build)

/// Traps unless a run of `measurements` saves files that read back.
private func checkReadsBack(_ measurements: [CaseMeasurement]) {
    let run = RunResult(environment: environment, measurements: measurements)
    let summary = URL(fileURLWithPath: "/nonexistent/\(environment.runID).csv")
    do {
        let (summaryFile, _) = try ResultsDirectory.files(of: run, as: summary)
        // As history.csv would hold them, beside the rows of other runs.
        _ = try ReportFiles.history(from: Array(summaryFile.utf8), path: "history.csv")
    } catch {
        preconditionFailure("an accepted reply's rows do not read back: \(error.message)")
    }
}
