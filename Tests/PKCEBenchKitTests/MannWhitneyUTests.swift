import PKCEBenchKit
import Testing

@Suite("The Mann-Whitney U test")
struct MannWhitneyUTests {
    /// Samples and what scipy 1.17.1 gives for them:
    /// `scipy.stats.mannwhitneyu(x, y, alternative="two-sided")` with its default `method="auto"`.
    struct Reference: Sendable, CustomTestStringConvertible {
        let name: String
        let x: [Double]
        let y: [Double]
        let u: Double
        let pValue: Double
        var testDescription: String { name }
    }

    static let references = [
        Reference(
            name: "12 against 12, no ties, fully separated (normal approximation)",
            x: [101.2, 99.8, 100.5, 102.1, 98.7, 100.0, 101.5, 99.1, 100.9, 100.3, 99.5, 101.8],
            y: [103.4, 104.1, 102.9, 105.0, 103.8, 104.6, 102.2, 103.0, 104.9, 103.3, 105.5, 102.7],
            u: 0, pValue: 3.6584553538971e-05),
        Reference(
            name: "12 against 13 with ties (tie correction)",
            x: [5, 5, 6, 7, 7, 7, 8, 9, 9, 10, 11, 12], y: [6, 7, 7, 8, 8, 9, 10, 10, 11, 12, 12, 13, 14],
            u: 47, pValue: 0.09461005164520558),
        Reference(
            name: "5 against 6, no ties (exact distribution)",
            x: [1.1, 2.2, 3.3, 4.4, 5.5], y: [2.5, 3.6, 6.6, 7.7, 8.8, 9.9], u: 5, pValue: 0.08225108225108226),
        Reference(
            name: "5 against 6 with ties (normal approximation despite the small size)",
            x: [1, 2, 2, 3, 4], y: [2, 3, 5, 6, 7, 8], u: 4.5, pValue: 0.06476896969888761),
        Reference(
            name: "identical samples", x: [10, 11, 12, 13, 14, 15, 16, 17, 18, 19],
            y: [10, 11, 12, 13, 14, 15, 16, 17, 18, 19], u: 50, pValue: 1.0),
        Reference(
            name: "benchmark-like samples with outliers, 12 against 14",
            x: [184.2, 181.9, 190.4, 183.3, 186.7, 182.5, 185.1, 199.8, 183.9, 184.8, 187.2, 182.2],
            y: [186.1, 188.4, 185.7, 191.2, 187.9, 189.5, 184.6, 186.8, 210.3, 188.1, 187.4, 190.0, 185.2, 189.9],
            u: 36, pValue: 0.014560234126405914),
        Reference(
            name: "8 against 8 with ties", x: [3, 1, 4, 1, 5, 9, 2, 6], y: [5, 3, 5, 8, 9, 7, 9, 3], u: 17,
            pValue: 0.12415307686326289),
    ]

    @Test("U and the p-value match scipy", arguments: references)
    func matchesScipy(reference: Reference) throws {
        let test = try #require(MannWhitneyU(reference.x, reference.y))
        #expect(test.u == reference.u)
        #expect(abs(test.pValue - reference.pValue) < 1e-9 * max(1, reference.pValue) + 1e-15)
    }

    @Test("Swapping the samples keeps the p-value and mirrors U")
    func symmetric() throws {
        let reference = Self.references[5]
        let forward = try #require(MannWhitneyU(reference.x, reference.y))
        let backward = try #require(MannWhitneyU(reference.y, reference.x))
        #expect(forward.pValue == backward.pValue)
        #expect(forward.u + backward.u == Double(reference.x.count * reference.y.count))
    }

    @Test("The exact p-value stays exact, and quick, when the other sample is large")
    func exactWithLargeSample() throws {
        // Every x below every y: U = 0, and one arrangement in C(n + 3, 3) is that extreme on each side.
        let y = (4...20_003).map(Double.init)
        let test = try #require(MannWhitneyU([1, 2, 3], y))
        let arrangements = 20_003.0 * 20_002 * 20_001 / 6
        #expect(test.u == 0)
        #expect(abs(test.pValue - 2 / arrangements) <= 1e-9 * (2 / arrangements))
    }

    @Test("An empty sample gives no test")
    func empty() {
        #expect(MannWhitneyU([], [1, 2]) == nil)
        #expect(MannWhitneyU([1, 2], []) == nil)
    }
}
