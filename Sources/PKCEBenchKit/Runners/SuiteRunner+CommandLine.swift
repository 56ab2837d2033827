import ArgumentParser
import Foundation
import PKCEBenchCore
import PKCEBenchReports

extension SuiteRunner {
    /// A runner of the program's backends with the command line's options, wired to this
    /// process, its signals and its `bench worker` processes.
    init(
        selection: Selection, plan: SamplingPlan, processes: Int, results: ResultsDirectory, format: OutputFormat,
        metric: Metric, progress style: ProgressPrinter.Style
    ) throws {
        InterruptSignals.install()
        let backends = CommandContext.backends
        let libraries = CommandContext.libraries
        let buildCommit = CommandContext.buildCommit
        let source: SampleSource
        if metric == .instructions {
            source = .instructions(
                try InstructionCounter.forCounting(
                    executable: benchExecutable, targetCPU: BuildConfiguration.targetCPU, selection: selection,
                    cancellation: .signals))
        } else if processes > 1 {
            source = .processes(
                MeasuringProcesses(
                    count: processes, command: (benchExecutable, ["worker"]),
                    cancellation: .signals))
        } else {
            source = .inProcess(allocationCounter: processAllocationCounter)
        }
        self.init(
            pipeline: Pipeline(
                backends: backends, selection: selection, plan: plan,
                progress: ProgressPrinter(caseCount: try selection.cases(from: backends).count, style: style),
                cancellation: .signals),
            source: source, results: results, format: format,
            environment: { RunEnvironment.capture(libraries: libraries, buildCommit: buildCommit) },
            standardOutput: { Terminal.write($0, as: format) })
    }
}

/// This program, to start it again as a worker.
var benchExecutable: String {
    (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
}
