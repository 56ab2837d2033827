import Foundation
import PKCE
import PKCEBenchCore
@testable import PKCEBenchKit
import PKCEBenchReports
import PKCEBenchTestSupport
import Testing

@Suite("A whole run with a broken backend")
struct SessionTests {
    /// A session of `bench` over `backends` that measures quickly and writes into a new temporary
    /// directory, compared with a baseline summary when one is set.
    struct Runner {
        var pipeline: Pipeline
        var source: SampleSource
        var baseline: (path: String, criteria: ComparisonCriteria)?
        var presenter: Presenter

        var results: ResultsDirectory { presenter.results ?? ResultsDirectory(path: "") }

        func run() throws(BenchError) {
            let stored = try baseline.map { baseline throws(BenchError) in
                Session.Stored(try ReportFiles.run(summaryAt: baseline.path), criteria: baseline.criteria)
            }
            _ = try presenter.run(
                .alone(pipeline, source, environment: SyntheticRun.report().environment, against: stored))
        }
    }

    static func runner(
        _ backends: [any PKCEBackend], operations: [BenchmarkOperation],
        onProgress: @escaping (String) -> Void = { _ in }
    ) throws -> (Runner, Output) {
        let directory = try temporaryDirectory()
        let output = Output()
        let progress = ProgressPrinter(
            caseCount: 0, style: .lines,
            write: {
                output.stderr += $0
                onProgress($0)
            })
        let runner = Runner(
            pipeline: Pipeline(
                backends: backends, selection: Selection(operations: operations),
                plan: SamplingPlan(warmup: .milliseconds(1), sampleTime: .milliseconds(1), samples: 5),
                progress: progress, cancellation: .never),
            source: .inProcess(allocationCounter: nil),
            presenter: Presenter(
                results: ResultsDirectory(path: directory.path), format: .table, progress: progress,
                standardOutput: { output.stdout += $0 }))
        return (runner, output)
    }

    static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String(format: "%02x", $0) }.joined()
    }

    final class Output {
        var stdout = ""
        var stderr = ""
    }

    @Test("Randomness that fails mid-run fails that case in the table and the CSV; the rest completes; exit 70")
    func randomnessFailsMidRun() throws {
        // The randomness breaks once its case is calibrated: after the correctness check, before the samples.
        let failing = FailingLaterBackend()
        let (runner, output) = try Self.runner([SwiftBackend(), failing], operations: [.random, .sha256]) { line in
            if line.hasPrefix("calibrated random/failing-later") { failing.failFromNow() }
        }
        defer { try? FileManager.default.removeItem(at: runner.results.url) }
        #expect(throws: BenchError(.backendFailed, "1 case(s) failed: random/failing-later/32")) {
            try runner.run()
        }

        let rows = try ReportFiles.readSummary(at: runner.results.latest.path)
        // random 32, and sha256 43, 64, 1024, 16384, for each of the two backends.
        #expect(rows.count == 10)
        let failed = try #require(rows.first { $0.key.backend == "failing-later" && $0.key.operation == .random })
        #expect(failed.failure != nil)
        #expect(failed.failure == FailingLaterBackend.error.logDescription)
        #expect(failed.median == nil)
        #expect(rows.filter { $0.key != failed.key }.allSatisfy { $0.isOK && $0.summary.samples == 5 })

        let tableLine = try #require(
            output.stdout.split(separator: "\n").first { $0.contains("failing-later") && $0.hasPrefix("random") })
        #expect(tableLine.contains("failed"))
        #expect(output.stderr.contains("FAILED random/failing-later/32"))
    }

    @Test(
        "A backend that fails the correctness check refuses the run in one line, 70, before anything is timed or written"
    )
    func correctnessFailure() throws {
        let (runner, output) = try Self.runner([SwiftBackend(), WrongDigestBackend()], operations: [.sha256])
        defer { try? FileManager.default.removeItem(at: runner.results.url) }
        let digest = SwiftBackend().sha256(Array("abc".utf8))
        var wrongDigest = digest
        wrongDigest[31] ^= 1  // as WrongDigestBackend does
        let (expected, wrong) = (Self.hex(digest), Self.hex(wrongDigest))
        #expect(
            throws: BenchError(
                .backendFailed,
                "backend wrong-digest failed its correctness check: SHA-256 of \"abc\" is \(wrong), "
                    + "FIPS 180-4 gives \(expected)")
        ) { try runner.run() }
        #expect(!output.stderr.contains("calibrated"))
        #expect(output.stdout.isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: runner.results.url.path).isEmpty)
    }

    @Test("A measuring process that crashes fails its cases in the reports, and the run exits 70")
    func processCrashes() throws {
        var (runner, _) = try Self.runner([SwiftBackend()], operations: [.random])
        defer { try? FileManager.default.removeItem(at: runner.results.url) }
        runner.source = .processes(
            MeasuringProcesses(count: 2, command: ("/bin/sh", ["-c", "kill -SEGV $$"]), cancellation: .never))
        #expect(throws: BenchError(.backendFailed, "1 case(s) failed: random/swift/32")) { try runner.run() }
        let rows = try ReportFiles.readSummary(at: runner.results.latest.path)
        #expect(rows.map(\.failure) == ["measuring process 1 died of signal 11"])
    }

    @Test("A baseline of another build configuration is refused before anything is measured or created")
    func baselineOfAnotherBuild() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let baseline = directory.appendingPathComponent("debug.csv").path
        try ReportFiles.write(SyntheticRun.report(build: .debug), summaryAt: baseline)

        var (runner, output) = try Self.runner([SwiftBackend()], operations: [.random])
        try FileManager.default.removeItem(at: runner.results.url)
        runner.baseline = (baseline, ComparisonCriteria(threshold: 0.05))
        let error = try #require(throws: BenchError.self) { try runner.run() }
        #expect(error.kind == .malformedInput)
        #expect(error.message.contains("(debug build) with this run (release build)"))
        #expect(!FileManager.default.fileExists(atPath: runner.results.url.path))
        #expect(!output.stderr.contains("calibrated"))
    }

    @Test("A signal before the reports are written: nothing is written, and the status says which signal")
    func interrupted() throws {
        var (runner, _) = try Self.runner([SwiftBackend()], operations: [.random])
        defer { try? FileManager.default.removeItem(at: runner.results.url) }
        runner.pipeline.cancellation = Cancellation { 15 }
        #expect(throws: BenchError(.terminated, "stopped by SIGTERM; no report was written")) { try runner.run() }
        #expect(try FileManager.default.contentsOfDirectory(atPath: runner.results.url.path).isEmpty)
    }
}
