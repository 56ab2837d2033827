import Foundation
import PKCE

/// How a run of this build's cases alone takes each case's figure.
package enum SampleSource {
    /// Samples taken in this process, allocations counted with the counter when there is one.
    case inProcess(allocationCounter: AllocationCounter?)
    /// Samples taken in worker processes, one after another, and pooled.
    case processes(MeasuringProcesses)
    /// Instructions counted under Callgrind, in one worker.
    case instructions(InstructionCounter)

    package var metric: Metric {
        if case .instructions = self { return .instructions }
        return .time
    }
}

/// The one way a run is measured, from the correctness check to each case's measurement:
/// `bench`, `bench ab`, `bench pair` and `--metric instructions` differ only in the mode they
/// measure in (``Mode``: one side or two, and how a sample is taken) and the selection.
package struct Pipeline {
    /// This build's backends, in report order.
    package var backends: [any PKCEBackend]
    /// Which cases to measure: the current side's.
    package var selection: Selection
    package var plan: SamplingPlan
    package var progress: any ProgressObserver
    /// Asked between samples whether a signal asked the run to stop.
    package var cancellation: Cancellation

    package init(
        backends: [any PKCEBackend], selection: Selection, plan: SamplingPlan, progress: any ProgressObserver,
        cancellation: Cancellation
    ) {
        self.backends = backends
        self.selection = selection
        self.plan = plan
        self.progress = progress
        self.cancellation = cancellation
    }

    /// What a run measures: this build's cases alone, or two sides side by side. Each mode holds
    /// only what it uses, so no combination of the two is left for ``measure(_:as:)`` to refuse.
    package enum Mode {
        /// This build's cases, their figures taken by the source.
        case alone(SampleSource)
        /// Two sides, timed in pairs of worker processes or counted.
        case sideBySide(SideBySide)

        /// The sides measured: the current alone, or both.
        var sides: [Side] {
            if case .sideBySide = self { return Side.allCases }
            return [.current]
        }

        /// The correctness policy, one function of the mode: whether `side`'s workers check its
        /// backends before they measure, because it is another build's. This build's backends are
        /// checked in this process, once, before anything is measured.
        package func checksInWorkers(_ side: Side) -> Bool {
            switch self {
            case .alone(.processes(let processes)): side == .current && processes.isAnotherBuild
            case .alone: false
            case .sideBySide(let sideBySide): sideBySide.sides.isAnotherBuild(side)
            }
        }
    }

    /// Two sides measured side by side, and how they are decided.
    package struct SideBySide {
        package var sides: Sides
        /// When the paired gate looks, and at the most how many pairs it takes.
        package var looks: LookSchedule
        /// When a change counts.
        package var criteria: ComparisonCriteria
        /// `nil`: timed, in pairs of worker processes alive at once, one per side (see
        /// ``PairedProcesses``), the gate deciding between looks which cases are still open; else
        /// instructions counted under Callgrind, in one worker per side, the baseline first: counts
        /// repeat exactly, so there is nothing to pair.
        package var counter: InstructionCounter?
        /// The baseline build's commit, when its executable is not in a checkout of it: a build
        /// that `bench ab --against`, `bench bisect` or `--confirm` made.
        package var baselineCommit: String?

        package init(
            sides: Sides, looks: LookSchedule, criteria: ComparisonCriteria, counter: InstructionCounter? = nil,
            baselineCommit: String? = nil
        ) {
            self.sides = sides
            self.looks = looks
            self.criteria = criteria
            self.counter = counter
            self.baselineCommit = baselineCommit
        }
    }

    /// Each side's measurements.
    package struct Measured {
        package var current: [CaseMeasurement]
        /// `nil` without two sides. A side lacks the cases its build does not have (a case a newer
        /// build added).
        package var baseline: [CaseMeasurement]?
        /// What each side's Callgrind worker saw under Valgrind, when counted.
        package var counted: [Side: CountedCalls] = [:]
        /// The paired gate's decisions, as it took them while measuring, by the current side's case
        /// key; empty for other sources.
        package var decisions: [CaseKey: GateDecision] = [:]
    }

    /// Checks the backends `cases` use, as ``Mode/checksInWorkers(_:)`` says, then measures the
    /// cases in `mode`: this build's backends here, another build's by its first worker, which the
    /// job asks to. A case that fails while measured is failed; the others complete.
    ///
    /// - Throws: ``BenchError``: `.backendFailed` when a backend fails the correctness check or a
    ///   worker fails; `.interrupted`, `.terminated`.
    package func measure(_ cases: [BenchmarkCase], as mode: Mode) throws(BenchError) -> Measured {
        var checkedHere: Set<String> = []
        for side in mode.sides where !mode.checksInWorkers(side) {
            if case .sideBySide(let sideBySide) = mode {
                checkedHere.formUnion(cases.map { sideBySide.sides.key(of: $0.key, on: side).backend })
            } else {
                checkedHere.formUnion(cases.map(\.backend.name))
            }
        }
        try Correctness.require(backends, named: checkedHere)
        defer { progress.finish() }
        switch mode {
        case .alone(.inProcess(let allocationCounter)):
            var sampler = Sampler(cases: cases, plan: plan, observer: progress, cancellation: cancellation)
            sampler.allocationCounter = allocationCounter
            return Measured(current: try sampler.run())
        case .alone(.processes(let processes)):
            let measurements = try processes.measure(
                cases, selection: narrowed(to: cases), plan: plan, progress: progress,
                check: mode.checksInWorkers(.current))
            for measurement in measurements {
                if let failure = measurement.failure {
                    progress.failed(measurement.key, reason: failure)
                } else {
                    progress.finished(measurement.key, nanosecondsPerOperation: measurement.nanosecondsPerOperation)
                }
            }
            return Measured(current: measurements)
        case .alone(.instructions(let counter)):
            progress.info("counting the instructions of \(cases.count) case(s) under Callgrind")
            let counted = try counter.measure(cases, selection: narrowed(to: cases))
            return Measured(current: counted.measurements, counted: [.current: counted.counted])
        case .sideBySide(let sideBySide):
            let sides = sideBySide.sides
            guard let counter = sideBySide.counter else {
                var paired = PairedProcesses(
                    selection: selection, plan: plan, schedule: sideBySide.looks, criteria: sideBySide.criteria,
                    sides: sides, progress: progress, cancellation: cancellation)
                paired.checkedInWorkers = Set(Side.allCases.filter(mode.checksInWorkers))
                let measured = try paired.measure(cases)
                return Measured(
                    current: measured.sides.current, baseline: measured.sides.baseline, decisions: measured.decisions)
            }
            progress.info("counting the instructions of \(cases.count) case(s) in each build under Callgrind")
            let counted = try BothSides { side throws(BenchError) in
                var counter = counter
                counter.executable = sides.executable(of: side)
                return try counter.measure(
                    cases, selection: sides.selection(selection, on: side, for: cases),
                    check: mode.checksInWorkers(side))
            }
            return Measured(
                current: counted.current.measurements, baseline: counted.baseline.measurements,
                counted: [.baseline: counted.baseline.counted, .current: counted.current.counted])
        }
    }

    /// The selection without the backends none of `cases` uses.
    private func narrowed(to cases: [BenchmarkCase]) -> Selection {
        var narrowed = selection
        narrowed.backends = backends.map(\.name).filter { name in cases.contains { $0.backend.name == name } }
        return narrowed
    }
}

extension RunEnvironment {
    /// The baseline build's environment beside `current`: this run's machine, the baseline's own
    /// build facts, and `commit`, or else the commit of the checkout its executable sits in.
    package static func baseline(
        _ facts: WorkerProtocol.BuildFacts, at executable: String, commit: String? = nil,
        beside current: RunEnvironment
    ) -> RunEnvironment {
        var environment = current
        if let commit {
            environment.recordedCommit = RecordedCommit(recorded: commit)
            environment.commitSource = .build
        } else {
            let directory = URL(fileURLWithPath: executable).resolvingSymlinksInPath().deletingLastPathComponent().path
            environment.recordedCommit = RecordedCommit.checkedOut(in: directory)
            environment.commitSource = .workingTree
        }
        // The current run's timestamp and nonce, the baseline's commit: one id per `ab` run and side.
        var id = RunID(current.runID) ?? RunID(startedAt: current.timestamp, commit: .unknown)
        id.commit = environment.recordedCommit
        id.isBaseline = true
        environment.runID = id.description
        environment.build = facts.build
        environment.targetCPU = facts.targetCPU
        environment.swift = facts.swift
        environment.libraries = facts.libraries
        return environment
    }
}
