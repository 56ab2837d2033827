import Foundation
import PKCEBenchCore
import PKCEBenchTestSupport
import Testing

/// Whole bisections, through ``Bisection/run()`` and the gate's own looks, on real pairs: the error
/// rates of a bisection rather than of one comparison. The article "Tracking regressions over
/// time" ("Error rates of a whole bisection") quotes what this prints.
@Suite("Bisections simulated on real pairs")
struct BisectionSimulationTests {
    /// `bench bisect`'s defaults: a 1% threshold, alpha 0.01, `bench ab`'s looks.
    static let criteria = ComparisonCriteria(threshold: 0.01, alpha: 0.01)
    static let schedule = LookSchedule(
        pairsPerLook: PairedProcesses.standardPairs, looks: PairedProcesses.standardLooks)
    /// The real `bench ab` recordings of harmless changes that the gate's own simulations read.
    static let recordings = [
        "aa-pairs-quiet", "aa-pairs-busy", "unused-function-pairs-quiet", "unused-function-pairs-busy",
    ]
    /// Simulated bisections per row of the table, which only `PKCEBENCH_BISECTION_RUNS` prints.
    static let tableRuns = ProcessInfo.processInfo.environment["PKCEBENCH_BISECTION_RUNS"].flatMap { Int($0) }
    /// Simulated bisections per case of the sweep, which only `PKCEBENCH_BISECTION_RUNS_PER_CASE` runs.
    static let sweepRuns = ProcessInfo.processInfo.environment["PKCEBENCH_BISECTION_RUNS_PER_CASE"].flatMap { Int($0) }

    /// One case's pair figures in one recording, less their 20% trimmed mean: the recording's own
    /// offset in the case removed, its spread and tails kept, so that the shift a simulation adds
    /// is the true change.
    struct Pool {
        let name: String
        let figures: [Double]
        /// The standard error of the estimate from 20 of them.
        let standardError: Double
    }

    static func pools() throws -> [Pool] {
        try recordings.flatMap { recording in
            let (cases, rows) = try SequentialGateTests.realPairs(recording)
            return try cases.indices.map { index in
                let figures = rows.map { $0[index] }
                let estimate = try #require(ChangeEstimate.paired(logRatios: figures))
                return Pool(
                    name: "`\(cases[index])`, \(recording)", figures: figures.map { $0 - estimate.logChange },
                    standardError: estimate.standardError * (Double(figures.count) / 20).squareRoot())
            }
        }
    }

    struct Outcomes: CustomStringConvertible {
        var runs = 0
        var right = 0
        var wrong = 0
        var undecided = 0
        var comparisons = 0
        var pairs = 0
        /// Bisections whose halving resumed below a parent that was asked again.
        var resumed = 0

        func percent(_ count: Int) -> String { String(format: "%.1f%%", 100 * Double(count) / Double(runs)) }

        var description: String {
            "\(percent(right)) | \(percent(wrong)) | \(percent(undecided)) | "
                + String(format: "%.1f | %.0f", Double(comparisons) / Double(runs), Double(pairs) / Double(runs))
                + " | \(percent(resumed))"
        }
    }

    /// `runs` bisections of ranges of `count` commits, each in a case drawn from `pools`, whose
    /// commit at a random place in the range changes the case by `change` (negative: faster).
    /// Every comparison draws its pairs afresh, with replacement, and takes the gate's looks until
    /// it decides or its looks run out, as `bench bisect` runs `bench ab`'s. With `alone`, each
    /// comparison is `bench ab`'s, as a bisection's were before it retried.
    static func simulate(
        _ pools: [Pool], change: Double, runs: Int, commits count: Int = 16, seed: UInt64, alone: Bool = false
    ) throws -> Outcomes {
        var generator = SplitMix64(seed: seed)
        let commits = BisectionTests.commits(count)
        let schedule = alone ? Self.schedule : Bisection.schedule(Self.schedule)
        let criteria = alone ? Self.criteria : Bisection.criteria(Self.criteria)
        var outcomes = Outcomes(runs: runs)
        for _ in 0..<runs {
            let pool = pools[Int(generator.next() % UInt64(pools.count))]
            let changed = 1 + Int(generator.next() % UInt64(count))
            var resumed = false
            var previous: Bisection.Step?
            let bisection = Bisection(
                commits: commits, threshold: criteria.threshold,
                compare: { older, newer, direction in
                    let (from, to) = (commits.firstIndex(of: older)!, commits.firstIndex(of: newer)!)
                    let truth = from < changed && to >= changed ? log1p(change) : 0
                    var looks = SequentialGate.Looks(cases: 1, schedule: schedule, criteria: criteria)
                    var figures: [Int: Double] = [:]
                    while looks.decisions[0]?.isOpen ?? true, looks.taken < schedule.looks {
                        for _ in 0..<schedule.pairsPerLook {
                            // A pair's figure with the older build as the baseline; for a speed-up
                            // the newer build is the gate's baseline, and the figure is negated.
                            let drawn = pool.figures[Int(generator.next() % UInt64(pool.figures.count))] + truth
                            figures[figures.count] = direction == .faster ? -drawn : drawn
                        }
                        looks.look(at: [figures], deciding: [0])
                    }
                    let gate = looks.decisions[0]
                    return Bisection.Step(
                        older: older, newer: newer, asked: direction, verdict: gate?.verdict,
                        change: gate?.estimate.change, detectable: gate?.detectable,
                        pairs: figures.count)
                },
                report: { step in
                    // The parent of the commit found asked again, and changed: the halving resumes.
                    if let previous, step.older == commits[0], step.newer == previous.older,
                        previous.older != commits[0], step.decision == .changed
                    {
                        resumed = true
                    }
                    previous = step
                    outcomes.comparisons += 1
                    outcomes.pairs += step.pairs ?? 0
                })
            switch try bisection.run() {
            case .found(let step) where step.newer == commits[changed]: outcomes.right += 1
            case .found: outcomes.wrong += 1
            case .undecided: outcomes.undecided += 1
            }
            if resumed { outcomes.resumed += 1 }
        }
        return outcomes
    }

    @Test("At 1.5 times the threshold, pooled over the cases: the right commit in 95%, a wrong one in at most 1%")
    func wholeBisection() throws {
        let outcomes = try Self.simulate(Self.pools(), change: 0.015, runs: 300, seed: 67)
        #expect(outcomes.right * 100 >= outcomes.runs * 95, "\(outcomes)")
        #expect(outcomes.wrong * 100 <= outcomes.runs, "\(outcomes)")
    }

    @Test(
        "The table of error rates, pooled and for the noisiest case, at +1%, +1.25% and +1.5%",
        .enabled(if: tableRuns != nil, "set PKCEBENCH_BISECTION_RUNS to print it"))
    func errorRates() throws {
        let runs = try #require(Self.tableRuns)
        let pools = try Self.pools()
        let noisiest = try #require(pools.max { $0.standardError < $1.standardError })
        print(
            "| pairs from | change | comparisons | right commit | wrong commit | undecided | comparisons a bisection "
                + "| pairs a bisection | halving resumed |")
        let noisiestName = "\(noisiest.name), alone"
        for change in [0.01, 0.0125, 0.015, -0.015 / 1.015] {
            for (name, drawn) in [("pooled: every case", pools), (noisiestName, [noisiest])] {
                for alone in [true, false] where change > 0 || !alone {
                    let outcomes = try Self.simulate(drawn, change: change, runs: runs, seed: 67, alone: alone)
                    let kind = alone ? "`bench ab`'s" : "a bisection's"
                    let percent = String(format: "%+.2f%%", change * 100)
                    print("| \(name) | \(percent) | \(kind) | \(outcomes) |")
                }
            }
        }
    }

    @Test(
        "Every case alone at +1.5%: the cases whose bisections name the right commit least often",
        .enabled(if: sweepRuns != nil, "set PKCEBENCH_BISECTION_RUNS_PER_CASE to run it"))
    func everyCase() throws {
        let runs = try #require(Self.sweepRuns)
        let pools = try Self.pools()
        var rates: [(name: String, outcomes: Outcomes)] = []
        for (index, pool) in pools.enumerated() {
            let outcomes = try Self.simulate([pool], change: 0.015, runs: runs, seed: 1000 + UInt64(index))
            rates.append((pool.name, outcomes))
        }
        rates.sort { $0.outcomes.right < $1.outcomes.right }
        print("\(rates.count) cases, \(runs) bisections each at +1.5%")
        print(
            "cases with the right commit in fewer than 95%: \(rates.filter { $0.outcomes.right * 100 < runs * 95 }.count)"
        )
        print("cases with a wrong commit: \(rates.filter { $0.outcomes.wrong > 0 }.count)")
        for (name, outcomes) in rates.prefix(8) { print("| \(name) | \(outcomes) |") }
        #expect(rates.allSatisfy { $0.outcomes.wrong * 100 <= runs }, "a case named a wrong commit in more than 1%")
    }
}
