import Foundation

/// When a paired comparison looks at its data: after every `pairsPerLook` pairs, at most
/// `looks` times.
package struct LookSchedule: Sendable, Equatable {
    package var pairsPerLook: Int
    /// The most looks: the bound on the pairs is `pairsPerLook × looks`.
    package var looks: Int

    /// Both must be at least 1; the command line checks them first.
    package init(pairsPerLook: Int, looks: Int) {
        precondition(pairsPerLook >= 1 && looks >= 1, "a look schedule needs pairs and looks")
        self.pairsPerLook = pairsPerLook
        self.looks = looks
    }

    /// One look at all the data, as runs measured apart are compared.
    package static let single = LookSchedule(pairsPerLook: .max, looks: 1)

    /// How many pairs have been measured when look `look` (from 1) is taken.
    package func pairs(atLook look: Int) -> Int {
        pairsPerLook.multipliedReportingOverflow(by: look).overflow ? .max : pairsPerLook * look
    }
}

/// One case's state after a look of the gate.
package struct GateDecision: Sendable, Equatable {
    /// The estimate at the look that decided the case, or at the last look taken.
    package var estimate: ChangeEstimate
    /// The verdict; `nil` while the case is open and more looks remain.
    package var verdict: Verdict?
    /// The look (from 1) that decided the case, or the last one taken.
    package var look: Int
    /// The p-value of the question the estimate's sign asks (slower for a change of 0 and more,
    /// faster below), Holm-adjusted over all the cases compared and multiplied by the number of
    /// looks (Bonferroni), so that it is compared with alpha itself.
    package var pValue: Double
    /// The interval whose ends the gate compares with the threshold: each a one-sided bound at
    /// the criteria's confidence, spent over the looks.
    package var interval: ClosedRange<Double>
    /// The smallest slowdown that the look would flag as `regressed` with 80% probability.
    package var detectable: Double

    package var isOpen: Bool { verdict == nil }
}

/// The regression gate: a one-sided question per case, asked at one or more looks, with alpha and
/// the bound's confidence split evenly over the looks (Bonferroni) and Holm's correction over all
/// the cases at each look, those decided at an earlier look counting as not rejected. The article
/// "The statistics of each verdict" ("The sequential gate") states the rule and its error rates.
package enum SequentialGate {
    /// The power at which ``GateDecision/detectable`` is stated.
    package static let power = 0.8

    /// Decides the open cases at look `look` (from 1) of `looks`: a decision per estimate, `nil`
    /// where there is none. At the last look, no decision is open. `family` is the number of
    /// cases compared, those decided at earlier looks included; it is at least the estimates'.
    package static func decide(
        _ estimates: [ChangeEstimate?], look: Int, of looks: Int, family: Int = 0, criteria: ComparisonCriteria
    ) -> [GateDecision?] {
        let alpha = criteria.alpha / Double(looks)
        let tail = (1 - criteria.confidence) / Double(looks)
        let tested = estimates.indices.filter { estimates[$0] != nil }
        let family = max(family, tested.count)
        let slower = holmAdjusted(tested.map { estimates[$0]!.pValue(.slower) }, family: family)
        let faster = holmAdjusted(tested.map { estimates[$0]!.pValue(.faster) }, family: family)
        let threshold = log1p(criteria.threshold)
        var decisions = [GateDecision?](repeating: nil, count: estimates.count)
        for (position, index) in tested.enumerated() {
            let estimate = estimates[index]!
            let upper = estimate.bound(.slower, confidence: 1 - tail)
            let lower = estimate.bound(.faster, confidence: 1 - tail)
            let verdict: Verdict?
            if slower[position] < alpha && estimate.logChange >= threshold {
                verdict = .regressed
            } else if upper < criteria.threshold {
                verdict = faster[position] < alpha && estimate.logChange <= -threshold ? .improved : .unchanged
            } else {
                verdict = look >= looks ? .inconclusive : nil
            }
            let adjusted = estimate.logChange >= 0 ? slower[position] : faster[position]
            // Flagged needs both: significant at the Bonferroni level of the look's family (which
            // Holm's first step is, and later steps relax) and at least the threshold.
            let flagged = max(
                threshold,
                estimate.driftBound + estimate.criticalValue(tail: alpha / Double(family))
                    * estimate.standardError)
            let detectable = exp(flagged + estimate.quantile(power) * estimate.standardError) - 1
            decisions[index] = GateDecision(
                estimate: estimate, verdict: verdict, look: look, pValue: min(1, adjusted * Double(looks)),
                interval: min(lower, upper)...upper, detectable: detectable)
        }
        return decisions
    }

    /// Replays the looks over stored pair figures, by pair number, as `bench ab` took them: look
    /// `k` reads the pairs numbered below `k × pairsPerLook`, up to the last look that has pairs of
    /// its own. A case with fewer than two pairs gets `nil`. `bench ab` itself keeps the decisions
    /// it took while measuring (``Looks``); this is the same gate over figures read back, as the
    /// simulations of its error rates read theirs.
    package static func replay(
        _ figures: [[Int: Double]], schedule: LookSchedule, criteria: ComparisonCriteria
    ) -> [GateDecision?] {
        let measured = (figures.flatMap(\.keys).max() ?? -1) + 1
        var looks = Looks(cases: figures.count, schedule: schedule, criteria: criteria)
        while true {
            let pairs = schedule.pairs(atLook: looks.taken + 1)
            looks.look(at: figures.map { $0.filter { $0.key < pairs } }, deciding: Array(figures.indices))
            if looks.taken >= schedule.looks || pairs >= measured { return looks.decisions }
        }
    }

    /// The gate between its looks: each case's decision so far, one look at a time, as the pairs
    /// come in. `bench ab` takes its looks with this while it measures, and keeps the decisions.
    package struct Looks: Sendable {
        package let schedule: LookSchedule
        package let criteria: ComparisonCriteria
        /// Each case's decision at the latest look that decided it; `nil` until a look has two pairs
        /// of it.
        package private(set) var decisions: [GateDecision?]
        /// The looks taken so far.
        package private(set) var taken = 0
        /// Holm's family: the cases with two pairs or more at any look so far. A case counts from its
        /// first such look on, decided, failed or open: a family chosen by the outcome of earlier looks
        /// would void Holm's bound ("The sequential gate" in the article on verdicts).
        private var family = 0

        package init(cases: Int, schedule: LookSchedule, criteria: ComparisonCriteria) {
            self.schedule = schedule
            self.criteria = criteria
            self.decisions = Array(repeating: nil, count: cases)
        }

        /// Takes the next look at `figures`, each case's pair figures so far by pair number, and
        /// decides those of the cases at `indices` that are still open.
        package mutating func look(at figures: [[Int: Double]], deciding indices: [Int]) {
            precondition(figures.count == decisions.count, "one figure set per case")
            taken += 1
            family = max(family, figures.filter { $0.count >= 2 }.count)
            let open = indices.filter { decisions[$0]?.isOpen ?? true }
            let estimates = open.map { index in
                // In pair order, so that sums come out the same every time.
                ChangeEstimate.paired(logRatios: figures[index].sorted { $0.key < $1.key }.map(\.value))
            }
            let decided = SequentialGate.decide(
                estimates, look: taken, of: schedule.looks, family: family, criteria: criteria)
            for (index, decision) in zip(open, decided) where decision != nil {
                decisions[index] = decision
            }
        }
    }
}
