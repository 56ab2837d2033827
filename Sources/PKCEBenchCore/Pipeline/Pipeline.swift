import Foundation
import PKCE

/// How a run takes each case's figure.
package enum SampleSource {
    /// Samples taken in this process, allocations counted with the counter when there is one.
    case inProcess(allocationCounter: AllocationCounter?)
    /// Samples taken in worker processes, one after another, and pooled.
    case processes(MeasuringProcesses)
    /// Samples taken in pairs of worker processes, one per side, alive at once (see
    /// ``PairedProcesses``); between looks the gate decides which cases are still open.
    case pairedProcesses
    /// Instructions counted under Callgrind, in one worker per side, the baseline first: counts
    /// repeat exactly, so there is nothing to pair.
    case instructions(InstructionCounter)

    package var metric: Metric {
        if case .instructions = self { return .instructions }
        return .time
    }
}

/// The one way a run is measured, from the correctness check to each case's measurement:
/// `bench`, `bench ab`, `bench pair` and `--metric instructions` differ only in the plan they
/// give it: what the sides are, how a sample is taken, and the selection.
package struct Pipeline {
    /// This build's backends, in report order.
    package var backends: [any PKCEBackend]
    /// Which cases to measure: the current side's.
    package var selection: Selection
    package var plan: SamplingPlan
    /// Two sides measured side by side; `nil` for this build's cases alone.
    package var sideBySide: SideBySide?
    package var source: SampleSource
    package var progress: ProgressPrinter
    /// Asked between samples whether a signal asked the run to stop.
    package var interruption: () -> Int32?

    package init(
        backends: [any PKCEBackend], selection: Selection, plan: SamplingPlan, sideBySide: SideBySide? = nil,
        source: SampleSource, progress: ProgressPrinter, interruption: @escaping () -> Int32?
    ) {
        self.backends = backends
        self.selection = selection
        self.plan = plan
        self.sideBySide = sideBySide
        self.source = source
        self.progress = progress
        self.interruption = interruption
    }

    /// Two sides measured side by side, and how they are decided.
    package struct SideBySide {
        package var sides: Sides
        /// When the paired gate looks, and at the most how many pairs it takes.
        package var looks: LookSchedule
        /// When a change counts.
        package var criteria: ComparisonCriteria

        package init(sides: Sides, looks: LookSchedule, criteria: ComparisonCriteria) {
            self.sides = sides
            self.looks = looks
            self.criteria = criteria
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

    /// Checks the backends `cases` use, then measures the cases: the one place a run checks its
    /// own build's backends; another build's are checked by its first worker, which the job asks
    /// to. A case that fails while measured is failed; the others complete.
    ///
    /// - Throws: ``BenchError``: `.backendFailed` when a backend fails the correctness check or a
    ///   worker fails; `.interrupted`, `.terminated`.
    package func measure(_ cases: [BenchmarkCase]) throws(BenchError) -> Measured {
        let baselineBackends = sideBySide.map { pair in
            Set(cases.map { pair.sides.key(of: $0.key, on: .baseline).backend })
        }
        try Correctness.require(backends, usedBy: cases, alsoChecking: baselineBackends ?? [])
        defer { progress.finish() }
        switch (source, sideBySide) {
        case (.inProcess(let allocationCounter), nil):
            var sampler = Sampler(cases: cases, plan: plan, observer: progress, interruption: interruption)
            sampler.allocationCounter = allocationCounter
            return Measured(current: try sampler.run())
        case (.processes(let processes), nil):
            let measurements = try processes.measure(
                cases, selection: narrowed(to: cases), plan: plan, progress: progress)
            for measurement in measurements {
                if let failure = measurement.failure {
                    progress.failed(measurement.key, reason: failure)
                } else {
                    progress.finished(measurement.key, nanosecondsPerOperation: measurement.nanosecondsPerOperation)
                }
            }
            return Measured(current: measurements)
        case (.instructions(let counter), nil):
            progress.info("counting the instructions of \(cases.count) case(s) under Callgrind")
            let counted = try counter.measure(cases, selection: narrowed(to: cases))
            return Measured(current: counted.measurements, counted: [.current: counted.counted])
        case (.instructions(let counter), let sideBySide?):
            let sides = sideBySide.sides
            progress.info("counting the instructions of \(cases.count) case(s) in each build under Callgrind")
            let counted = try BothSides { side throws(BenchError) in
                var counter = counter
                counter.executable = sides.executable(of: side)
                return try counter.measure(
                    cases, selection: sides.selection(selection, on: side, for: cases), check: side == .baseline)
            }
            return Measured(
                current: counted.current.measurements, baseline: counted.baseline.measurements,
                counted: [.baseline: counted.baseline.counted, .current: counted.current.counted])
        case (.pairedProcesses, let sideBySide?):
            let paired = PairedProcesses(
                selection: selection, plan: plan, schedule: sideBySide.looks, criteria: sideBySide.criteria,
                sides: sideBySide.sides, progress: progress, interruption: interruption)
            let measured = try paired.measure(cases)
            return Measured(
                current: measured.sides.current, baseline: measured.sides.baseline, decisions: measured.decisions)
        case (.pairedProcesses, nil), (.inProcess, _?), (.processes, _?):
            preconditionFailure("paired processes measure two sides; the other sources, one")
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
