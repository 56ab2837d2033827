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

    /// Replays the looks over each case's pair figures, by pair number, as `bench ab` took them:
    /// look `k` reads the pairs numbered below `k × pairsPerLook`, up to the last look that has
    /// pairs of its own. A case with fewer than two pairs gets `nil`. The family at every look is
    /// every case with at least two pairs.
    package static func replay(
        _ figures: [[Int: Double]], schedule: LookSchedule, criteria: ComparisonCriteria
    ) -> [GateDecision?] {
        let measured = (figures.flatMap(\.keys).max() ?? -1) + 1
        let family = figures.filter { $0.count >= 2 }.count
        var decisions = [GateDecision?](repeating: nil, count: figures.count)
        var look = 1
        while true {
            let pairs = schedule.pairs(atLook: look)
            let open = figures.indices.filter { decisions[$0]?.isOpen ?? true }
            let estimates = open.map { index in
                // In pair order, so that sums come out the same every time.
                ChangeEstimate.paired(
                    logRatios: figures[index].filter { $0.key < pairs }.sorted { $0.key < $1.key }.map(\.value))
            }
            let last = look >= schedule.looks || pairs >= measured
            for (index, decision) in zip(
                open, decide(estimates, look: look, of: schedule.looks, family: family, criteria: criteria))
            where decision != nil {
                decisions[index] = decision
            }
            if last { return decisions }
            look += 1
        }
    }
}
