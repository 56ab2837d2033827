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
/// commit's. When it decides `same`, the parent is compared with the good end again: `changed`
/// there means a halving step that found the parent the same was wrong, and the halving resumes
/// below the parent, once.
///
/// Every comparison is one sequential test planned with ``attempts`` times the looks of
/// `bench ab` (``schedule(_:)``): one still open after `bench ab`'s looks is measured again, with
/// more pairs, rather than ending the bisection. Only the comparison of the first changed commit
/// with its parent, always made afresh and in the direction found, names a commit, and a
/// bisection makes it at most ``namingComparisons`` times, so each comparison runs at alpha
/// divided by that (``criteria(_:)``): a commit that does not change the case is named in at most
/// alpha of bisections, by the union bound, whatever the other steps decided.
package struct Bisection {
    /// The looks of every comparison, in units of `bench ab`'s: a comparison still open after the
    /// first unit is measured for one more, continuing the same test.
    package static let attempts = 2

    /// The most times a bisection compares the first changed commit with its parent, the one
    /// comparison that names a commit: once, and once more after the halving resumes.
    package static let namingComparisons = 2

    /// `bench ab`'s look schedule, `schedule`, continued for ``attempts`` times as many looks:
    /// alpha and the bound's tail are spent evenly over all of them (Bonferroni), so that the looks
    /// of a retry add no test.
    package static func schedule(_ schedule: LookSchedule) -> LookSchedule {
        LookSchedule(pairsPerLook: schedule.pairsPerLook, looks: schedule.looks * attempts)
    }

    /// The gate's criteria for each comparison: alpha split over the comparisons that can name a
    /// commit.
    package static func criteria(_ criteria: ComparisonCriteria) -> ComparisonCriteria {
        var split = criteria
        split.alpha = criteria.alpha / Double(namingComparisons)
        return split
    }

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

        /// What the gate's `verdict` says of the newer build, asked in `direction` (`nil`: either
        /// way), and the direction it found: `direction`, or for an unoriented comparison, the way
        /// it changed. For a speed-up the newer build is the gate's baseline, so `regressed` means
        /// faster.
        package static func of(_ verdict: Verdict?, asked direction: Direction?) -> (Decision, Direction?) {
            switch verdict {
            case .regressed?: (.changed, direction ?? .slower)
            case .improved? where direction == nil: (.changed, .faster)
            case .unchanged?, .improved?: (.same, direction)
            default: (.undecided, direction)
            }
        }
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
        /// The smallest change in `direction` the comparison would have found with 80% probability,
        /// given the spread it measured, as `newer / older − 1`: the gate's `detectable`.
        package var detectable: Double?
    }

    /// How a bisection ended.
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

    /// Runs the bisection: the ends, about log₂ of the range's length halving steps, and the first
    /// commit against its parent; when that says the same, the parent against the good end, and
    /// once the halving below it and another first commit against its parent.
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
        // commits[low] is known the same as the good end, commits[high] changed; the lows before
        // it are kept, for the halving to resume from when the parent proves changed after all.
        var low = 0
        var earlierLows: [Int] = []
        var high = commits.count - 1
        var resumed = false
        while true {
            while high - low > 1 {
                let middle = (low + high) / 2
                let step = try compare(good, commits[middle], direction)
                report(step)
                switch step.decision {
                case .changed: high = middle
                case .same: (earlierLows, low) = (earlierLows + [low], middle)
                case .undecided: return .undecided(noise(commits[middle], good))
                }
            }
            // Only this comparison names a commit, asked in the direction found, even when a step
            // compared the same two commits: at most two of them in a bisection, each at alpha / 2.
            let culprit = commits[high]
            let parent = commits[low]
            let last = try compare(parent, culprit, direction)
            report(last)
            switch last.decision {
            case .changed: return .found(last)
            case .undecided: return .undecided(noise(culprit, parent, "its parent "))
            case .same: break
            }
            let spread =
                "the change is spread over several commits: \(culprit.short) is not \(percent) \(direction) than its "
                + "parent \(parent.short), though it is than \(good.short)"
            // A halving step that wrongly found the parent the same as the good end leaves this too:
            // the parent is asked again, and the halving resumes below it if it changed.
            guard let below = earlierLows.last else {
                return .undecided(
                    "noise: \(culprit.short) is not \(percent) \(direction) than \(good.short) asked again, though it "
                        + "was before; measure with more pairs")
            }
            guard !resumed else { return .undecided(spread) }
            let again = try compare(good, parent, direction)
            report(again)
            switch again.decision {
            case .same:
                return .undecided("\(spread), and \(parent.short), asked again, is not")
            case .undecided:
                return .undecided(noise(parent, good))
            case .changed:
                resumed = true
                (high, low) = (low, below)
                earlierLows.removeLast()
            }
        }
    }

    private func noise(_ newer: CommitBuilds.Commit, _ older: CommitBuilds.Commit, _ role: String = "") -> String {
        "noise: the comparison of \(newer.short) with \(role)\(older.short) could not decide; measure with more pairs"
    }
}

extension Bisection.Step {
    /// The step that the gate's comparison of `older` and `newer`, asked in `direction`, makes:
    /// its `verdict`, and its `change` and `detectable`, each `current / baseline − 1` of the
    /// gate, whose baseline is the newer build for a speed-up.
    package init(
        older: CommitBuilds.Commit, newer: CommitBuilds.Commit, asked direction: Bisection.Direction?,
        verdict: Verdict?,
        change: Double?, detectable: Double?, pairs: Int?
    ) {
        let (decision, found) = Bisection.Decision.of(verdict, asked: direction)
        // The change of the newer build against the older, whichever side each was; the gate's
        // `detectable` is a slowdown of its current side, and as large a speed-up on the log scale.
        func inverted(_ change: Double) -> Double { 1 / (1 + change) - 1 }
        self.init(
            older: older, newer: newer, decision: decision, direction: found,
            change: change.map { direction == .faster ? inverted($0) : $0 }, pairs: pairs,
            detectable: detectable.map { found == .faster ? inverted($0) : $0 })
    }
}
