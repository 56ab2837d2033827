import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Measures a run's cases in several processes, one after another, and pools their samples.
///
/// A process's timings carry biases of their own: where address-space randomisation placed code
/// and data, which core the process ran on, what else the machine did meanwhile. Measured here,
/// the fastest sample of one case moved by up to 10% from one process to the next while staying
/// within 1% inside a process; pooling samples from several processes averages that out, as
/// pyperf does with its worker processes. Each process calibrates, warms up and samples every
/// case, interleaved, and takes an even share of the samples.
public struct MeasuringProcesses {
    /// What a measuring process is told to do.
    public struct Assignment: Sendable {
        /// Its number, from 0.
        public let index: Int
        /// How many processes there are.
        public let count: Int
        /// The cases it measures: the run's selection, narrowed to the backends that passed the
        /// correctness gate.
        public let selection: Selection
        /// How many samples of each case it takes.
        public let samples: Int
        /// Where it writes its report: a summary CSV, with the samples CSV beside it.
        public let reportPath: String
    }

    /// How many processes to use; fewer when there are not at least two samples for each.
    public var count: Int
    /// The program and arguments that carry out an assignment: normally `bench worker …`.
    public var command: (Assignment) -> (executable: String, arguments: [String])
    /// Asked while a process runs whether a signal asked the run to stop.
    public var interruption: () -> Int32?

    /// Creates a measurer; see the properties for what each argument is.
    public init(
        count: Int, command: @escaping (Assignment) -> (executable: String, arguments: [String]),
        interruption: @escaping () -> Int32?
    ) {
        self.count = count
        self.command = command
        self.interruption = interruption
    }

    /// Measures `cases`, which `selection` makes, with `plan`, its samples shared out among the
    /// processes.
    ///
    /// - Returns: One measurement per case, in the order of `cases`, with the samples of every
    ///   process; a case that failed in any process is failed, and every case is failed when a
    ///   process exited with an error, died, or wrote no readable report.
    /// - Throws: ``BenchError``: 130 or 143 when a signal stopped the run (the running process
    ///   is stopped too); 73 when the temporary directory for their reports cannot be made.
    public func measure(
        _ cases: [BenchmarkCase], selection: Selection, plan: SamplingPlan, progress: ProgressPrinter?
    ) throws(BenchError) -> [CaseMeasurement] {
        guard !cases.isEmpty else { return [] }
        let processes = max(1, min(count, plan.samples / 2))
        let directory = try makeScratchDirectory(for: "the measuring processes")
        defer { try? FileManager.default.removeItem(at: directory) }

        var parts: [CaseKey: [CaseMeasurement]] = [:]
        let started = MonotonicClock.now()
        for index in 0..<processes {
            let elapsed = Double(MonotonicClock.now() - started) / 1e9
            progress?.process(
                index, of: processes,
                remainingSeconds: index == 0 ? nil : elapsed / Double(index) * Double(processes - index))
            let assignment = Assignment(
                index: index, count: processes, selection: selection,
                samples: plan.samples / processes + (index < plan.samples % processes ? 1 : 0),
                reportPath: directory.appendingPathComponent("process-\(index).csv").path)
            // A process's failure is not tied to one case: every case fails with it, and the
            // processes left are spared a crash that would most likely repeat.
            switch run(assignment) {
            case .finished: break
            case .failed(let reason): return cases.map { .failed($0.key, reason: reason) }
            case .interrupted(let signal): throw InterruptSignals.error(for: signal)
            }
            let measured: [CaseMeasurement]
            do {
                measured = try read(assignment, cases: cases)
            } catch {
                let reason = "measuring process \(index + 1) wrote no readable report: \(error.message)"
                return cases.map { .failed($0.key, reason: reason) }
            }
            for measurement in measured {
                parts[measurement.key, default: []].append(measurement)
            }
        }
        return cases.map { CaseMeasurement.merging(parts[$0.key] ?? [], key: $0.key) }
    }

    /// Runs one process to its end, stopping it when a signal asks the run to stop.
    private func run(_ assignment: Assignment) -> ChildProcess.Outcome {
        let (executable, arguments) = command(assignment)
        let process: ChildProcess
        do {
            process = try ChildProcess(executable: executable, arguments: arguments)
        } catch {
            return .failed(error.message)
        }
        return process.waitWatching(name: "measuring process \(assignment.index + 1)", interruption: interruption)
    }

    /// The measurements a finished process reported.
    private func read(_ assignment: Assignment, cases: [BenchmarkCase]) throws(BenchError) -> [CaseMeasurement] {
        let summaries = try ReportFiles.readSummary(at: assignment.reportPath)
        let samples = Dictionary(
            grouping: try ReportFiles.readSamples(at: ReportFiles.samplesPath(for: assignment.reportPath)), by: \.key)
        let reported = Dictionary(summaries.map { ($0.key, $0) }, uniquingKeysWith: { first, _ in first })
        return cases.map { benchmark in
            let key = benchmark.key
            guard let row = reported[key] else {
                return .failed(key, reason: "measuring process \(assignment.index + 1) did not report it")
            }
            guard row.isOK else { return .failed(key, reason: row.error) }
            let taken = (samples[key] ?? []).sorted { $0.sample < $1.sample }.map {
                Sample(
                    iterations: $0.iterations, nanosecondsPerOperation: $0.nsPerOp, process: assignment.index,
                    allocations: $0.allocations)
            }
            return CaseMeasurement(key: key, samples: taken, failure: nil)
        }
    }
}
