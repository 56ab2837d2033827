import Foundation

/// `bench bisect`: the first commit of a range at which a case changed by at least the threshold,
/// found by halving the range with paired comparisons of two builds.
///
/// The ends are compared first, which says the direction of the change (a slowdown or a
/// speed-up). Each later step compares the range's midpoint with the good end, asking one
/// question in that direction: "is it changed by at least the threshold?" (`bench ab`'s gate,
/// whose false alarms are bounded, with the newer build as the current side for a slowdown and
/// as the baseline for a speed-up). The first commit found is then compared with its parent,
/// which must decide `changed` too: a change that only shows over several commits is not one
/// commit's.
package struct Bisection {
    /// Which way the case moved from the good end to the bad one.
    package enum Direction: String, Sendable {
        case slower
        case faster
    }

    /// What one comparison decided.
    package enum Decision: String, Sendable {
        /// Changed by at least the threshold, in the direction asked, significantly.
        case changed
        /// Not changed by the threshold in that direction: the bound on the change lies below it.
        case same
        /// The comparison could not decide (still open after its most pairs, or a side failed).
        case undecided
    }

    /// One comparison of the bisection.
    package struct Step: Sendable {
        package var older: CommitBuilds.Commit
        package var newer: CommitBuilds.Commit
        package var decision: Decision
        /// The direction the comparison asked about, or for the first, found.
        package var direction: Direction?
        /// `newer / older − 1`; positive is slower.
        package var change: Double?
        /// The pairs of processes it took, for a timed comparison.
        package var pairs: Int?

        package init(
            older: CommitBuilds.Commit, newer: CommitBuilds.Commit, decision: Decision, direction: Direction?,
            change: Double?, pairs: Int?
        ) {
            self.older = older
            self.newer = newer
            self.decision = decision
            self.direction = direction
            self.change = change
            self.pairs = pairs
        }
    }

    package enum Outcome: Sendable {
        /// The first commit changed, its comparison with its parent being the last step.
        case found(Step)
        /// No commit is named, and why.
        case undecided(String)
    }

    /// The good end and the range after it, oldest first: the bad end is the last.
    package var commits: [CommitBuilds.Commit]
    /// The threshold, as a fraction, for messages.
    package var threshold: Double
    /// Compares two builds: in `direction`, or with `nil`, in whichever the change goes.
    package var compare:
        (_ older: CommitBuilds.Commit, _ newer: CommitBuilds.Commit, _ direction: Direction?) throws(BenchError) -> Step
    /// Told each step once it is decided.
    package var report: (Step) -> Void

    package init(
        commits: [CommitBuilds.Commit], threshold: Double,
        compare:
            @escaping (CommitBuilds.Commit, CommitBuilds.Commit, Direction?) throws(BenchError) -> Step,
        report: @escaping (Step) -> Void
    ) {
        self.commits = commits
        self.threshold = threshold
        self.compare = compare
        self.report = report
    }

    /// Runs the bisection: about log₂ of the range's length comparisons, and one more for the
    /// first commit and its parent unless a step compared those already.
    package func run() throws(BenchError) -> Outcome {
        guard commits.count >= 2, let good = commits.first, let bad = commits.last else {
            return .undecided("the range holds no commit after --good")
        }
        let percent = "\((threshold * 100).formatted(.number.precision(.significantDigits(1...3))))%"
        var ends = try compare(good, bad, nil)
        report(ends)
        if ends.decision == .same, let change = ends.change, change < 0 {
            // The unoriented comparison asks whether the newer build is slower; a speed-up that is
            // not significant as an improvement is asked about on its own.
            ends = try compare(good, bad, .faster)
            report(ends)
        }
        switch ends.decision {
        case .undecided:
            return .undecided(
                "noise: the comparison of \(good.short) and \(bad.short) could not decide; measure with more pairs")
        case .same:
            return .undecided("\(bad.short) is not \(percent) slower or faster than \(good.short) in this case")
        case .changed:
            break
        }
        guard let direction = ends.direction else { preconditionFailure("a decided change has a direction") }
        // commits[low] is known the same as the good end, commits[high] changed.
        var low = 0
        var high = commits.count - 1
        var last = ends
        while high - low > 1 {
            let middle = (low + high) / 2
            let step = try compare(good, commits[middle], direction)
            report(step)
            switch step.decision {
            case .changed: high = middle
            case .same: low = middle
            case .undecided:
                return .undecided(
                    "noise: the comparison of \(commits[middle].short) with \(good.short) could not decide; "
                        + "measure with more pairs")
            }
            last = step
        }
        let culprit = commits[high]
        let parent = commits[low]
        if last.older != parent || last.newer != culprit {
            last = try compare(parent, culprit, direction)
            report(last)
        }
        switch last.decision {
        case .changed:
            return .found(last)
        case .same:
            return .undecided(
                "the change is spread over several commits: \(culprit.short) is not \(percent) \(direction) than its "
                    + "parent \(parent.short), though it is than \(good.short)")
        case .undecided:
            return .undecided(
                "noise: the comparison of \(culprit.short) with its parent \(parent.short) could not decide; "
                    + "measure with more pairs")
        }
    }
}
