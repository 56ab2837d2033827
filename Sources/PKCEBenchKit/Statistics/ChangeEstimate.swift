import Foundation

/// How much faster or slower one build is than another at one case, estimated with the
/// measuring process as the statistical unit.
///
/// Samples of one process are not independent: the process's code layout, its core and the load
/// of the machine while it ran bias all of them alike, so a test that treats 90 samples from 5
/// processes as 90 observations finds "significant" differences between two runs of one build
/// (measured here: in a quarter to a third of the cases at p < 0.01). Each process (or pair of
/// processes) is therefore reduced to one number, and the test runs on those numbers, on a log
/// scale so that a change is a ratio:
///
/// - **paired** (`bench ab`): process `i` of one build ran beside process `i` of the other,
///   their samples taken in turns, so the machine's drift cancels in each turn's log ratio; each
///   pair of processes gives the median of its turns' log ratios, and a one-sample t-test runs on
///   those.
/// - **independent** (`bench compare` of two runs): each process gives its fastest sample, which
///   a disturbed stretch of time moves least; Welch's t-test on the two sets of logs.
///
/// The change is `exp(mean log ratio) − 1` (positive is slower), the interval the t interval
/// carried through the same transform.
public struct ChangeEstimate: Sendable, Equatable {
    /// The estimated change, `current / baseline − 1`: positive is slower.
    public let change: Double
    /// The lower end of the confidence interval on ``change``.
    public let lower: Double
    /// The upper end of the confidence interval on ``change``.
    public let upper: Double
    /// The two-sided p-value of "no change".
    public let pValue: Double
    /// The smallest change this data could have told from no change at the interval's level:
    /// the interval's half-width, as a change (`exp(half-width) − 1`).
    public let detectable: Double
    /// The units the estimate rests on: pairs, or the processes of the smaller side.
    public let units: Int

    /// The confidence level of the interval.
    public static let confidence = 0.95

    /// The change between processes run in pairs, from one log ratio per pair.
    ///
    /// - Parameter logRatios: Each pair's `log(current / baseline)`.
    /// - Returns: `nil` with fewer than two pairs.
    public static func paired(logRatios: [Double]) -> ChangeEstimate? {
        let ratios = logRatios.filter(\.isFinite)
        guard ratios.count >= 2 else { return nil }
        let (mean, variance) = meanAndVariance(ratios)
        let n = Double(ratios.count)
        return ChangeEstimate(
            logChange: mean, standardError: (variance / n).squareRoot(), degreesOfFreedom: n - 1,
            units: ratios.count)
    }

    /// The change between two independent sets of processes, by Welch's t-test on their logs.
    ///
    /// When one side has a single process, its variance is taken to be the other side's (a
    /// t-test with the other side's degrees of freedom): one process cannot show its own spread.
    ///
    /// - Returns: `nil` when neither side has two processes, or either has none.
    public static func independent(baseline: [Double], current: [Double]) -> ChangeEstimate? {
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

    /// The estimate from a mean log change and its standard error.
    private init(logChange: Double, standardError: Double, degreesOfFreedom: Double, units: Int) {
        let distribution = StudentT(degreesOfFreedom: degreesOfFreedom)
        let halfWidth: Double
        if standardError > 0 {
            pValue = distribution.twoSidedTail(abs(logChange) / standardError)
            halfWidth = distribution.twoSidedCriticalValue(tail: 1 - Self.confidence) * standardError
        } else {
            // Every unit agrees exactly: no doubt either way.
            pValue = logChange == 0 ? 1 : 0
            halfWidth = 0
        }
        change = exp(logChange) - 1
        lower = exp(logChange - halfWidth) - 1
        upper = exp(logChange + halfWidth) - 1
        detectable = exp(halfWidth) - 1
        self.units = units
    }

    /// The mean and the sample variance (n − 1); the variance is 0 for one value.
    private static func meanAndVariance(_ values: [Double]) -> (Double, Double) {
        let mean = values.reduce(0, +) / Double(values.count)
        guard values.count > 1 else { return (mean, 0) }
        let squares = values.reduce(0) { $0 + ($1 - mean) * ($1 - mean) }
        return (mean, squares / Double(values.count - 1))
    }
}

/// Holm's step-down adjustment of p-values for testing many hypotheses at once (Holm 1979).
///
/// Rejecting every hypothesis whose adjusted p-value is below α keeps the probability of even one
/// false rejection, over the whole family, at most α, whatever the dependence between the tests:
/// a full compare of 56 cases at α = 0.01 cries wolf in at most 1% of comparisons of equal builds.
/// The result equals statsmodels' `multipletests(p, method="holm")`.
///
/// - Parameter pValues: The raw p-values, in any order.
/// - Returns: The adjusted p-values, in the same order.
public func holmAdjusted(_ pValues: [Double]) -> [Double] {
    let order = pValues.indices.sorted { pValues[$0] < pValues[$1] }
    var adjusted = [Double](repeating: 1, count: pValues.count)
    var running = 0.0
    for (rank, index) in order.enumerated() {
        running = max(running, min(1, Double(pValues.count - rank) * pValues[index]))
        adjusted[index] = running
    }
    return adjusted
}
