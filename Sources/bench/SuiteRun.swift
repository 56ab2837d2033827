import ArgumentParser
import Foundation
import PKCEBackends
import PKCEBenchKit

/// Wires a run of the suite to this process: the shipped backends, the real environment,
/// standard output and error, and the signals.
struct SuiteRun {
    var selection: Selection
    var plan: SamplingPlan
    var results: ResultsDirectory
    var format: OutputFormat
    var baseline: (path: String, criteria: ComparisonCriteria)?
    var saveAsBaseline = false

    func execute() throws {
        InterruptSignals.install()
        let backends: [any PKCEBackend]
        do {
            backends = try allBackends()
        } catch {
            throw BenchError(.backendFailed, "a backend cannot be set up: \(error)")
        }
        var runner = SuiteRunner(
            backends: backends, selection: selection, plan: plan, results: results, format: format,
            environment: { RunEnvironment.capture(libraryVersions: loadedLibraryVersions()) },
            standardOutput: { print($0, terminator: "") },
            progress: ProgressPrinter(caseCount: selection.cases(from: backends).count))
        runner.baseline = baseline
        runner.saveAsBaseline = saveAsBaseline
        runner.interruption = { InterruptSignals.received }
        let status = try runner.run()
        if status != .ok {
            throw ExitCode(status.rawValue)
        }
    }
}
