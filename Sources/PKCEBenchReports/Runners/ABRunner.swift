import Foundation
import PKCE
import PKCEBenchKit

/// `bench ab` and `bench pair`: checks the baseline and the output directory, runs the
/// correctness gate, measures both sides with ``ABMeasurement``, compares them case by case with
/// the pair of processes as the statistical unit, and writes the reports.
public struct ABRunner {
    /// This build's backends: the case list, and the in-process correctness check.
    public var backends: [any PKCEBackend]
    /// Which cases to measure.
    public var selection: Selection
    /// The warm-up and sample time of every process, and the samples per case of each build,
    /// shared out among the pairs.
    public var plan: SamplingPlan
    /// How many pairs of processes measure each case before each look.
    public var pairs: Int
    /// How many looks at the most: the cases still open after a look's pairs are measured in
    /// another `pairs` pairs, up to `pairs × looks` in all (see ``SequentialGate``).
    public var looks: Int = 1

    /// When a change counts.
    public var criteria: ComparisonCriteria
    /// Where the reports go.
    public var output: ResultsDirectory
    /// What standard output shows.
    public var format: OutputFormat
    /// The other build's `bench`: the baseline.
    public var baselineExecutable: String
    /// This build's `bench`, to start its workers.
    public var currentExecutable: String
    /// What this build says of itself when described.
    public var currentFacts: WorkerProtocol.BuildFacts
    /// Reads this run's environment; called once the inputs have been checked.
    public var environment: () -> RunEnvironment
    /// Receives standard output's text.
    public var standardOutput: (String) -> Void
    /// Receives progress and warnings.
    public var progress: ProgressPrinter
    /// Asked between samples whether a signal asked the run to stop.
    public var interruption: () -> Int32? = { nil }
    /// Counts instructions under Callgrind instead of timing, when set (`--metric instructions`):
    /// its ``InstructionCounter/executable`` is this build's, and a copy of it counts the
    /// baseline's. Counts repeat exactly, so the builds are counted one after the other, not in
    /// pairs of processes.
    public var instructionCounter: InstructionCounter?
    /// Two backends of this build to measure against each other in place of two builds, when
    /// set (`bench pair`): both sides' workers run this build, ``baselineExecutable`` is
    /// ``currentExecutable``, and ``selection`` names the current backend only, whose every case
    /// the baseline side measures in the baseline backend (`--filter` and `--skip` match the
    /// current backend's case names).
    public var backendPair: BackendPair?

    /// Creates a runner; see the properties for what each argument is.
    public init(
        backends: [any PKCEBackend], selection: Selection, plan: SamplingPlan, pairs: Int,
        criteria: ComparisonCriteria, output: ResultsDirectory, format: OutputFormat, baselineExecutable: String,
        currentExecutable: String, currentFacts: WorkerProtocol.BuildFacts, environment: @escaping () -> RunEnvironment,
        standardOutput: @escaping (String) -> Void, progress: ProgressPrinter
    ) {
        self.backends = backends
        self.selection = selection
        self.plan = plan
        self.pairs = pairs
        self.criteria = criteria
        self.output = output
        self.format = format
        self.baselineExecutable = baselineExecutable
        self.currentExecutable = currentExecutable
        self.currentFacts = currentFacts
        self.environment = environment
        self.standardOutput = standardOutput
        self.progress = progress
    }

    /// The pairs of processes before each look: ``ABMeasurement/standardPairs``.
    public static let standardPairs = ABMeasurement.standardPairs
    /// The most looks by default: ``ABMeasurement/standardLooks``.
    public static let standardLooks = ABMeasurement.standardLooks
    /// The pairs of processes of `bench ab --quick`: ``ABMeasurement/quickPairs``.
    public static let quickPairs = ABMeasurement.quickPairs

    /// The names of the files a run writes in ``output``.
    public enum Files {
        /// The baseline build's summary; its samples go beside it.
        public static let baseline = "ab-baseline.csv"
        /// This build's summary; its samples go beside it.
        public static let current = "ab-current.csv"
        /// The comparison, one row per case, as `--format csv` prints it (with CRLF line ends).
        public static let comparison = "ab-comparison.csv"
        /// This build's results and the comparison as one page, as `latest.html` is for a run.
        public static let page = "ab.html"
    }

    /// Measures both builds and compares them.
    ///
    /// The baseline executable is checked first (its hello and description), then the output
    /// directory and
    /// this build's backends; nothing is measured until all three pass.
    ///
    /// - Returns: ``ExitStatus/ok``, ``ExitStatus/regression`` or ``ExitStatus/inconclusive``.
    /// - Throws: ``BenchError``: 66 or 65 for a baseline executable that is missing or is not a
    ///   `bench` of this worker protocol, 65 for a debug build against a release build or, when
    ///   counting instructions, for a baseline that cannot count them, 64 for a baseline built
    ///   for AVX-512 when counting, 73 for the output directory, 70 when a backend fails its
    ///   correctness check in either build or a worker fails, 130 or 143 when a signal stopped
    ///   the run (nothing is written).
    public func run() throws(BenchError) -> ExitStatus {
        let baselineFacts = try WorkerProtocol.check(executableAt: baselineExecutable)
        guard baselineFacts.build == currentFacts.build else {
            throw BenchError(
                .malformedInput,
                "cannot compare \(baselineExecutable) (\(baselineFacts.build) build) with this \(currentFacts.build) "
                    + "build: figures of a debug build say nothing about a release build")
        }
        if instructionCounter != nil {
            guard baselineFacts.metrics.contains(.instructions) else {
                throw .malformed(
                    baselineExecutable,
                    "cannot count instructions: its workers offer no instructions metric")
            }
            try InstructionCounter.requireCountable(targetCPU: baselineFacts.targetCPU, of: baselineExecutable)
        }
        try output.prepare(checkingHistory: false)
        let current = environment()
        let cases = try selection.cases(from: backends)
        guard !cases.isEmpty else { throw BenchError(.usage, "the options select no case") }
        if current.build != "release" {
            progress.note(
                "warning: this is a debug build; its figures are not representative (use swift run -c release bench)")
        }
        // Correctness before speed, in both builds: this one here, the baseline in its first worker.
        let pairedBaseline = Set([backendPair?.baseline].compactMap { $0 })
        if let failure = CorrectnessGate.failures(among: backends, usedBy: cases, alsoChecking: pairedBaseline).first {
            throw BenchError(
                .backendFailed, "backend \(failure.backend) failed its correctness check: \(failure.reason)")
        }

        let measurement = ABMeasurement(
            backends: backends, selection: selection, plan: plan, pairs: pairs, looks: looks, criteria: criteria,
            baselineExecutable: baselineExecutable, currentExecutable: currentExecutable, progress: progress,
            interruption: interruption, instructionCounter: instructionCounter, backendPair: backendPair)
        let measured = try measurement.measure(cases)
        progress.finish()
        if let signal = interruption() { throw InterruptSignals.error(for: signal) }

        let baselineEnvironment = ABMeasurement.environment(of: baselineFacts, at: baselineExecutable, beside: current)
        let reports = zip([baselineEnvironment, current], measured).map { environment, build in
            var environment = environment
            // Counted rows record the CPU features each worker saw under Valgrind.
            if let cpuFlags = build.cpuFlags { environment.cpuFlags = cpuFlags }
            return RunReport(environment: environment, measurements: build.measurements)
        }
        let comparison = try Comparison(
            baseline: comparisonData(of: reports[0], build: 0), current: comparisonData(of: reports[1], build: 1),
            criteria: criteria, pairing: .byProcess, looks: measurement.schedule)

        // Locked, so that two `ab` runs into one directory cannot leave a mix of their files.
        try DirectoryLock.withLock(on: output.url) { () throws(BenchError) in
            var files = AtomicFiles()
            defer { files.discard() }
            for (name, report) in zip([Files.baseline, Files.current], reports) {
                let summary = output.url.appendingPathComponent(name)
                try files.stage(ReportSchema.encode(report.summaries, columns: ReportSchema.summary), at: summary)
                try files.stage(
                    ReportSchema.encode(report.samples, columns: ReportSchema.samples),
                    at: output.samplesURL(of: summary))
            }
            try files.stage(
                ComparisonFormatter.csv(comparison, lineEnding: .crlf),
                at: output.url.appendingPathComponent(Files.comparison))
            try files.stage(
                HTMLReport.page(reports[1], comparison: comparison), at: output.url.appendingPathComponent(Files.page))
            try files.commit()
        }
        progress.note(
            "wrote \(Files.baseline), \(Files.current) (and their samples), \(Files.comparison), \(Files.page) to "
                + output.url.path)

        comparison.warnings.forEach(progress.note)
        standardOutput(ComparisonFormatter.render(comparison, as: format))
        let failed = reports.flatMap { report in report.summaries.filter { !$0.isOK }.map { "\($0.key)" } }
        if !failed.isEmpty {
            throw BenchError(.backendFailed, "\(failed.count) case(s) failed: \(failed.joined(separator: ", "))")
        }
        return comparison.status
    }

    /// What the comparison reads of side `build`'s report. Two backends' rows take the pair's
    /// label as their backend, so that each case of one meets its counterpart in the other; the
    /// reports written keep the backends' own names.
    private func comparisonData(of report: RunReport, build: Int) -> RunData {
        guard let backendPair else {
            return RunData(
                name: build == 0 ? baselineExecutable : "this build", summaries: report.summaries,
                samples: report.samples)
        }
        func relabelled<Row: CaseRow>(_ rows: [Row]) -> [Row] {
            rows.map { row in
                var row = row
                row.backend = backendPair.label
                return row
            }
        }
        return RunData(
            name: build == 0 ? backendPair.baseline : backendPair.current, summaries: relabelled(report.summaries),
            samples: relabelled(report.samples))
    }

}
