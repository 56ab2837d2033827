internal import CPKCESystem
import Foundation
import PKCE

/// Two backends of one build, compared case by case.
public struct BackendPair: Sendable, Equatable {
    /// The backend measured against.
    public var baseline: String
    /// The backend measured.
    public var current: String

    /// Creates a pair.
    public init(baseline: String, current: String) {
        self.baseline = baseline
        self.current = current
    }

    /// The name a case's comparison row gives its backend: `swift-vs-sodium`, so that a
    /// comparison read on its own says which two backends its medians belong to.
    public var label: String { "\(current)-vs-\(baseline)" }
}

/// How `bench ab` and `bench pair` measure: this build and another measured side by side, sample by sample, and compared case
/// by case with the pair of processes as the statistical unit.
///
/// Runs made apart see the machine at different times, and a shared machine drifts between them
/// by more than the changes worth catching. Here each pair of worker processes, one per build,
/// is alive at once; they calibrate their cases, then take every sample in turns, the two samples
/// of a turn back to back, each build first in every other turn, so that whatever the machine
/// does lands on both alike. Both workers (and this process) run on one CPU: a sample that
/// starts on whichever core the scheduler picks, with that core's caches, varied twice as much
/// here (turns' log ratios spread by 20 to 24% across cores, 11 to 12% on one; the pairs' results
/// by 1.8 to 3.3% against 0.7 to 0.9%). Each pair yields one figure per case, the median log ratio of its
/// turns, and the comparison tests those figures, so that a pair whose processes drew unlucky
/// code layouts counts once, not once per sample (see ``Comparison`` with ``Pairing/byProcess``).
public struct ABMeasurement {
    /// This build's backends: the case list.
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
    public var looks: Int
    /// When a change counts: the gate decides at each look which cases are still open.
    public var criteria: ComparisonCriteria
    /// The other build's `bench`: the baseline.
    public var baselineExecutable: String
    /// This build's `bench`, to start its workers.
    public var currentExecutable: String
    /// Receives progress and warnings.
    public var progress: ProgressPrinter
    /// Asked between samples whether a signal asked the run to stop.
    public var interruption: () -> Int32?
    /// Counts instructions under Callgrind instead of timing, when set (`--metric instructions`):
    /// its ``InstructionCounter/executable`` is this build's, and a copy of it counts the
    /// baseline's. Counts repeat exactly, so the builds are counted one after the other, not in
    /// pairs of processes.
    public var instructionCounter: InstructionCounter?
    /// Two backends of this build to measure against each other in place of two builds, when
    /// set (`bench pair`): both sides' workers run this build, ``baselineExecutable`` is
    /// ``currentExecutable``, and ``selection`` names the current backend only, whose every case
    /// the baseline side measures in the baseline backend.
    public var backendPair: BackendPair?

    /// Creates a measurement; see the properties for what each argument is.
    public init(
        backends: [any PKCEBackend], selection: Selection, plan: SamplingPlan, pairs: Int, looks: Int,
        criteria: ComparisonCriteria, baselineExecutable: String, currentExecutable: String,
        progress: ProgressPrinter, interruption: @escaping () -> Int32?, instructionCounter: InstructionCounter?,
        backendPair: BackendPair?
    ) {
        self.backends = backends
        self.selection = selection
        self.plan = plan
        self.pairs = pairs
        self.looks = looks
        self.criteria = criteria
        self.baselineExecutable = baselineExecutable
        self.currentExecutable = currentExecutable
        self.progress = progress
        self.interruption = interruption
        self.instructionCounter = instructionCounter
        self.backendPair = backendPair
    }

    /// The pairs of processes `bench ab` measures every case in before its first look, and
    /// every open case in between two looks.
    ///
    /// Twenty: the pair is the statistical unit, and with fewer the trimmed mean keeps too few
    /// pairs (12 of 20, 11 degrees of freedom) for the suite's Holm-corrected level.
    public static let standardPairs = 20
    /// The most looks by default: three, so 60 pairs of ``standardPairs``.
    public static let standardLooks = 3
    /// The pairs of processes of `bench ab --quick`, in one look.
    public static let quickPairs = 4

    /// When the gate looks: every `pairs` pairs (no more than the samples), `looks` times.
    public var schedule: LookSchedule {
        LookSchedule(pairsPerLook: max(1, min(pairs, plan.samples)), looks: max(1, looks))
    }

    /// Measures `cases` in both builds (or backends), after this build's correctness gate has
    /// passed: the baseline's first worker checks its own.
    ///
    /// - Returns: For each side (baseline first): its cases' measurements, without the cases it
    ///   does not have (a case a newer build added), and, when counted, the CPU features its
    ///   worker saw under Valgrind.
    /// - Throws: ``BenchError``: 70 when a worker fails; 130 or 143 when a signal stopped the run.
    public func measure(_ cases: [BenchmarkCase]) throws(BenchError) -> [(
        measurements: [CaseMeasurement], cpuFlags: String?
    )] {
        if let instructionCounter {
            return try count(cases, with: instructionCounter)
        }
        // One CPU for both builds' samples; several threads per case need several CPUs.
        if selection.threads == 1 {
            let cpu = CPKCESystem_pinToOneCPU()
            let sides = backendPair == nil ? "builds" : "backends"
            progress.note(
                cpu >= 0
                    ? "measuring both \(sides) on CPU \(cpu)"
                    : "warning: cannot pin the measuring processes to one CPU; expect wider intervals")
        }
        return try measureInPairs(cases).map { ($0, nil) }
    }

    /// Counts every case's instructions in both builds under Callgrind, the baseline first; its
    /// worker checks its backends' correctness before it counts.
    ///
    /// - Returns: For each build (baseline first): its cases' counts, without the cases it does
    ///   not have (a case a newer build added), and the CPU features its worker saw.
    private func count(_ cases: [BenchmarkCase], with counter: InstructionCounter) throws(BenchError) -> [(
        measurements: [CaseMeasurement], cpuFlags: String?
    )] {
        var baseline = counter
        baseline.executable = baselineExecutable
        progress.note("counting the instructions of \(cases.count) case(s) in each build under Callgrind")
        return try [(baseline, true), (counter, false)].map { counter, check throws(BenchError) in
            let counted = try counter.measure(cases, selection: selection, check: check)
            return (counted.measurements, counted.cpuFlags)
        }
    }

    /// Takes every case's samples in both builds, pair after pair of processes, look after look:
    /// after each look's pairs the gate decides what it can, and the next look measures only the
    /// cases still open.
    ///
    /// - Returns: For each build (baseline first): its cases' samples, or why they failed,
    ///   without the cases it does not have (a case a newer build added).
    private func measureInPairs(_ cases: [BenchmarkCase]) throws(BenchError) -> [[CaseMeasurement]] {
        var samples = [[[Sample]]](repeating: Array(repeating: [], count: cases.count), count: 2)
        var failures = [[String?]](repeating: Array(repeating: nil, count: cases.count), count: 2)
        var absent = [Set<Int>](repeating: [], count: 2)
        let pairs = schedule.pairsPerLook
        let looks = schedule.looks
        var open = Array(cases.indices)
        var pair = 0
        let copies = ExecutableCopies(warn: progress.note)
        for look in 1...looks {
            if look > 1 {
                progress.note(
                    "look \(look) of \(looks): \(open.count) of \(cases.count) case(s) still open; "
                        + "measuring them in \(pairs) more pairs")
            }
            let started = MonotonicClock.now()
            for index in 0..<pairs {
                let elapsed = Double(MonotonicClock.now() - started) / 1e9
                progress.process(
                    pair, of: pairs * looks,
                    remainingSeconds: index == 0 ? nil : elapsed / Double(index) * Double(pairs - index),
                    unit: "pair")
                try measurePair(
                    pair, of: cases, open: open, share: plan.samples / pairs + (index < plan.samples % pairs ? 1 : 0),
                    copies: copies, into: &samples, failures: &failures, absent: &absent)
                pair += 1
            }
            guard look < looks else { break }
            let figures = cases.indices.map { index in
                Comparison.pairFigures(
                    Self.byProcess(samples[0][index]), Self.byProcess(samples[1][index]))
            }
            let decisions = SequentialGate.replay(figures, schedule: schedule, criteria: criteria)
            open = open.filter { index in
                (decisions[index]?.isOpen ?? true) && failures[0][index] == nil && failures[1][index] == nil
                    && !absent[0].contains(index) && !absent[1].contains(index)
            }
            if open.isEmpty { break }
        }
        return (0..<2).map { build in
            cases.indices.filter { !absent[build].contains($0) }.map { index in
                CaseMeasurement(
                    key: key(of: cases[index], build: build), samples: samples[build][index],
                    failure: failures[build][index])
            }
        }
    }

    /// Measures pair `pair`: a worker of each build, `share` turns of each case in `open`
    /// (indices into `cases`), each worker started from a fresh copy of its executable (see
    /// ``ExecutableCopies``).
    ///
    /// Every worker calibrates every case, open or not: a worker that holds one case measured it
    /// up to 17% slower in half the pairs when it was started second (`verify`, with the same
    /// executable on both sides), and one that holds the whole suite did not. Which build's
    /// worker starts first alternates from pair to pair, so that whatever starting second does
    /// lands on both builds alike, as the order within a turn does.
    private func measurePair(
        _ pair: Int, of cases: [BenchmarkCase], open: [Int], share: Int, copies: ExecutableCopies,
        into samples: inout [[[Sample]]], failures: inout [[String?]], absent: inout [Set<Int>]
    ) throws(BenchError) {
        // Generous: starting, checking and calibrating every case, on a busy machine.
        let readyTimeout = 120 + Double(cases.count) * (plan.warmup.nanoseconds / 1e9 + 0.5)
        let sampleTimeout = max(60, 20 * plan.sampleTime.nanoseconds / 1e9)
        var started = [Worker?](repeating: nil, count: 2)
        do throws(BenchError) {
            for build in pair % 2 == 0 ? [0, 1] : [1, 0] {
                let connection = try WorkerConnection(
                    executable: copies.copy(of: build == 0 ? baselineExecutable : currentExecutable, side: build),
                    arguments: ["worker"], name: "\(build == 0 ? "the baseline's" : "this build's") worker \(pair + 1)",
                    standardError: .captured, helloTimeout: WorkerProtocol.helloTimeout, interruption: interruption)
                let job = WorkerProtocol.Job(
                    selection: selection(build: build, cases: cases), plan: plan, process: pair,
                    processes: schedule.pairsPerLook * schedule.looks, check: build == 0 && pair == 0)
                let reply = try connection.ask(.calibrate(job), within: readyTimeout)
                guard case .calibrated(let keys, let failures) = reply else {
                    throw connection.broken(WorkerProtocol.line(reply))
                }
                started[build] = Worker(connection: connection, keys: keys, failures: failures)
            }
        } catch {
            started.forEach { try? $0?.connection.finish() }
            throw error
        }
        var workers = started.compactMap { $0 }
        // How a worker exits once its pair is measured does not change its samples.
        defer { workers.forEach { try? $0.connection.finish() } }
        // Each case's index in each worker; a build that lacks a case (one a newer build
        // added) cannot measure it, and the comparison lists it as in one build only.
        let indices = (0..<2).map { build in
            cases.map { workers[build].keys.firstIndex(of: key(of: $0, build: build)) ?? -1 }
        }
        for build in 0..<2 {
            for index in open {
                let workerIndex = indices[build][index]
                guard workerIndex >= 0 else {
                    absent[build].insert(index)
                    continue
                }
                if let reason = workers[build].failures[workerIndex], failures[build][index] == nil {
                    failures[build][index] = reason
                }
            }
        }
        var schedule = open.flatMap { Array(repeating: $0, count: share) }
        schedule.shuffle()
        var turns = [Int](repeating: 0, count: cases.count)
        for index in schedule
        where failures[0][index] == nil && failures[1][index] == nil && indices[0][index] >= 0
            && indices[1][index] >= 0
        {
            if let signal = interruption() { throw InterruptSignals.error(for: signal) }
            // ABBA: each build goes first in every other turn of a case, starting with the
            // other build in the next pair.
            let order = (turns[index] + pair) % 2 == 0 ? [0, 1] : [1, 0]
            turns[index] += 1
            var taken: [Sample?] = [nil, nil]
            for build in order {
                taken[build] = try workers[build].sample(indices[build][index], within: sampleTimeout)
            }
            guard let baseline = taken[0], let current = taken[1] else {
                for build in 0..<2 where taken[build] == nil {
                    failures[build][index] = workers[build].failures[indices[build][index]] ?? "failed"
                }
                continue
            }
            samples[0][index].append(baseline)
            samples[1][index].append(current)
        }
    }

    /// Samples' nanoseconds per operation by the process (pair) that took them, in order.
    private static func byProcess(_ samples: [Sample]) -> [Int: [Double]] {
        Dictionary(grouping: samples, by: \.process).mapValues { $0.map(\.nanosecondsPerOperation) }
    }

    /// The key a case has on side `build` (0 the baseline): the baseline backend's counterpart of
    /// the case when two backends are compared, otherwise the case's own.
    private func key(of benchmarkCase: BenchmarkCase, build: Int) -> CaseKey {
        var key = benchmarkCase.key
        if let backendPair, build == 0 { key.backend = backendPair.baseline }
        return key
    }

    /// What side `build`'s worker selects: `cases`. With two backends, the baseline's worker
    /// selects the counterparts of `cases` by their exact names, so that `--filter` and `--skip`
    /// apply to the current backend's names alone.
    private func selection(build: Int, cases: [BenchmarkCase]) -> Selection {
        var selection = selection
        if let backendPair, build == 0 {
            selection.backends = [backendPair.baseline]
            selection.filters = cases.map { "^\(key(of: $0, build: 0))$" }
            selection.skips = []
        }
        return selection
    }

    /// A worker of one side of a pair, its cases calibrated.
    private struct Worker {
        let connection: WorkerConnection
        /// Its cases, in its order.
        let keys: [CaseKey]
        /// Why a case failed in it, by its index.
        var failures: [Int: String]

        /// Takes one sample of the case at `index` of this worker.
        ///
        /// - Returns: The sample, or `nil` when the case failed (``failures`` says why).
        mutating func sample(_ index: Int, within seconds: Double) throws(BenchError) -> Sample? {
            let reply = try connection.ask(.sample(index: index), within: seconds)
            switch reply {
            case .sample(let sample):
                return sample
            case .failed(index, let reason):
                failures[index] = reason
                return nil
            default:
                throw connection.broken(WorkerProtocol.line(reply))
            }
        }
    }

    /// The baseline build's environment: this run's machine, the baseline's own build facts, and
    /// the commit of the checkout its executable sits in.
    public static func environment(
        of facts: WorkerProtocol.BuildFacts, at executable: String, beside current: RunEnvironment
    ) -> RunEnvironment {
        var environment = current
        let directory = URL(fileURLWithPath: executable).resolvingSymlinksInPath().deletingLastPathComponent().path
        environment.commit = SystemFacts.gitCommit(in: directory)
        // The current run's timestamp and nonce, the baseline's commit: one id per `ab` run and side.
        let timestamp = current.runID.prefix { $0 != "-" }
        let nonce = current.runID.split(separator: "-").last ?? ""
        environment.runID = "\(timestamp)-\(environment.commit)-\(nonce)-baseline"
        environment.build = facts.build
        environment.targetCPU = facts.targetCPU
        environment.swift = facts.swift
        environment.openssl = facts.openssl
        environment.libsodium = facts.libsodium
        return environment
    }
}
