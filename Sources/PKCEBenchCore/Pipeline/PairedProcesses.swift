internal import CPKCEHarness

/// How `bench ab` and `bench pair` time: pairs of worker processes, one per side, alive at once on
/// one CPU, taking their samples in turns, each side first in every other turn; each pair gives
/// one figure per case, the median log ratio of its turns (see ``Comparison`` with
/// ``Pairing/byProcess``). The article "Comparing two builds" says why.
package struct PairedProcesses {
    /// Which cases to measure: the current side's.
    var selection: Selection
    /// The warm-up and sample time of every process, and the samples per case of each side,
    /// shared out among the pairs.
    var plan: SamplingPlan
    /// How many pairs of processes measure each case before each look, and how many looks at the
    /// most: the cases still open after a look's pairs are measured in another look's pairs.
    var schedule: LookSchedule
    /// When a change counts: the gate decides at each look which cases are still open.
    var criteria: ComparisonCriteria
    var sides: Sides
    /// The sides whose workers of the first pair check their backends before they calibrate:
    /// another build's, as ``Pipeline/Mode/checksInWorkers(_:)`` decides.
    package var checkedInWorkers: Set<Side> = []
    var progress: any ProgressObserver
    /// Asked between samples whether a signal asked the run to stop.
    var cancellation: Cancellation

    package init(
        selection: Selection, plan: SamplingPlan, schedule: LookSchedule, criteria: ComparisonCriteria, sides: Sides,
        progress: any ProgressObserver, cancellation: Cancellation
    ) {
        self.selection = selection
        self.plan = plan
        self.schedule = schedule
        self.criteria = criteria
        self.sides = sides
        self.progress = progress
        self.cancellation = cancellation
    }

    /// The pairs of processes of each look: with fewer, the trimmed mean keeps too few pairs
    /// (12 of 20, 11 degrees of freedom) for the suite's Holm-corrected level.
    package static let standardPairs = 20
    /// The most looks by default: four, so 80 pairs of ``standardPairs``. A fourth look costs a
    /// run only when a case is still open after the third, and then decides most of them
    /// (VerdictStatistics.md, "How many looks").
    package static let standardLooks = 4
    /// The pairs of processes of `bench ab --quick`, in one look.
    package static let quickPairs = 4
    /// The pairs measured before the first look and then set aside: a pair's workers check their
    /// cases' output, and the first pair of a run meets what the pairs after it do not (the
    /// orchestrator's own start, the shared libraries' first load from disk).
    package static let warmupPairs = 1

    /// What the pairs measured.
    package struct Measured {
        /// Each side's cases' samples, or why they failed, without the cases it does not have (a
        /// case a newer build added).
        package var sides: BothSides<[CaseMeasurement]>
        /// The gate's decision on each case both sides measured, as it took it at its looks while
        /// measuring, by the current side's case key. The comparison reports these, rather than
        /// deciding again.
        package var decisions: [CaseKey: GateDecision]
    }

    /// Takes `cases`' samples on both sides, on one CPU when it can, in pairs of worker processes.
    func measure(_ cases: [BenchmarkCase]) throws(BenchError) -> Measured {
        // One CPU for both sides' samples; several threads per case need several CPUs.
        if selection.threads == 1 {
            let cpu = CPKCEHarness_pinToOneCPU()
            if cpu >= 0 {
                progress.info("measuring both \(sides.noun) on CPU \(cpu)")
            } else {
                progress.note("warning: cannot pin the measuring processes to one CPU; expect wider intervals")
            }
        }
        return try measure(cases, from: WorkerPairs(run: self, copies: ExecutableCopies(warn: progress.note)))
    }

    /// Takes every case's samples on both sides from `source`, look after look, each look
    /// measuring only the cases the gate left open, and keeps the gate's decisions.
    package func measure(_ cases: [BenchmarkCase], from source: some PairSource) throws(BenchError) -> Measured {
        var taken = BothSides { _ in PairedSamples(count: cases.count) }
        let pairs = schedule.pairsPerLook
        let looks = schedule.looks
        var gate = SequentialGate.Looks(cases: cases.count, schedule: schedule, criteria: criteria)
        var open = Array(cases.indices)
        var pair = 0
        func isMeasurable(_ index: Int) -> Bool {
            taken.baseline.isMeasurable(index) && taken.current.isMeasurable(index)
        }
        for warmup in 0..<Self.warmupPairs {
            let checking =
                warmup > 0 || checkedInWorkers.isEmpty
                ? "" : "checking \(checkedInWorkers.count == 2 ? "both sides'" : "the baseline's") backends; "
            progress.info(
                "warm-up pair \(warmup + 1) of \(Self.warmupPairs): \(checking)its samples are set aside")
            try source.measurePair(
                warmup, of: cases, open: open, share: plan.samples / pairs, check: warmup == 0, into: &taken)
            Side.allCases.forEach { side in taken[side].samples = taken[side].samples.map { _ in [] } }
        }
        for look in 1...looks {
            if look > 1 {
                progress.info(
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
                try source.measurePair(
                    pair, of: cases, open: open, share: plan.samples / pairs + (index < plan.samples % pairs ? 1 : 0),
                    check: false, into: &taken)
                pair += 1
            }
            // Every case's figures count in the look's family, a case that failed since among them;
            // only the cases both sides still measure are decided.
            let figures = cases.indices.map { index in
                Comparison.pairFigures(
                    Self.byProcess(taken.baseline.samples[index]), Self.byProcess(taken.current.samples[index]))
            }
            gate.look(at: figures, deciding: open.filter(isMeasurable))
            open = open.filter { (gate.decisions[$0]?.isOpen ?? true) && isMeasurable($0) }
            if open.isEmpty { break }
        }
        progress.info(
            "\(Self.warmupPairs + pair) pairs of workers started: \(Self.warmupPairs) warm-up, \(pair) measured")
        var decisions: [CaseKey: GateDecision] = [:]
        for index in cases.indices where isMeasurable(index) {
            decisions[sides.key(of: cases[index].key, on: .current)] = gate.decisions[index]
        }
        return Measured(
            sides: BothSides { side in
                cases.indices.filter { !taken[side].absent.contains($0) }.map { index in
                    CaseMeasurement(
                        key: sides.key(of: cases[index].key, on: side), samples: taken[side].samples[index],
                        failure: taken[side].failures[index])
                }
            },
            decisions: decisions)
    }

    /// Samples' nanoseconds per operation by the process (pair) that took them, in order, kept as
    /// the reports keep them: the gate decides on the figures that the run's files hold.
    private static func byProcess(_ samples: [Sample]) -> [Int: [Double]] {
        Dictionary(grouping: samples, by: \.process).mapValues { $0.map(\.atReportPrecision.nanosecondsPerOperation) }
    }
}

/// Where the pairs' samples come from: pairs of worker processes (``PairedProcesses``), or, in
/// tests, a stand-in that decides what each pair measures.
package protocol PairSource {
    /// Measures pair `pair`: `share` turns of each case in `open` (indices into `cases`) on each
    /// side, appended to `taken`, or why a case failed on a side, or that a side lacks it; with
    /// `check`, each side checks its cases' output first.
    func measurePair(
        _ pair: Int, of cases: [BenchmarkCase], open: [Int], share: Int, check: Bool,
        into taken: inout BothSides<PairedSamples>
    ) throws(BenchError)
}

/// What one side of ``PairedProcesses`` has taken so far, by case index.
package struct PairedSamples {
    package var samples: [[Sample]]
    package var failures: [String?]
    /// The cases this side's build does not have.
    package var absent: Set<Int> = []

    package init(count: Int) {
        samples = Array(repeating: [], count: count)
        failures = Array(repeating: nil, count: count)
    }

    package func isMeasurable(_ index: Int) -> Bool {
        failures[index] == nil && !absent.contains(index)
    }
}

/// Pairs of worker processes, one per side, alive at once: what ``PairedProcesses/measure(_:)``
/// measures with.
private struct WorkerPairs: PairSource {
    let run: PairedProcesses
    /// Each side's executable, copied or linked afresh for every worker.
    let copies: ExecutableCopies

    func measurePair(
        _ pair: Int, of cases: [BenchmarkCase], open: [Int], share: Int, check: Bool,
        into taken: inout BothSides<PairedSamples>
    ) throws(BenchError) {
        try run.measurePair(pair, of: cases, open: open, share: share, check: check, copies: copies, into: &taken)
    }
}

extension PairedProcesses {
    /// Measures pair `pair`: a worker of each side, `share` turns of each case in `open`
    /// (indices into `cases`), each worker started from a fresh copy of its executable, or a
    /// fresh link of it (see ``ExecutableCopies``); with `check`, the workers check each case's
    /// output first (the baseline's, and the current side's when it is not this process).
    ///
    /// Every worker calibrates every case, open or not: a worker that holds one case measured it
    /// markedly slower in half the pairs when it was started second (`verify`, with the same
    /// executable on both sides), and one that holds the whole suite did not. Which side's
    /// worker starts first alternates from pair to pair, so that whatever starting second does
    /// lands on both sides alike, as the order within a turn does.
    fileprivate func measurePair(
        _ pair: Int, of cases: [BenchmarkCase], open: [Int], share: Int, check: Bool, copies: ExecutableCopies,
        into taken: inout BothSides<PairedSamples>
    ) throws(BenchError) {
        // Generous: starting, checking and calibrating every case, on a busy machine.
        let readyTimeout = 120 + Double(cases.count) * (plan.warmup.nanoseconds / 1e9 + 0.5)
        let sampleTimeout = max(60, 20 * plan.sampleTime.nanoseconds / 1e9)
        var started = BothSides<Worker?> { _ in nil }
        // One link order for both sides of a pair (common random numbers), drawn afresh for each.
        let seed = UInt32.random(in: 1...UInt32.max)
        let order = sides.linkCommand(of: .current) == nil ? "" : ", link order \(seed)"
        do throws(BenchError) {
            for side in Self.order(pair) {
                let connection = try WorkerConnection(
                    executable: try copies.fresh(side, of: sides, seed: seed),
                    arguments: ["worker"],
                    name: "\(side == .baseline ? "the baseline's" : "this build's") worker \(pair + 1) "
                        + "(\(sides.executable(of: side))\(order))",
                    standardError: .captured, helloTimeout: WorkerProtocol.helloTimeout, cancellation: cancellation)
                let job = WorkerProtocol.Job(
                    selection: sides.selection(selection, on: side, for: cases), plan: plan, process: pair,
                    processes: schedule.pairsPerLook * schedule.looks,
                    check: check && checkedInWorkers.contains(side))
                let reply = try connection.ask(.calibrate(job), within: readyTimeout)
                guard case .calibrated(let keys, let failures) = reply else {
                    throw connection.broken(quoting: WorkerProtocol.line(reply))
                }
                // Each case's index in the worker; a build that lacks a case (one a newer build
                // added) cannot measure it, and the comparison lists it as in one build only.
                let indices = cases.map { keys.firstIndex(of: sides.key(of: $0.key, on: side)) }
                started[side] = Worker(connection: connection, indices: indices, failures: failures)
            }
        } catch {
            Side.allCases.forEach { try? started[$0]?.connection.finish() }
            throw error
        }
        var workers = BothSides { started[$0]! }
        // How a worker exits once its pair is measured does not change its samples.
        defer { Side.allCases.forEach { try? workers[$0].connection.finish() } }
        for side in Side.allCases {
            for index in open {
                guard let workerIndex = workers[side].indices[index] else {
                    taken[side].absent.insert(index)
                    continue
                }
                if let reason = workers[side].failures[workerIndex], taken[side].failures[index] == nil {
                    taken[side].failures[index] = reason
                }
            }
        }
        var turns = open.flatMap { Array(repeating: $0, count: share) }
        turns.shuffle()
        var turnsTaken = [Int](repeating: 0, count: cases.count)
        for index in turns where taken.baseline.isMeasurable(index) && taken.current.isMeasurable(index) {
            try cancellation.check()
            // ABBA: each side goes first in every other turn of a case, starting with the other
            // side in the next pair.
            let order = Self.order(turnsTaken[index] + pair)
            turnsTaken[index] += 1
            var sampled = BothSides<Sample?> { _ in nil }
            for side in order {
                sampled[side] = try workers[side].sample(of: index, within: sampleTimeout)
            }
            guard let baseline = sampled.baseline, let current = sampled.current else {
                for side in Side.allCases where sampled[side] == nil {
                    taken[side].failures[index] = workers[side].failure(of: index)
                }
                continue
            }
            taken.baseline.samples[index].append(baseline)
            taken.current.samples[index].append(current)
        }
    }

    /// Which side goes first in the `turn`th turn: the baseline in even ones.
    private static func order(_ turn: Int) -> [Side] {
        turn % 2 == 0 ? [.baseline, .current] : [.current, .baseline]
    }

    /// A worker of one side of a pair, its cases calibrated.
    private struct Worker {
        let connection: WorkerConnection
        /// Each case's index in this worker, by its index in the run; `nil` when the worker lacks it.
        let indices: [Int?]
        /// Why a case failed in it, by its index in this worker.
        var failures: [Int: String]

        /// Why the run's case at `index` failed in this worker.
        func failure(of index: Int) -> String {
            indices[index].flatMap { failures[$0] } ?? "failed"
        }

        /// Takes one sample of the run's case at `index`, which this worker has.
        ///
        /// - Returns: The sample, or `nil` when the case failed (``failure(of:)`` says why).
        mutating func sample(of index: Int, within seconds: Double) throws(BenchError) -> Sample? {
            let workerIndex = indices[index]!
            let reply = try connection.ask(.sample(index: workerIndex), within: seconds)
            switch reply {
            case .sample(let sample):
                return sample
            case .failed(workerIndex, let reason):
                failures[workerIndex] = reason
                return nil
            default:
                throw connection.broken(quoting: WorkerProtocol.line(reply))
            }
        }
    }
}
