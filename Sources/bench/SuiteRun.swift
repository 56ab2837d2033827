import ArgumentParser
import Foundation
import PKCEBackends
import PKCEBenchKit

/// One run of the suite, from the correctness gate to the reports: what `bench`, `bench run` and
/// `bench baseline` do.
struct SuiteRun {
    var selection: Selection
    var plan: SamplingPlan
    var results: ResultsDirectory
    var format: OutputFormat
    /// A summary file to compare the run against, with the criteria to use.
    var baseline: (path: String, criteria: ComparisonCriteria)?
    /// Whether the run also becomes `baseline.csv`.
    var saveAsBaseline = false

    func execute() throws {
        InterruptSignals.install()
        // Everything that can fail on bad input fails here, before a second is spent measuring.
        try results.prepare()
        let baselineData = try baseline.map { try RunData.load(summaryAt: $0.path) }

        let backends = try loadBackends()
        let cases = selection.cases(from: backends)
        let environment = RunEnvironment.capture(libraryVersions: loadedLibraryVersions())
        let progress = ProgressPrinter(caseCount: cases.count)
        if !BuildConfiguration.isRelease {
            progress.note(
                "warning: this is a debug build; its figures are not representative (use swift run -c release bench)")
        }

        // Correctness before speed: a backend that gives a wrong answer is not timed.
        var gateFailures: [String: String] = [:]
        for backend in backends where cases.contains(where: { $0.backend.name == backend.name }) {
            if let reason = CorrectnessGate.check(backend) {
                gateFailures[backend.name] = "failed its correctness check: \(reason)"
                progress.note("backend \(backend.name) failed its correctness check and is not measured: \(reason)")
            }
        }
        let sampler = Sampler(
            cases: cases.filter { gateFailures[$0.backend.name] == nil }, plan: plan, observer: progress,
            interruption: { InterruptSignals.received })
        var measurements: [CaseMeasurement]
        do {
            measurements = try sampler.run()
        } catch {
            progress.finish()
            throw ExitCode(InterruptSignals.exitStatus(for: error.signal).rawValue)
        }
        progress.finish()
        measurements += cases.compactMap { benchmark in
            gateFailures[benchmark.backend.name].map { CaseMeasurement.failed(benchmark.key, reason: $0) }
        }
        let report = RunReport(environment: environment, measurements: measurements)

        try exitIfInterrupted()
        let written = try results.save(report, asBaseline: saveAsBaseline)
        progress.note("wrote \(written.map(\.lastPathComponent).joined(separator: ", ")) to \(results.url.path)")

        var regressed = false
        if let baseline, let baselineData {
            let current = RunData(name: "this run", summaries: report.summaries, samples: report.samples)
            let comparison = try Comparison(baseline: baselineData, current: current, criteria: baseline.criteria)
            if format == .table || format == .markdown {
                print(SummaryFormatter.render(report.summaries, as: format))
            }
            warnAboutEnvironment(comparison)
            print(ComparisonFormatter.render(comparison, as: format), terminator: "")
            regressed = comparison.hasRegression
        } else {
            print(SummaryFormatter.render(report.summaries, as: format), terminator: "")
        }
        try exitIfInterrupted()

        if report.hasFailures {
            let failed = report.summaries.filter { !$0.isOK }.map { "\($0.key)" }
            throw BenchError(.backendFailed, "\(failed.count) case(s) failed: \(failed.joined(separator: ", "))")
        }
        if regressed {
            throw ExitCode(ExitStatus.regression.rawValue)
        }
    }

    private func loadBackends() throws(BenchError) -> [any PKCEBackend] {
        do {
            return try allBackends()
        } catch {
            throw BenchError(.backendFailed, "a backend cannot be set up: \(error)")
        }
    }

    private func exitIfInterrupted() throws {
        if let signal = InterruptSignals.received {
            throw ExitCode(InterruptSignals.exitStatus(for: signal).rawValue)
        }
    }
}

/// One line on standard error when the compared runs were made in different environments.
func warnAboutEnvironment(_ comparison: Comparison) {
    guard !comparison.environmentDifferences.isEmpty else { return }
    let line = "bench: warning: the runs differ in " + comparison.environmentDifferences.joined(separator: "; ")
        + "; the comparison may reflect that rather than the code\n"
    FileHandle.standardError.write(Data(line.utf8))
}
