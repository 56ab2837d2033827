/// Change points in a series by E-divisive means (Matteson and James, "A nonparametric approach for
/// multiple change point analysis of multivariate data", JASA 2014), the method of MongoDB's
/// performance CI and of Apache Otava: split the series where the energy distance between the two
/// sides, weighted by their sizes, is greatest; keep the split when a permutation test says so;
/// split the pieces again until one is not kept.
///
/// The significance of each split is its permutation p-value: the share of random orderings of the
/// values within the current segments whose best split is at least as strong. Under no change the
/// values are exchangeable and the p-value is exact; bursts of contention that span neighbouring
/// runs are not exchangeable, which is what the minimum segment length and the magnitude filter of
/// ``ChangePointAnalysis`` are for. The permutations come from a fixed seed, so one history gives one
/// answer every time.
package struct EDivisive: Sendable, Equatable {
    /// A split is kept when its p-value is at most this.
    package var significance: Double
    /// Random orderings per test; the smallest p-value is `1 / (permutations + 1)`.
    package var permutations: Int
    /// The fewest values on each side of a split.
    package var minimumSegment: Int

    package init(significance: Double, permutations: Int, minimumSegment: Int) {
        precondition(significance > 0 && significance < 1 && permutations >= 1 && minimumSegment >= 2)
        self.significance = significance
        self.permutations = permutations
        self.minimumSegment = minimumSegment
    }

    /// A kept split: `values[..<index]` and `values[index...]` differ.
    package struct Split: Sendable, Equatable {
        package let index: Int
        package let pValue: Double
    }

    /// The kept splits of `values`, in the order of the series; a split falls only at an index in
    /// `allowed` (where one commit's runs end and the next's begin), or anywhere when it is `nil`.
    /// The series is cut at each index of `fixed` before any split is sought (where the environment
    /// changed): those cuts are not tested and not returned, and no segment reaches across them.
    package func splits(of values: [Double], allowedAt allowed: Set<Int>? = nil, fixed: Set<Int> = []) -> [Split] {
        var boundaries = ([0, values.count] + fixed.filter { $0 > 0 && $0 < values.count }).uniqued().sorted()
        var kept: [Split] = []
        var generator = SplitMix64(seed: 0x5eed)
        func permutationPValue(_ asStrong: Int) -> Double { Double(asStrong + 1) / Double(permutations + 1) }
        while let best = strongestSplit(of: values, boundaries: boundaries, allowed: allowed) {
            var shuffled = values
            var asStrong = 0
            // Once too many orderings are as strong for the split to be kept, the rest are not
            // drawn: the test that fails, the last of every series, is most of the work.
            for _ in 0..<permutations where permutationPValue(asStrong) <= significance {
                for (start, end) in zip(boundaries, boundaries.dropFirst()) {
                    shuffled[start..<end].shuffle(using: &generator)
                }
                if let permuted = strongestSplit(of: shuffled, boundaries: boundaries, allowed: allowed),
                    permuted.strength >= best.strength
                {
                    asStrong += 1
                }
            }
            let pValue = permutationPValue(asStrong)
            guard pValue <= significance else { break }
            kept.append(Split(index: best.index, pValue: pValue))
            boundaries.append(best.index)
            boundaries.sort()
        }
        return kept.sorted { $0.index < $1.index }
    }

    /// The split, over every segment between `boundaries`, with the greatest weighted energy
    /// distance `q̂(τ, κ) = mn/(m+n) · Ê` between the values before `τ` and those from `τ` up to
    /// `κ` (Matteson and James, eq. 6, exponent 1): the second side ends anywhere in the segment, so
    /// a burst that comes and goes is found as well as a step that stays. `nil` when no segment can
    /// be split into two of ``minimumSegment``.
    private func strongestSplit(
        of values: [Double], boundaries: [Int], allowed: Set<Int>?
    ) -> (index: Int, strength: Double)? {
        var best: (index: Int, strength: Double)?
        for (start, end) in zip(boundaries, boundaries.dropFirst()) where end - start >= 2 * minimumSegment {
            let distances = PrefixDistances(values[start..<end])
            for index in (start + minimumSegment)...(end - minimumSegment) where allowed?.contains(index) ?? true {
                for secondEnd in (index + minimumSegment)...end {
                    let strength = distances.strength(splitAt: index - start, secondEnd: secondEnd - start)
                    if strength > best?.strength ?? -.infinity { best = (index, strength) }
                }
            }
        }
        return best
    }
}

/// Sums of `|x_a − x_b|` over rectangles of the distance matrix of a segment, each in constant time:
/// `sum(i, j)` is the sum over `a < i`, `b < j`. One flat buffer, not an array per row: the
/// permutation test builds one for every ordering, and it is most of the analysis' time.
private struct PrefixDistances {
    private let sums: [Double]
    /// The buffer's row length: the segment's count, plus one.
    private let stride: Int

    init(_ values: ArraySlice<Double>) {
        let values = Array(values)
        let count = values.count
        let stride = count + 1
        self.stride = stride
        // The first row and column stay 0: empty sums.
        var sums = [Double](repeating: 0, count: stride * stride)
        for a in 0..<count {
            var row = 0.0
            for b in 0..<count {
                row += abs(values[a] - values[b])
                sums[(a + 1) * stride + b + 1] = sums[a * stride + b + 1] + row
            }
        }
        self.sums = sums
    }

    private func sum(_ i: Int, _ j: Int) -> Double { sums[i * stride + j] }

    /// `q̂` of the values in `[0, split)` against those in `[split, secondEnd)`.
    func strength(splitAt split: Int, secondEnd end: Int) -> Double {
        let m = Double(split), n = Double(end - split)
        let between = sum(split, end) - sum(split, split)
        // Ordered pairs, so each distance twice: `2/(m(m−1)) Σ_{a<b}` is `1/(m(m−1))` of the sum.
        let withinFirst = split > 1 ? sum(split, split) / (m * (m - 1)) : 0
        let second = sum(end, end) - sum(split, end) - sum(end, split) + sum(split, split)
        let withinSecond = end - split > 1 ? second / (n * (n - 1)) : 0
        let energy = 2 * between / (m * n) - withinFirst - withinSecond
        return m * n / (m + n) * energy
    }
}
