import ArgumentParser
import Foundation
import PKCEBackends
import PKCEBenchKit
import PKCEBenchReports

/// Wires a run of the suite to this process: the shipped backends, the real environment,
/// standard output and error, the signals, and `bench worker` processes that measure.
struct SuiteRun {
    var selection: Selection
    var plan: SamplingPlan
    var processes: Int
    var results: ResultsDirectory
    var format: OutputFormat
    var baseline: (path: String, criteria: ComparisonCriteria)?
    var saveAsBaseline = false
    var metric = Metric.time

    func execute() throws {
        InterruptSignals.install()
        let backends = try shippedBackends()
        var runner = SuiteRunner(
            backends: backends, selection: selection, plan: plan, results: results, format: format,
            environment: { RunEnvironment.capture(libraryVersions: loadedLibraryVersions()) },
            standardOutput: { print($0, terminator: "") },
            progress: ProgressPrinter(caseCount: try selection.cases(from: backends).count))
        runner.baseline = baseline
        runner.saveAsBaseline = saveAsBaseline
        runner.interruption = { InterruptSignals.received }
        if metric == .instructions {
            runner.source = .instructions(
                try InstructionCounter.forCounting(
                    executable: Self.executable, targetCPU: BuildConfiguration.targetCPU, selection: selection,
                    interruption: { InterruptSignals.received }))
        } else if processes > 1 {
            runner.source = .processes(
                MeasuringProcesses(
                    count: processes, command: (Self.executable, ["worker"]),
                    interruption: { InterruptSignals.received }))
        } else {
            runner.source = .inProcess(allocationCounter: processAllocationCounter)
        }
        let status = try runner.run()
        if status != .ok {
            throw ExitCode(status.rawValue)
        }
    }

    /// This program, to start it again as a worker.
    static var executable: String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    }
}

/// The backends this package ships, in report order.
///
/// - Throws: ``BenchError`` (70) when one cannot be set up (`sodium_init` failing, say).
func shippedBackends() throws(BenchError) -> [any PKCEBackend] {
    do {
        return try allBackends()
    } catch {
        throw BenchError(.backendFailed, "a backend cannot be set up: \(logDescription(of: error))")
    }
}
