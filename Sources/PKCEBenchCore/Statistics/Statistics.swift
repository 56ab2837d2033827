/// Descriptive statistics of a set of measurements: percentiles as numpy's default (Hyndman and
/// Fan's type 7), the sample standard deviation (n − 1).
package struct Statistics: Sendable, Equatable {
    package let count: Int
    package let min: Double
    package let max: Double
    package let p10: Double
    package let median: Double
    package let p90: Double
    package let mean: Double
    /// 0 for a single value.
    package let standardDeviation: Double

    /// Standard deviation over mean.
    package var coefficientOfVariation: Double {
        mean == 0 ? 0 : standardDeviation / mean
    }

    package init?(_ values: [Double]) {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        count = sorted.count
        min = sorted[0]
        max = sorted[sorted.count - 1]
        p10 = Self.percentile(10, ofSorted: sorted)
        median = Self.percentile(50, ofSorted: sorted)
        p90 = Self.percentile(90, ofSorted: sorted)
        let mean = sorted.reduce(0, +) / Double(sorted.count)
        self.mean = mean
        let squares = sorted.reduce(0) { $0 + ($1 - mean) * ($1 - mean) }
        standardDeviation = sorted.count > 1 ? (squares / Double(sorted.count - 1)).squareRoot() : 0
    }

    /// The `percent`-th percentile (0 to 100) of ascending `sorted` values.
    package static func percentile(_ percent: Double, ofSorted sorted: [Double]) -> Double {
        precondition(!sorted.isEmpty && (0...100).contains(percent), "percentile of nothing, or beyond 0…100")
        let rank = percent / 100 * Double(sorted.count - 1)
        let lower = Int(rank.rounded(.down))
        let upper = Swift.min(lower + 1, sorted.count - 1)
        let fraction = rank - Double(lower)
        return sorted[lower] + (sorted[upper] - sorted[lower]) * fraction
    }
}
