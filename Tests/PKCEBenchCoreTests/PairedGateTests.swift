import Foundation
import PKCE
import PKCEBenchCore
import PKCEBenchTestSupport
import Testing

/// The paired gate as `bench ab` runs it: decisions taken at each look while measuring, kept, and
/// reported as taken, with a stand-in for the pairs of worker processes.
@Suite("The paired gate's decisions, kept from measuring to the comparison")
struct PairedGateTests {
    static let schedule = LookSchedule(pairsPerLook: 20, looks: 4)
    static let criteria = ComparisonCriteria(threshold: 0.01, alpha: 0.01)
    /// Three turns per case in each pair.
    static let plan = SamplingPlan(warmup: .milliseconds(1), sampleTime: .milliseconds(1), samples: 60)

    /// A pair source whose current side is `exp(ratio(case, pair))` times the baseline's 100 ns
    /// in every turn, and which fails `failing` on the current side from pair `failsFrom` on.
    /// It notes the last measured pair that asked for each case.
    final class StandIn: PairSource {
        let ratio: (Int, Int) -> Double
        let failing: Int
        let failsFrom: Int
        private(set) var lastPair: [Int: Int] = [:]

        init(failing: Int, from pair: Int, ratio: @escaping (Int, Int) -> Double) {
            self.ratio = ratio
            self.failing = failing
            self.failsFrom = pair
        }

        func measurePair(
            _ pair: Int, of cases: [BenchmarkCase], open: [Int], share: Int, check: Bool,
            into taken: inout BothSides<PairedSamples>
        ) throws(BenchError) {
            // As the workers do: a case that failed on either side is not sampled again.
            for index in open where taken.baseline.isMeasurable(index) && taken.current.isMeasurable(index) {
                // The warm-up pair checks its cases; its samples are set aside.
                if !check { lastPair[index] = pair }
                if index == failing && pair >= failsFrom && !check {
                    taken.current.failures[index] = "stand-in failure"
                    continue
                }
                for _ in 0..<share {
                    taken.baseline.samples[index].append(
                        Sample(iterations: 1000, nanosecondsPerOperation: 100, process: pair))
                    taken.current.samples[index].append(
                        Sample(iterations: 1000, nanosecondsPerOperation: 100 * exp(ratio(index, pair)), process: pair))
                }
            }
        }
    }

    /// Small deterministic noise around 0, in log ratio.
    static func quiet(_ pair: Int) -> Double { 0.001 * [1, -1, 0.5, -0.5][pair % 4] }

    static func run(_ measurements: [CaseMeasurement], id: String) -> RunResult {
        RunResult(
            environment: RunEnvironment(
                runID: id, timestamp: "2026-11-22T00:00:00.000Z", commit: RecordedCommit(recorded: "abc1234"),
                build: .release,
                cpu: "Test CPU", cpuFlags: "sha_ni avx2", cores: 2, kernel: "6.1.0", swift: "6.3.1", libraries: [:]),
            measurements: measurements)
    }

    @Test(
        "A case that fails on one side after look 1: every other case reported at the look that stopped it, as decided")
    func failureAfterTheFirstLook() throws {
        let cases = [64, 200, 1024, 3000].map { BenchmarkCase(backend: SwiftBackend(), operation: .sha256, size: $0) }
        let (steady, slower, failing, busy) = (0, 1, 2, 3)
        let source = StandIn(failing: failing, from: 25) { index, pair in
            switch index {
            case steady: Self.quiet(pair)
            case slower: log(1.05) + Self.quiet(pair)
            // +0.8%, a quarter of its pairs 3% above that and a quarter 3% below: open at every look.
            case failing: [0.038, -0.022, 0.008, 0.008][pair % 4]
            // A busy spell in the first look, quiet after it.
            default: pair < 12 ? (pair < 6 ? 0.03 : -0.03) : Self.quiet(pair)
            }
        }
        let paired = PairedProcesses(
            selection: Selection(), plan: Self.plan, schedule: Self.schedule, criteria: Self.criteria,
            sides: .builds(baseline: "baseline", current: "current"),
            progress: RecordedProgress(), cancellation: .never)
        let measured = try paired.measure(cases, from: source)

        // What measuring did: the steady and the slower case stopped after look 1, the busy one after
        // look 2, the failing one when it failed in look 2.
        #expect(source.lastPair == [steady: 19, slower: 19, failing: 25, busy: 39])
        let keys = cases.map(\.key)
        #expect(Set(measured.decisions.keys) == [keys[steady], keys[slower], keys[busy]])
        #expect(measured.decisions[keys[steady]]?.verdict == .unchanged)
        #expect(measured.decisions[keys[slower]]?.verdict == .regressed)
        #expect(measured.decisions[keys[busy]]?.verdict == .unchanged)

        let runs = (
            baseline: Self.run(measured.sides.baseline, id: "20261122T000000.000Z-abc1234-00000001-baseline"),
            current: Self.run(measured.sides.current, id: "20261122T000000.000Z-abc1234-00000001")
        )
        let comparison = try Comparison(
            baseline: runs.baseline.named("baseline"), current: runs.current.named("current"),
            criteria: Self.criteria, pairing: .byProcess, looks: Self.schedule, gateDecisions: measured.decisions)
        let reported: [CaseKey: CaseComparison] = Dictionary(
            uniqueKeysWithValues: comparison.cases.map { ($0.key, $0) })
        for index in [steady, slower, busy] {
            let key = keys[index]
            #expect(reported[key]?.look == source.lastPair[index].map { $0 / Self.schedule.pairsPerLook + 1 })
            #expect(reported[key]?.verdict == measured.decisions[key]?.verdict)
        }
        #expect(reported[keys[failing]]?.verdict == .failedInCurrent)
    }
}
