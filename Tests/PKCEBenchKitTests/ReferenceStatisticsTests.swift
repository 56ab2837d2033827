import Foundation
import PKCEBenchKit
import Testing

/// Reference values computed by scipy (`Reference/generate.py`), committed as data.
struct StatisticsReference: Decodable {
    struct Tail: Decodable {
        let df: Double
        let t: Double
        let tail: Double
    }

    struct Critical: Decodable {
        let df: Double
        let tail: Double
        let t: Double
    }

    struct Paired: Decodable {
        let logRatios: [Double]
        let change: Double
        let pValue: Double
        let lower: Double
        let upper: Double
    }

    struct Independent: Decodable {
        let baseline: [Double]
        let current: [Double]
        let change: Double
        let pValue: Double
        let lower: Double
        let upper: Double
    }

    struct Holm: Decodable {
        let pValues: [Double]
        let adjusted: [Double]
    }

    let source: String
    let tTails: [Tail]
    let tCritical: [Critical]
    let paired: [Paired]
    let independent: [Independent]
    let holm: [Holm]

    static let loaded: StatisticsReference = {
        guard let url = Bundle.module.url(forResource: "statistics", withExtension: "json", subdirectory: "Reference"),
            let data = try? Data(contentsOf: url)
        else { preconditionFailure("Reference/statistics.json is missing from the test bundle") }
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        do {
            return try decoder.decode(StatisticsReference.self, from: data)
        } catch {
            preconditionFailure("Reference/statistics.json does not decode: \(error)")
        }
    }()
}

/// `a` and `b` agree to `relative` of their size, or to `absolute` near zero.
func close(_ a: Double, _ b: Double, relative: Double = 1e-9, absolute: Double = 1e-15) -> Bool {
    abs(a - b) <= max(absolute, relative * max(abs(a), abs(b)))
}

@Suite("Statistics against scipy")
struct ReferenceStatisticsTests {
    static let reference = StatisticsReference.loaded

    @Test("Student's t: two-sided tails, as scipy.stats.t.sf", arguments: reference.tTails.indices)
    func tails(index: Int) {
        let value = Self.reference.tTails[index]
        let computed = StudentT(degreesOfFreedom: value.df).twoSidedTail(value.t)
        #expect(close(computed, value.tail), "df \(value.df), t \(value.t): \(computed) against \(value.tail)")
    }

    @Test("Student's t: critical values, as scipy.stats.t.isf", arguments: reference.tCritical.indices)
    func criticalValues(index: Int) {
        let value = Self.reference.tCritical[index]
        let computed = StudentT(degreesOfFreedom: value.df).twoSidedCriticalValue(tail: value.tail)
        #expect(close(computed, value.t), "df \(value.df), tail \(value.tail): \(computed) against \(value.t)")
    }

    @Test("Paired change: a one-sample t-test on log ratios, as scipy.stats.ttest_1samp")
    func paired() throws {
        for value in Self.reference.paired {
            let estimate = try #require(ChangeEstimate.paired(logRatios: value.logRatios))
            #expect(close(estimate.change, value.change))
            #expect(close(estimate.pValue, value.pValue, relative: 1e-8))
            #expect(close(estimate.lower, value.lower, relative: 1e-8))
            #expect(close(estimate.upper, value.upper, relative: 1e-8))
            #expect(close(estimate.detectable, (1 + value.upper) / (1 + value.change) - 1, relative: 1e-8))
            #expect(estimate.units == value.logRatios.count)
        }
    }

    @Test("Independent change: Welch's t-test on logs, as scipy.stats.ttest_ind(equal_var=False)")
    func independent() throws {
        for value in Self.reference.independent {
            let estimate = try #require(ChangeEstimate.independent(baseline: value.baseline, current: value.current))
            #expect(close(estimate.change, value.change))
            #expect(close(estimate.pValue, value.pValue, relative: 1e-8))
            #expect(close(estimate.lower, value.lower, relative: 1e-8))
            #expect(close(estimate.upper, value.upper, relative: 1e-8))
        }
    }

    @Test("Holm's adjustment")
    func holm() {
        for value in Self.reference.holm {
            let adjusted = holmAdjusted(value.pValues)
            #expect(zip(adjusted, value.adjusted).allSatisfy { close($0, $1) }, "\(adjusted) against \(value.adjusted)")
        }
    }

    @Test("Too little data gives no estimate; units that all agree give no doubt")
    func edges() throws {
        #expect(ChangeEstimate.paired(logRatios: [0.01]) == nil)
        #expect(ChangeEstimate.independent(baseline: [100], current: [110]) == nil)
        #expect(ChangeEstimate.independent(baseline: [], current: [100, 110]) == nil)
        let same = try #require(ChangeEstimate.paired(logRatios: [0, 0, 0]))
        #expect(same.change == 0 && same.pValue == 1 && same.lower == 0 && same.upper == 0)
        let shifted = try #require(ChangeEstimate.independent(baseline: [100, 100], current: [110, 110]))
        #expect(close(shifted.change, 0.1) && shifted.pValue == 0)
        // One process on one side borrows the other side's spread.
        let single = try #require(ChangeEstimate.independent(baseline: [100, 102, 98], current: [120]))
        #expect(single.change > 0.19 && single.units == 1 && single.lower < single.change)
    }
}
