import ArgumentParser
import Foundation
import PKCEBackends
import PKCEBenchKit

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
            progress: ProgressPrinter(caseCount: selection.cases(from: backends).count))
        runner.baseline = baseline
        runner.saveAsBaseline = saveAsBaseline
        runner.interruption = { InterruptSignals.received }
        runner.allocationCounter = processAllocationCounter
        if metric == .instructions {
            let plan = plan
            let tools = try Self.toolsForCounting(selection)
            runner.instructionCounter = InstructionCounter(
                valgrind: tools.valgrind, objcopy: tools.objcopy,
                command: { report, selection in
                    (
                        Self.executable,
                        ["worker", "--count-instructions", "--report", report]
                            + WorkerProtocol.arguments(
                                selection: selection, sampleTime: plan.sampleTime, warmup: plan.warmup)
                    )
                },
                interruption: { InterruptSignals.received })
        } else if processes > 1 {
            let plan = plan
            runner.processes = MeasuringProcesses(
                count: processes, command: { (Self.executable, Worker.arguments(for: $0, plan: plan)) },
                interruption: { InterruptSignals.received })
        }
        let status = try runner.run()
        if status != .ok {
            throw ExitCode(status.rawValue)
        }
    }

    /// The `valgrind` and `objcopy` to count instructions with, once it is clear that this build
    /// and selection can be counted.
    ///
    /// - Throws: ``BenchError``: 64 for more than one thread (instructions are counted on one) or
    ///   for a build with AVX-512 code, which Valgrind cannot run; 69 when a tool is missing.
    static func toolsForCounting(_ selection: Selection) throws(BenchError) -> (valgrind: String, objcopy: String) {
        guard selection.threads == 1 else {
            throw BenchError(.usage, "--metric instructions counts on one thread; leave out --threads")
        }
        // Valgrind 3.19 does not emulate AVX-512: such code would die of SIGILL under it.
        guard BuildConfiguration.targetCPU != "x86-64-v4" else {
            throw BenchError(
                .usage,
                "--metric instructions cannot count this build: it was compiled for x86-64-v4 (AVX-512, as "
                    + "-target-cpu native gives here), which Valgrind cannot run; count a build without -target-cpu")
        }
        guard let valgrind = InstructionCounter.executableInPath("valgrind") else {
            throw BenchError(
                .toolMissing,
                "--metric instructions needs valgrind, which is not installed (apt-get install -y valgrind)")
        }
        guard let objcopy = InstructionCounter.executableInPath("objcopy") else {
            throw BenchError(
                .toolMissing,
                "--metric instructions needs objcopy, which is not installed (apt-get install -y binutils)")
        }
        return (valgrind, objcopy)
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
        throw BenchError(.backendFailed, "a backend cannot be set up: \(error)")
    }
}
