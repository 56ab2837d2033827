import ArgumentParser
import Foundation
import PKCEBackends
import PKCEBenchKit

/// `bench worker`: one of the processes that measure a run, started by the run itself.
struct Worker: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Measure the selected cases as one process of a run, and write the report for the run to pool.",
        shouldDisplay: false)

    @OptionGroup var selection: SelectionOptions
    @OptionGroup var measurement: MeasurementOptions

    @Option(help: "This process's number in the run, from 0.")
    var process = 0

    @Option(name: .customLong("of"), help: "How many processes the run has.")
    var count = 1

    @Option(
        help: ArgumentHelp("Where to write the report (a summary CSV, with its samples beside it).", valueName: "file"))
    var report: String

    func run() throws {
        InterruptSignals.install()
        let backends = try shippedBackends()
        let cases = try selection.selection().cases(from: backends)
        var sampler = Sampler(
            cases: cases, plan: try measurement.plan(),
            observer: ProgressPrinter(
                caseCount: cases.count, prefix: "process \(process + 1)/\(count): ", quietOffTerminal: true),
            interruption: { InterruptSignals.received })
        sampler.process = process
        sampler.allocationCounter = processAllocationCounter
        let measurements: [CaseMeasurement]
        do {
            measurements = try sampler.run()
        } catch {
            // The run that started this process says that it stopped, once.
            throw ExitCode(InterruptSignals.exitStatus(for: error.signal).rawValue)
        }
        // The run records its environment once; a worker's report carries its samples only.
        let environment = RunEnvironment(
            runID: "worker-\(process)", timestamp: "", commit: "", build: BuildConfiguration.current, cpu: "",
            cpuFlags: "", cores: 0, kernel: "", swift: "", openssl: "", libsodium: "")
        try ReportFiles.write(RunReport(environment: environment, measurements: measurements), summaryAt: report)
    }

    /// The command line of a worker that carries out `assignment`.
    static func arguments(for assignment: MeasuringProcesses.Assignment, plan: SamplingPlan) -> [String] {
        func milliseconds(_ duration: Duration) -> String {
            let (seconds, attoseconds) = duration.components
            return String(format: "%.6f", Double(seconds) * 1e3 + Double(attoseconds) / 1e15)
        }
        let selection = assignment.selection
        var arguments = [
            "worker", "--process", String(assignment.index), "--of", String(assignment.count),
            "--report", assignment.reportPath, "--samples", String(assignment.samples),
            "--sample-time", milliseconds(plan.sampleTime), "--warmup", milliseconds(plan.warmup),
            "--threads", String(selection.threads),
        ]
        if !selection.backends.isEmpty { arguments += ["--backend", selection.backends.joined(separator: ",")] }
        if !selection.operations.isEmpty {
            arguments += ["--operation", selection.operations.map(\.rawValue).joined(separator: ",")]
        }
        if !selection.sizes.isEmpty {
            arguments += ["--size", selection.sizes.map(String.init).joined(separator: ",")]
        }
        return arguments
    }
}
