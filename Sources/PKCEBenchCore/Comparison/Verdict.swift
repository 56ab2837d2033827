package enum Verdict: String, Sendable, Codable, CaseIterable {
    /// Slower by at least the threshold, and significantly so across the whole comparison.
    case regressed
    /// Faster by at least the threshold, and significantly so across the whole comparison.
    case improved
    /// Not slower by the threshold: the upper confidence bound on the change lies below it. The
    /// interval may still reach below minus the threshold.
    case unchanged
    /// The data cannot tell: the interval reaches beyond the threshold but the change is not
    /// significant, too few processes measured the case, or a busy machine could explain it.
    /// Measure again.
    case inconclusive
    /// The case failed in the current run but not in the baseline: counted as a regression.
    case failedInCurrent = "failed-in-current"
    /// The case failed in the baseline, so there is nothing to compare against.
    case failedInBaseline = "failed-in-baseline"
    case onlyInBaseline = "only-in-baseline"
    case onlyInCurrent = "only-in-current"

    /// Whether this verdict makes `bench compare` exit with 1.
    package var isRegression: Bool {
        self == .regressed || self == .failedInCurrent
    }
}

package enum ComparisonMethod: String, Sendable, Codable {
    /// Each build's processes ran side by side in pairs, their samples in turns (`bench ab`): a
    /// t-test over the pairs of each pair's median log ratio of its turns.
    case pairs
    /// Two independent runs: the change of their fastest samples against the spread between runs
    /// of the history, or, where that is unmeasured, Welch's t-test on the logs of each process's
    /// fastest sample.
    case processes
    /// No samples for the case on one side: the changes of the median and of the fastest sample
    /// against the threshold alone.
    case threshold
    /// Instruction counts, which are exact: the change against the threshold, no test needed.
    case instructions
    case none
}

/// Whether the processes of the two runs were measured side by side.
package enum Pairing: Sendable {
    /// Process `i` of the baseline ran next to process `i` of the current run, as `bench ab`
    /// runs them: the pairs are the units.
    case byProcess
    /// The runs were made apart: each run's processes are the units.
    case independent
}
