import Foundation
import PKCEBenchCore
import PKCEBenchReports

extension Session.Plan {
    /// A run of this program's backends alone, wired to this process, its signals and its
    /// `bench worker` processes: in this process with one process, else in `processes` workers
    /// one after another; under Callgrind for instructions.
    ///
    /// With a `baseline` summary, the run is compared with it; the `store`'s runs of this host, or
    /// without one the history in `results`, measure the spread between runs. Both are read and
    /// checked before measuring, so that a malformed one costs nothing.
    static func thisProgram(
        selection: Selection, plan: SamplingPlan, processes: Int, metric: Metric, progress: any ProgressObserver,
        against baseline: (path: String, criteria: ComparisonCriteria)? = nil, results: ResultsDirectory,
        store: HistoryStore? = nil
    ) throws(BenchError) -> Session.Plan {
        InterruptSignals.install()
        let environment = RunEnvironment.capture(
            libraries: CommandContext.libraries, buildCommit: CommandContext.buildCommit)
        let source: SampleSource
        if let counter = try InstructionCounter.ofThisProgram(counting: metric, of: selection) {
            source = .instructions(counter)
        } else if processes > 1 {
            source = .processes(
                MeasuringProcesses(count: processes, command: (benchExecutable, ["worker"]), cancellation: .signals))
        } else {
            source = .inProcess(allocationCounter: processAllocationCounter)
        }
        let stored = try baseline.map { baseline throws(BenchError) in
            var stored = Session.Stored(try ReportFiles.run(summaryAt: baseline.path), criteria: baseline.criteria)
            try stored.requireComparable(build: environment.build, metric: metric)
            // Instruction counts repeat exactly: no spread between runs to measure.
            if metric == .time {
                stored.runToRun = try spreadBetweenRuns(
                    like: environment, excluding: [environment.runID, stored.run.recordedEnvironment?.runID ?? ""],
                    store: store, results: results, progress: progress)
            }
            return stored
        }
        return .alone(
            Pipeline(
                backends: CommandContext.backends, selection: selection, plan: plan, progress: progress,
                cancellation: .signals),
            source, environment: environment, against: stored)
    }

    /// The spread between runs like `environment`'s: from the store's runs, every machine's of
    /// this host, when there is a store; otherwise, or with a note when the store cannot be read
    /// (the run is still made, and waits for it), from the results directory's history.
    private static func spreadBetweenRuns(
        like environment: RunEnvironment, excluding excluded: Set<String>, store: HistoryStore?,
        results: ResultsDirectory, progress: any ProgressObserver
    ) throws(BenchError) -> RunToRunSpread {
        if let store {
            do {
                return RunToRunSpread(rows: try store.rows(), like: environment, excluding: excluded)
            } catch  where error.kind == .storeUnavailable || error.kind == .storeRefused {
                progress.note("\(error.message); the spread between runs comes from \(results.history.path)")
            }
        }
        return try RunToRunSpread(
            historyAt: results.history.path, required: false, like: environment, excluding: excluded)
    }

    /// `sides` measured side by side with this program's backends, signals and facts, by
    /// `sampling`, decided by `criteria`; counted when there is a `counter`.
    static func thisProgram(
        _ sides: Sides, selection: Selection, sampling: PairedSampling, criteria: ComparisonCriteria,
        counter: InstructionCounter? = nil, baselineCommit: String? = nil, progress: any ProgressObserver,
        current: Session.Build? = nil
    ) -> Session.Plan {
        let libraries = CommandContext.libraries
        return .sideBySide(
            Pipeline(
                backends: CommandContext.backends, selection: selection, plan: sampling.plan, progress: progress,
                cancellation: .signals),
            .init(
                sides: sides, looks: sampling.looks, criteria: criteria, counter: counter,
                baselineCommit: baselineCommit),
            current: current
                ?? Session.Build(
                    facts: .current(libraries: libraries),
                    environment: RunEnvironment.capture(libraries: libraries, buildCommit: CommandContext.buildCommit)))
    }
}

extension InstructionCounter {
    /// A counter of `selection`'s cases in this program, stopped by signals, when `metric` counts
    /// instructions; `nil` when it times them.
    ///
    /// - Throws: ``BenchError``, as ``forCounting(executable:targetCPU:selection:cancellation:)``.
    static func ofThisProgram(counting metric: Metric, of selection: Selection) throws(BenchError)
        -> InstructionCounter?
    {
        guard metric == .instructions else { return nil }
        return try forCounting(
            executable: benchExecutable, targetCPU: BuildConfiguration.targetCPU, selection: selection,
            cancellation: .signals)
    }
}

extension FormatOptions {
    /// Runs `plan`'s session through a presenter to `results` and the terminal, in this format and
    /// with these exports, and exits with the status its outcome gives.
    func present(
        _ plan: Session.Plan, to results: ResultsDirectory?, progress: any ProgressObserver,
        saveAsBaseline: BaselineName? = nil, store: HistoryStore? = nil, warn: ((String) -> Void)? = nil
    ) throws {
        let format = format
        var presenter = Presenter(
            results: results, format: format, progress: progress, warn: warn,
            standardOutput: { Terminal.write($0, as: format) })
        presenter.exports = try exports()
        presenter.saveAsBaseline = saveAsBaseline
        presenter.store = store
        try ExitStatus(presenter.run(plan)).exitUnlessOK()
    }
}

extension Presenter {
    /// Readies this process for workers: signals stop the run, and a worker that dies cannot take
    /// this process with it through a write to its pipe.
    static func prepareProcess() {
        InterruptSignals.install()
        signal(SIGPIPE, SIG_IGN)
    }
}

extension ProgressPrinter {
    /// A printer of the run of `selection`'s cases of this program's backends.
    convenience init(of selection: Selection, style: Style) throws(BenchError) {
        self.init(caseCount: try selection.cases(from: CommandContext.backends).count, style: style)
    }
}

/// This program, to start it again as a worker.
var benchExecutable: String {
    (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
}
