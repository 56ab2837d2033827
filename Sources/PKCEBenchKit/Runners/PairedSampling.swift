import PKCEBenchCore

/// How `bench ab` samples: each look's pairs of processes and the plan of each, from the options or
/// their defaults.
struct PairedSampling {
    var plan: SamplingPlan
    /// When the gate looks, and at the most how many pairs it takes.
    var looks: LookSchedule

    /// `bench ab`'s defaults: ``PairedProcesses/standardPairs`` pairs a look, ``PairedProcesses/standardLooks``
    /// looks, ``SamplingPlan/ab``.
    static let standard = PairedSampling(
        plan: .ab, pairs: PairedProcesses.standardPairs, looks: PairedProcesses.standardLooks)

    /// `looks` looks of `pairs` pairs each (no more pairs a look than `plan` has samples, and at
    /// least one), each process taking `plan`.
    init(plan: SamplingPlan, pairs: Int, looks: Int) {
        self.plan = plan
        self.looks = LookSchedule(pairsPerLook: max(1, min(pairs, plan.samples)), looks: max(1, looks))
    }

    /// What `--processes`, `--samples`, `--sample-time`, `--warmup`, `--quick` and `--max-pairs` ask for.
    init(_ sampling: SamplingOptions, _ gate: GateOptions) throws(BenchError) {
        let pairs = try sampling.processCount(
            standard: PairedProcesses.standardPairs, quick: PairedProcesses.quickPairs)
        self.init(
            plan: try sampling.plan(standard: .ab, quick: .abQuick), pairs: pairs,
            looks: try gate.looks(pairs: pairs, quick: sampling.quick))
    }
}
