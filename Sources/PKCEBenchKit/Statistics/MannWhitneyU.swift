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
    /// The number of arrangements with U = k satisfies
    /// `f(m, n, k) = f(m − 1, n, k − n) + f(m, n − 1, k)`; this builds it up column by column.
    private static func exactSurvival(atLeast u: Int, _ m: Int, _ n: Int) -> Double {
        // counts[i][k]: arrangements of i values of the first sample among j of the second with U = k.
        var counts = [[Double]](repeating: [1], count: m + 1)
        for j in 1...n {
            var next = [[Double]](repeating: [], count: m + 1)
            next[0] = [1]
            for i in 1...m {
                let size = i * j + 1
                var row = [Double](repeating: 0, count: size)
                for k in 0..<size {
                    // The largest of the i + j values belongs to the first sample (adds j to U) or to the second.
                    let fromFirst = k >= j && k - j < next[i - 1].count ? next[i - 1][k - j] : 0
                    let fromSecond = k < counts[i].count ? counts[i][k] : 0
                    row[k] = fromFirst + fromSecond
                }
                next[i] = row
            }
            counts = next
        }
        let distribution = counts[m]
        let total = distribution.reduce(0, +)
        let tail = distribution.indices.filter { $0 >= u }.reduce(0) { $0 + distribution[$1] }
        return tail / total
    }
}
