import ArgumentParser
import Foundation
import PKCEBackends
import PKCEBenchKit

/// `bench worker`: one of the processes that measure a run, started by the run itself; the
/// options and outputs are ``WorkerProtocol``'s.
struct Worker: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "Measure the selected cases as one process of a run (bench worker --report) or of bench ab (--serve).",
        shouldDisplay: false)

    @OptionGroup var selection: SelectionOptions
    @OptionGroup var measurement: MeasurementOptions

    @Option(help: "This process's number in the run, from 0.")
    var process = 0

    @Option(name: .customLong("of"), help: "How many processes the run has.")
    var count = 1

    @Option(
        help: ArgumentHelp("Where to write the report (a summary CSV, with its samples beside it).", valueName: "file"))
    var report: String?

    @Flag(help: "Calibrate, then take samples when asked on standard input, for bench ab.")
    var serve = false

    @Flag(help: "Check the selected backends' correctness first; exit 70 if one fails.")
    var check = false

    @Flag(name: .customLong("protocol-version"), help: "Print the worker protocol's version and this build's facts.")
    var protocolVersion = false

    @Flag(
        name: .customLong("count-instructions"),
        help: "Run each case's counted calls for Callgrind, and write their account to --report.")
    var countInstructions = false

    func validate() throws {
        guard protocolVersion || serve || report != nil else {
            throw ValidationError("a worker needs --report FILE, --serve or --protocol-version")
        }
    }

    func run() throws {
        if protocolVersion {
            print(
                WorkerProtocol.handshake(for: .current(libraryVersions: loadedLibraryVersions())), terminator: "")
            return
        }
        InterruptSignals.install()
        let backends = try shippedBackends()
        let cases = try selection.selection().cases(from: backends)
        if check {
            for backend in backends where cases.contains(where: { $0.backend.name == backend.name }) {
                if let reason = CorrectnessGate.check(backend) {
                    throw BenchError(.backendFailed, "backend \(backend.name) failed its correctness check: \(reason)")
                }
            }
        }
        if countInstructions {
            // Under Callgrind, started by bench after its correctness gate; or natively with
            // --check, to check a bench ab baseline first.
            return try InstructionCounter.runCountedCalls(cases, reportPath: report ?? "")
        }
        var sampler = Sampler(
            cases: cases, plan: try measurement.plan(),
            observer: serve
                ? nil
                : ProgressPrinter(
                    caseCount: cases.count, prefix: "process \(process + 1)/\(count): ", quietOffTerminal: true),
            interruption: { InterruptSignals.received })
        sampler.process = process
        sampler.allocationCounter = processAllocationCounter
        do {
            if serve {
                let session = try sampler.calibrated()
                let wellFormed = WorkerProtocol.serve(
                    session, readLine: { Swift.readLine(strippingNewline: true) },
                    write: { line in
                        FileHandle.standardOutput.write(Data(line.utf8))
                    })
                if !wellFormed { throw BenchError(.usage, "a serving worker read a line it does not know") }
                return
            }
            let measurements = try sampler.run()
            // The run records its environment once; a worker's report carries its samples only.
            let environment = RunEnvironment(
                runID: "worker-\(process)", timestamp: "", commit: "", build: BuildConfiguration.current, cpu: "",
                cpuFlags: "", cores: 0, kernel: "", swift: "", openssl: "", libsodium: "")
            try ReportFiles.write(
                RunReport(environment: environment, measurements: measurements), summaryAt: report ?? "")
        } catch let interrupted as Interrupted {
            // The run that started this process says that it stopped, once.
            throw ExitCode(InterruptSignals.exitStatus(for: interrupted.signal).rawValue)
        }
    }

    /// The command line of a worker that carries out `assignment`.
    static func arguments(for assignment: MeasuringProcesses.Assignment, plan: SamplingPlan) -> [String] {
        [
            "worker", "--process", String(assignment.index), "--of", String(assignment.count),
            "--report", assignment.reportPath, "--samples", String(assignment.samples),
        ] + WorkerProtocol.arguments(selection: assignment.selection, sampleTime: plan.sampleTime, warmup: plan.warmup)
    }
}
