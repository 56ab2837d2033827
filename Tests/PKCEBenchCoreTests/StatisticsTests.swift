import PKCEBenchCore
import Testing

@Suite("Descriptive statistics")
struct StatisticsTests {
    /// A data set and the values numpy 2.4 gives for it: `np.percentile(a, [10, 50, 90])` (linear
    /// interpolation, the default), `a.mean()`, `a.std(ddof=1)`, `a.min()`.
    struct Reference: Sendable, CustomTestStringConvertible {
        let values: [Double]
        let p10, median, p90, mean, standardDeviation, min: Double
        var testDescription: String { "\(values.count) values" }
    }

    static let references = [
        Reference(
            values: [12.5, 3.1, 7.7, 9.9, 15.2, 4.4, 8.8, 11.0, 6.6, 10.1],
            p10: 4.2700000000000005, median: 9.350000000000001, p90: 12.77, mean: 8.93,
            standardDeviation: 3.653324209234348, min: 3.1),
        Reference(
            values: [101.0, 99.5, 100.25, 98.0, 250.0, 100.0, 99.0, 100.5],
            p10: 98.7, median: 100.125, p90: 145.7, mean: 118.53125, standardDeviation: 53.12963215099461, min: 98.0),
        Reference(values: [42.0], p10: 42, median: 42, p90: 42, mean: 42, standardDeviation: 0, min: 42),
        Reference(values: [5.0, 5.0, 5.0, 1.0], p10: 2.2, median: 5, p90: 5, mean: 4, standardDeviation: 2, min: 1),
    ]

    @Test("Percentiles, mean and standard deviation match numpy", arguments: references)
    func matchesNumpy(reference: Reference) throws {
        let statistics = try #require(Statistics(reference.values))
        #expect(statistics.count == reference.values.count)
        #expect(abs(statistics.p10 - reference.p10) < 1e-9)
        #expect(abs(statistics.median - reference.median) < 1e-9)
        #expect(abs(statistics.p90 - reference.p90) < 1e-9)
        #expect(abs(statistics.mean - reference.mean) < 1e-9)
        #expect(abs(statistics.standardDeviation - reference.standardDeviation) < 1e-9)
        #expect(statistics.min == reference.min)
        #expect(abs(statistics.coefficientOfVariation - reference.standardDeviation / reference.mean) < 1e-12)
    }

    @Test("The order of the values does not matter")
    func orderIndependent() throws {
        let values = Self.references[0].values
        #expect(Statistics(values) == Statistics(values.reversed()))
        #expect(Statistics(values) == Statistics(values.sorted()))
    }

    @Test("No values, no statistics")
    func empty() {
        #expect(Statistics([]) == nil)
    }
}
