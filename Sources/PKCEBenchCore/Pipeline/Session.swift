/// One command from its plan to its outcome: the one way `bench`, `bench baseline`, `bench ab`,
/// `bench pair`, `bench compare`, `bench backfill`, `bench bisect` and `bench history --confirm`
/// check their inputs, measure (or read) their runs and compare them. What becomes of the outcome
/// (files, standard output, exports, the exit status) is the command line's.
///
/// A session is made in two steps, so that a command can make its output directory between
/// them: ``init(_:)`` checks the plan's inputs, and ``run()`` measures and compares. The command
/// line reads the files a plan holds.
package struct Session {
    /// What a session measures or reads, and what it compares the result with.
    package enum Plan {
        /// A run of the pipeline's cases alone, by ``SampleSource``, in `environment`: this build's,
        /// or another build's through its workers; compared with a stored run when one is given.
        case alone(Pipeline, SampleSource, environment: RunEnvironment, against: Stored? = nil)
        /// Two sides measured side by side and compared as the paired gate decided while measuring.
        case sideBySide(Pipeline, Pipeline.SideBySide, current: Build)
        /// A run read from a file, compared with another: nothing is measured.
        case stored(RunResult, against: Stored)
    }

    /// A run read from a file to compare with, and how.
    package struct Stored {
        package var run: RunResult
        package var criteria: ComparisonCriteria
        /// How far each case moves between runs, from a history; ``RunToRunSpread/unmeasured``
        /// without one.
        package var runToRun: RunToRunSpread

        package init(_ run: RunResult, criteria: ComparisonCriteria, runToRun: RunToRunSpread = .unmeasured) {
            self.run = run
            self.criteria = criteria
            self.runToRun = runToRun
        }

        /// Checks that a run to be made in `build`, measuring `metric`, may be compared with this
        /// one, before it is measured.
        ///
        /// - Throws: ``BenchError`` (`.malformedInput`) when one is a debug build and the other a
        ///   release build, or one counts instructions and the other is timed.
        package func requireComparable(build: BuildConfiguration?, metric: Metric) throws(BenchError) {
            try Comparison.requireSameBuild(run, "this run", build: build)
            try Comparison.requireSameMetric(run, "this run", metric: metric)
        }
    }

    /// The current side's build, as its worker describes it, and the environment of its run.
    package struct Build {
        package var facts: WorkerProtocol.BuildFacts
        package var environment: RunEnvironment

        package init(facts: WorkerProtocol.BuildFacts, environment: RunEnvironment) {
            self.facts = facts
            self.environment = environment
        }
    }

    /// What a session came to.
    package struct Outcome {
        /// The baseline side's run, when two sides were measured.
        package var baseline: RunResult?
        /// The run measured alone, the current side's, or the stored current run.
        package var current: RunResult
        /// The comparison with the stored run, or of the two sides, with the gate's decisions;
        /// `nil` for a run alone without a stored one.
        package var comparison: Comparison?

        /// The runs measured now, the baseline first: none when both were read from files.
        package var measured: [RunResult] {
            wasMeasured ? [baseline, current].compactMap { $0 } : []
        }

        fileprivate let wasMeasured: Bool
    }

    package let plan: Plan
    /// What ``run()`` does: measures and compares what ``init(_:)`` checked.
    private let measureAndCompare: () throws(BenchError) -> Outcome

    /// Checks the plan's inputs: a stored run's build and metric against the other run's, and
    /// for two sides the baseline executable (its hello and description), its build against the
    /// current one's, and under Callgrind that it can be counted. Nothing is measured.
    ///
    /// - Throws: ``BenchError``: `.malformedInput` naming the input, `.usage` when the selection
    ///   selects no case of two sides, and what ``WorkerProtocol/check(executableAt:)`` and
    ///   ``InstructionCounter/requireCountable(targetCPU:of:)`` throw.
    package init(_ plan: Plan) throws(BenchError) {
        self.plan = plan
        switch plan {
        case .alone(let pipeline, let source, let environment, let stored):
            try stored?.requireComparable(build: environment.build, metric: source.metric)
            measureAndCompare = { () throws(BenchError) in
                try Self.measure(source, with: pipeline, in: environment, against: stored)
            }
        case .sideBySide(let pipeline, let sideBySide, let current):
            let sides = sideBySide.sides
            let executable = sides.executable(of: .baseline)
            let facts = try WorkerProtocol.check(executableAt: executable)
            if case .relinked(_, let current) = sides {
                _ = try WorkerProtocol.check(executableAt: current.executable)
            }
            guard facts.build == current.facts.build else {
                throw BenchError(
                    .malformedInput,
                    "cannot compare \(executable) (\(facts.build) build) with this \(current.facts.build) "
                        + "build: figures of a debug build say nothing about a release build")
            }
            if sideBySide.counter != nil {
                guard facts.metrics.contains(.instructions) else {
                    throw .malformed(executable, "cannot count instructions: its workers offer no instructions metric")
                }
                try InstructionCounter.requireCountable(targetCPU: facts.targetCPU, of: executable)
            }
            guard !(try pipeline.selection.cases(from: pipeline.backends)).isEmpty else {
                throw BenchError(.usage, "the options select no case")
            }
            let baseline = RunEnvironment.baseline(
                facts, at: executable, commit: sideBySide.baselineCommit, beside: current.environment)
            measureAndCompare = { () throws(BenchError) in
                try Self.measure(
                    sideBySide, with: pipeline, in: BothSides { $0 == .baseline ? baseline : current.environment })
            }
        case .stored(let current, let stored):
            try Comparison.requireSameBuild(stored.run, current.name, build: current.recordedEnvironment?.build)
            _ = try Comparison.requireSameMetric(stored.run, current)
            measureAndCompare = { () throws(BenchError) in
                Outcome(current: current, comparison: try Self.compare(current, with: stored), wasMeasured: false)
            }
        }
    }

    /// Measures the plan (a case that fails while measured is failed; the others complete) and
    /// compares it: with a stored run on their samples, or two sides measured side by side with
    /// the decisions their gate took.
    ///
    /// - Throws: ``BenchError``: what ``Pipeline/measure(_:as:)`` throws, and `.interrupted` or
    ///   `.terminated` when a signal came after the last sample.
    package func run() throws(BenchError) -> Outcome {
        try measureAndCompare()
    }

    /// `run` compared with a stored run: the one comparison of a run with one read from a file.
    private static func compare(_ run: RunResult, with stored: Stored) throws(BenchError) -> Comparison {
        try Comparison(baseline: stored.run, current: run, criteria: stored.criteria, runToRun: stored.runToRun)
    }

    /// The pipeline's cases measured alone in `environment`, and compared with `stored`.
    private static func measure(
        _ source: SampleSource, with pipeline: Pipeline, in environment: RunEnvironment, against stored: Stored?
    ) throws(BenchError) -> Outcome {
        let cases = try pipeline.selection.cases(from: pipeline.backends)
        warnIfDebug(environment, progress: pipeline.progress)
        let measured = try pipeline.measure(cases, as: .alone(source))
        var environment = environment
        // Counted rows record the CPU features and libraries the worker saw under Valgrind.
        measured.counted[.current]?.record(in: &environment)
        let run = RunResult(environment: environment, measurements: measured.current)
        let comparison = try stored.map { stored throws(BenchError) in try compare(run, with: stored) }
        // A signal that came after the last sample still means: write nothing.
        try pipeline.cancellation.check()
        return Outcome(current: run, comparison: comparison, wasMeasured: true)
    }

    /// Both sides measured side by side in their environments, and compared with the decisions
    /// the gate took: the one comparison of runs measured side by side.
    private static func measure(
        _ sideBySide: Pipeline.SideBySide, with pipeline: Pipeline, in environments: BothSides<RunEnvironment>
    ) throws(BenchError) -> Outcome {
        let sides = sideBySide.sides
        let cases = try pipeline.selection.cases(from: pipeline.backends)
        warnIfDebug(environments.current, progress: pipeline.progress)
        let measured = try pipeline.measure(cases, as: .sideBySide(sideBySide))
        let runs = BothSides { side in
            var environment = environments[side]
            // Counted rows record the CPU features and libraries each worker saw under Valgrind.
            measured.counted[side]?.record(in: &environment)
            return RunResult(
                environment: environment, measurements: side == .current ? measured.current : measured.baseline ?? [])
        }
        // Two backends' cases take one name in the comparison, so that each meets its
        // counterpart; the reports keep the backends' own names.
        let compared = BothSides { side in runs[side].named(sides.name(of: side), backend: sides.comparedBackend) }
        let comparison = try Comparison(
            baseline: compared.baseline, current: compared.current, criteria: sideBySide.criteria,
            pairing: .byProcess, looks: sideBySide.looks,
            gateDecisions: Dictionary(
                uniqueKeysWithValues: measured.decisions.map { ($0.key.withBackend(sides.comparedBackend), $0.value) }),
            layout: sides.layout)
        try pipeline.cancellation.check()
        return Outcome(baseline: runs.baseline, current: runs.current, comparison: comparison, wasMeasured: true)
    }

    private static func warnIfDebug(_ environment: RunEnvironment, progress: any ProgressObserver) {
        if environment.build != .release {
            progress.note(
                "warning: this is a debug build; its figures are not representative (use swift run -c release bench)")
        }
    }
}
