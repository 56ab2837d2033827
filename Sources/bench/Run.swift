import ArgumentParser
import Foundation
import PKCEBackends
import PKCEBenchKit

/// The default subcommand: check the backends, measure the selected cases, write the reports.
struct Run: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check every backend, measure the selected cases and write CSV reports (the default).")

    @OptionGroup var selection: SelectionOptions
    @OptionGroup var measurement: MeasurementOptions
    @OptionGroup var output: OutputOptions

    func run() throws {
        InterruptSignals.install()
        let results = ResultsDirectory(path: output.directory)
        try results.prepare()
        let plan = try measurement.plan()
        let format = try output.format()

        let backends = try loadBackends()
        let cases = try selection.selection().cases(from: backends)
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
        let written = try results.save(report)
        progress.note("wrote \(written.map(\.lastPathComponent).joined(separator: ", ")) to \(results.url.path)")
        print(SummaryFormatter.render(report.summaries, as: format), terminator: "")
        try exitIfInterrupted()

        if report.hasFailures {
            let failed = report.summaries.filter { !$0.isOK }.map { "\($0.key)" }
            throw BenchError(.backendFailed, "\(failed.count) case(s) failed: \(failed.joined(separator: ", "))")
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
