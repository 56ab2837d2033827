import Foundation

/// How much faster or slower one build is than another at one case, estimated on the log scale with
/// the measuring process (or pair of processes) as the statistical unit: paired, the 20% trimmed
/// mean of the pairs' figures with Yuen's standard error; independent, Welch's t-test on each
/// process's fastest sample. The article "The statistics of each verdict" says why and gives the
/// references. The change is `exp(log change) − 1`; positive is slower.
package struct ChangeEstimate: Sendable, Equatable {
    /// `log(current / baseline)`.
    package let logChange: Double
    package let standardError: Double
    package let degreesOfFreedom: Double
    /// The units the estimate rests on: pairs, or the processes of the smaller side.
    package let units: Int
    /// A bound, on the log scale, on a bias the standard error does not cover (the drift floor of
    /// runs made apart without a measured spread), given its full size against the change.
    package var driftBound: Double = 0

    /// The share of pairs trimmed from each end before averaging (Wilcox, §3.5).
    package static let trimming = 0.2

    package var change: Double { exp(logChange) - 1 }

    /// The change between processes run in pairs, from each pair's `log(current / baseline)`: the
    /// trimmed mean with Yuen's standard error; `nil` with fewer than two pairs.
    package static func paired(logRatios: [Double]) -> ChangeEstimate? {
        let sorted = logRatios.filter(\.isFinite).sorted()
        guard sorted.count >= 2 else { return nil }
        let n = sorted.count
        let g = Int((trimming * Double(n)).rounded(.down))
        let kept = sorted[g..<(n - g)]
        let trimmedMean = kept.reduce(0, +) / Double(kept.count)
        // Winsorized: the g lowest set to the lowest kept value, the g highest to the highest.
        let winsorized = Array(repeating: sorted[g], count: g) + kept + Array(repeating: sorted[n - g - 1], count: g)
        let (_, variance) = meanAndVariance(winsorized)
        // Over the nominal (1 − 2γ), as Wilcox's trimse and scipy's trimmed_stde divide.
        let standardError = variance.squareRoot() / ((1 - 2 * trimming) * Double(n).squareRoot())
        return ChangeEstimate(
            logChange: trimmedMean, standardError: standardError, degreesOfFreedom: Double(max(kept.count - 1, 1)),
            units: n)
    }

    /// The change between two independent sets of processes, by Welch's t-test on their logs; a
    /// side of one process borrows the other's variance. `nil` when neither side has two processes.
    package static func independent(baseline: [Double], current: [Double]) -> ChangeEstimate? {
        let x = baseline.filter { $0 > 0 }.map(log)
        let y = current.filter { $0 > 0 }.map(log)
        guard !x.isEmpty, !y.isEmpty, x.count >= 2 || y.count >= 2 else { return nil }
        let (meanX, varianceX) = meanAndVariance(x)
        let (meanY, varianceY) = meanAndVariance(y)
        let nx = Double(x.count), ny = Double(y.count)
        let standardError: Double
        let degreesOfFreedom: Double
        if x.count >= 2 && y.count >= 2 {
            let a = varianceX / nx, b = varianceY / ny
            standardError = (a + b).squareRoot()
            // Welch–Satterthwaite; with no spread on either side any value will do.
            let denominator = a * a / (nx - 1) + b * b / (ny - 1)
            degreesOfFreedom = denominator > 0 ? (a + b) * (a + b) / denominator : nx + ny - 2
        } else {
            let (variance, count) = x.count >= 2 ? (varianceX, nx) : (varianceY, ny)
            standardError = (variance / nx + variance / ny).squareRoot()
            degreesOfFreedom = count - 1
        }
        return ChangeEstimate(
            logChange: meanY - meanX, standardError: standardError, degreesOfFreedom: degreesOfFreedom,
            units: min(x.count, y.count))
    }

    package init(logChange: Double, standardError: Double, degreesOfFreedom: Double, units: Int) {
        self.logChange = logChange
        self.standardError = standardError
        self.degreesOfFreedom = degreesOfFreedom
        self.units = units
    }

    /// Which way a one-sided question looks.
    package enum Direction: Sendable {
        case slower
        case faster
    }

    /// The one-sided p-value of "no change" against a change in `direction`.
    package func pValue(_ direction: Direction) -> Double {
        let t = (direction == .slower ? logChange : -logChange) - driftBound
        guard standardError > 0 else { return t > 0 ? 0 : 1 }
        let twoSided = distribution.twoSidedTail(abs(t) / standardError)
        return t > 0 ? twoSided / 2 : 1 - twoSided / 2
    }

    /// The one-sided confidence bound on ``change`` at `confidence`: the upper bound for
    /// `.slower` (the change is below it with that confidence), the lower bound for `.faster`.
    package func bound(_ direction: Direction, confidence: Double) -> Double {
        let margin = criticalValue(tail: 1 - confidence) * standardError + driftBound
        return exp(direction == .slower ? logChange + margin : logChange - margin) - 1
    }

    /// The `t` that a one-sided test at level `tail` (below 0.5) must exceed, in standard errors.
    package func criticalValue(tail: Double) -> Double {
        distribution.twoSidedCriticalValue(tail: 2 * tail)
    }

    /// The quantile of the estimate's t distribution at probability `probability` (above 0.5).
    func quantile(_ probability: Double) -> Double {
        distribution.twoSidedCriticalValue(tail: 2 * (1 - probability))
    }

    private var distribution: StudentT {
        StudentT(degreesOfFreedom: degreesOfFreedom)
    }

    /// The mean and the sample variance (n − 1); the variance is 0 for one value.
    private static func meanAndVariance(_ values: [Double]) -> (Double, Double) {
        let mean = values.reduce(0, +) / Double(values.count)
        guard values.count > 1 else { return (mean, 0) }
        let squares = values.reduce(0) { $0 + ($1 - mean) * ($1 - mean) }
        return (mean, squares / Double(values.count - 1))
    }
}

/// Holm's step-down adjustment of p-values (Holm 1979): statsmodels' `multipletests(p,
/// method="holm")`, in the order of `pValues`. With `family` larger than the count, the family's
/// other hypotheses count with a p-value of 1: they are in it, but not tested.
package func holmAdjusted(_ pValues: [Double], family: Int = 0) -> [Double] {
    let size = max(family, pValues.count)
    let order = pValues.indices.sorted { pValues[$0] < pValues[$1] }
    var adjusted = [Double](repeating: 1, count: pValues.count)
    var running = 0.0
    for (rank, index) in order.enumerated() {
        running = max(running, min(1, Double(size - rank) * pValues[index]))
        adjusted[index] = running
    }
    return adjusted
}
