import Foundation

/// The two-sided Mann–Whitney U test: do two sets of samples come from the same distribution?
///
/// It compares ranks, not values, so it assumes no particular distribution and a few outliers
/// (a preempted sample) move it little: the test Google Benchmark's `compare.py` uses. The
/// p-value is computed as scipy's `mannwhitneyu(x, y, alternative="two-sided")` does with its
/// default `method="auto"`: exactly when either sample has at most 8 values and there are no
/// ties; otherwise from the normal approximation with tie correction and continuity correction.
public struct MannWhitneyU: Sendable, Equatable {
    /// U of the first sample: the number of pairs (x, y) with x > y, ties counting one half.
    public let u: Double
    /// The two-sided p-value: the probability of a U at least this extreme if both samples came
    /// from the same distribution.
    public let pValue: Double

    /// Runs the test.
    ///
    /// - Parameters:
    ///   - x: The first sample; at least one value.
    ///   - y: The second sample; at least one value.
    /// - Returns: `nil` when either sample is empty.
    public init?(_ x: [Double], _ y: [Double]) {
        guard !x.isEmpty, !y.isEmpty else { return nil }
        let n1 = Double(x.count), n2 = Double(y.count)
        let (ranks, tieGroups) = Self.ranks(of: x + y)
        let rankSumX = ranks[..<x.count].reduce(0, +)
        u = rankSumX - n1 * (n1 + 1) / 2
        let extreme = max(u, n1 * n2 - u)
        if (x.count <= 8 || y.count <= 8) && tieGroups.isEmpty {
            pValue = min(1, 2 * Self.exactSurvival(atLeast: Int(extreme.rounded()), x.count, y.count))
        } else {
            let n = n1 + n2
            let tieTerm = tieGroups.reduce(0) { $0 + ($1 * $1 * $1 - $1) } / (n * (n - 1))
            let sigma = (n1 * n2 / 12 * ((n + 1) - tieTerm)).squareRoot()
            guard sigma > 0 else {
                // Every value is the same: nothing tells the samples apart.
                pValue = 1
                return
            }
            let z = (extreme - n1 * n2 / 2 - 0.5) / sigma
            pValue = min(1, max(0, erfc(z / 2.0.squareRoot())))
        }
    }

    /// Ranks from 1, ties given the mean of the ranks they span, and the sizes of the tie groups.
    private static func ranks(of values: [Double]) -> ([Double], [Double]) {
        let order = values.indices.sorted { values[$0] < values[$1] }
        var ranks = [Double](repeating: 0, count: values.count)
        var tieGroups: [Double] = []
        var start = 0
        while start < order.count {
            var end = start + 1
            while end < order.count && values[order[end]] == values[order[start]] { end += 1 }
            let meanRank = Double(start + end + 1) / 2
            for position in start..<end { ranks[order[position]] = meanRank }
            if end - start > 1 { tieGroups.append(Double(end - start)) }
            start = end
        }
        return (ranks, tieGroups)
    }

    /// P(U ≥ `u`) for samples of `m` and `n` values without ties, from the exact distribution of U.
    ///
    /// The counts of arrangements by U are the coefficients of the Gaussian binomial coefficient
    /// `[m + n choose m]_q = ∏ (1 − q^(n+i)) / (1 − q^i)` for i = 1…m. Each step of the product is
    /// again such a coefficient, so the counts never go negative; with m the smaller sample, the
    /// cost is m² n, which stays small when one sample holds at most 8 values and the other
    /// thousands.
    private static func exactSurvival(atLeast u: Int, _ m: Int, _ n: Int) -> Double {
        let (m, n) = (min(m, n), max(m, n))  // U's distribution is the same either way round.
        var counts = [Double](repeating: 0, count: m * n + m + 1)
        counts[0] = 1
        for i in stride(from: 1, through: m, by: 1) {
            // × (1 − q^(n+i)), from the top so that each term reads the previous coefficients.
            for k in stride(from: i * n + i, through: n + i, by: -1) {
                counts[k] -= counts[k - n - i]
            }
            // ÷ (1 − q^i): c[k] = a[k] + c[k − i], from the bottom.
            for k in stride(from: i, through: i * n + i, by: 1) {
                counts[k] += counts[k - i]
            }
        }
        let distribution = counts[...(m * n)]
        let total = distribution.reduce(0, +)
        let tail = distribution[min(max(u, 0), m * n)...].reduce(0, +)
        return tail / total
    }
}
