import Foundation
import PKCEBenchCore
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
        let standardError: Double
        let df: Double
        let pSlower: Double
        let pFaster: Double
        let lower: Double
        let upper: Double
    }

    struct Independent: Decodable {
        let baseline: [Double]
        let current: [Double]
        let change: Double
        let pSlower: Double
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

    @Test(
        "Paired change: the 20% trimmed mean with Yuen's standard error, as scipy's trim_mean and mstats.trimmed_stde"
    )
    func paired() throws {
        for value in Self.reference.paired {
            let estimate = try #require(ChangeEstimate.paired(logRatios: value.logRatios))
            #expect(close(estimate.change, value.change))
            #expect(close(estimate.standardError, value.standardError, relative: 1e-9))
            #expect(estimate.degreesOfFreedom == value.df)
            #expect(close(estimate.pValue(.slower), value.pSlower, relative: 1e-8))
            #expect(close(estimate.pValue(.faster), value.pFaster, relative: 1e-8))
            #expect(close(estimate.bound(.faster, confidence: 0.95), value.lower, relative: 1e-8))
            #expect(close(estimate.bound(.slower, confidence: 0.95), value.upper, relative: 1e-8))
            #expect(estimate.units == value.logRatios.count)
        }
    }

    @Test(
        "Independent change: Welch's t-test on logs, as scipy.stats.ttest_ind(equal_var=False, alternative='greater')")
    func independent() throws {
        for value in Self.reference.independent {
            let estimate = try #require(ChangeEstimate.independent(baseline: value.baseline, current: value.current))
            #expect(close(estimate.change, value.change))
            #expect(close(estimate.pValue(.slower), value.pSlower, relative: 1e-8))
            #expect(close(estimate.bound(.faster, confidence: 0.95), value.lower, relative: 1e-8))
            #expect(close(estimate.bound(.slower, confidence: 0.95), value.upper, relative: 1e-8))
        }
    }

    @Test("One slow pair moves the trimmed mean little, and the plain mean a lot")
    func robustToOneSlowPair() throws {
        // 19 pairs within ±0.5% and one whose baseline process ran 21.5% slow.
        let steady = (0..<19).map { Double($0 % 5 - 2) * 0.0025 }
        let estimate = try #require(ChangeEstimate.paired(logRatios: steady + [-0.215]))
        #expect(abs(estimate.change) < 0.001)
        #expect(estimate.bound(.slower, confidence: 0.95) < 0.005)
        let mean = (steady + [-0.215]).reduce(0, +) / 20
        #expect(mean < -0.01)
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
        #expect(same.change == 0 && same.pValue(.slower) == 1 && same.pValue(.faster) == 1)
        #expect(same.bound(.slower, confidence: 0.95) == 0 && same.bound(.faster, confidence: 0.95) == 0)
        let shifted = try #require(ChangeEstimate.independent(baseline: [100, 100], current: [110, 110]))
        #expect(close(shifted.change, 0.1) && shifted.pValue(.slower) == 0 && shifted.pValue(.faster) == 1)
        // One process on one side borrows the other side's spread.
        let single = try #require(ChangeEstimate.independent(baseline: [100, 102, 98], current: [120]))
        #expect(single.change > 0.19 && single.units == 1 && single.bound(.faster, confidence: 0.95) < single.change)
    }
}
