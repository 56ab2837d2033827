import PKCEBenchKit
import PKCEBenchTestSupport
import Testing

@Suite("Comparing runs")
struct ComparisonTests {
    static func data(_ report: RunReport, samples: Bool = true) -> RunData {
        RunData(name: report.environment.runID, summaries: report.summaries, samples: samples ? report.samples : nil)
    }

    static let target = CaseKey(backend: "openssl", operation: .challenge, size: 43, threads: 1)

    @Test("A run compared with itself: nothing changed")
    func itself() throws {
        let run = Self.data(SyntheticRun.report())
        let comparison = try Comparison(baseline: run, current: run)
        #expect(comparison.cases.count == 56)
        #expect(comparison.cases.allSatisfy { $0.verdict == .unchanged && $0.change == 0 && $0.pValue == 1 })
        #expect(!comparison.hasRegression)
        #expect(comparison.environmentDifferences.isEmpty)
        #expect(comparison.warnings.isEmpty)
    }

    @Test("Two runs with different noise: nothing changed")
    func differentNoise() throws {
        let comparison = try Comparison(
            baseline: Self.data(SyntheticRun.report(seed: 1)), current: Self.data(SyntheticRun.report(seed: 2)))
        #expect(comparison.cases.allSatisfy { $0.verdict == .unchanged })
    }

    @Test("One case 10% slower: exactly that case regressed", arguments: [1.10, 1.25, 2.0])
    func oneRegression(factor: Double) throws {
        let baseline = Self.data(SyntheticRun.report())
        let current = Self.data(SyntheticRun.report(scale: [Self.target: factor]))
        let comparison = try Comparison(baseline: baseline, current: current)
        #expect(comparison.cases.filter { $0.verdict == .regressed }.map(\.key) == [Self.target])
        #expect(comparison.cases.filter { $0.verdict != .regressed }.allSatisfy { $0.verdict == .unchanged })
        #expect(comparison.hasRegression)
        let changed = try #require(comparison.cases.first { $0.key == Self.target })
        #expect(abs((changed.change ?? 0) - (factor - 1)) < 1e-9)
        #expect((changed.pValue ?? 1) < 0.01)
        #expect(changed.method == .mannWhitney)
    }

    @Test("One case 10% faster: exactly that case improved, and no regression")
    func oneImprovement() throws {
        let comparison = try Comparison(
            baseline: Self.data(SyntheticRun.report()),
            current: Self.data(SyntheticRun.report(scale: [Self.target: 0.9])))
        #expect(comparison.cases.filter { $0.verdict == .improved }.map(\.key) == [Self.target])
        #expect(comparison.cases.filter { $0.verdict != .improved }.allSatisfy { $0.verdict == .unchanged })
        #expect(!comparison.hasRegression)
    }

    @Test("A busy machine that delays most samples moves the median but not the fastest sample: unchanged")
    func disturbedRun() throws {
        // As seen on a shared machine: in one run, the slower 80% of the samples are half as fast
        // again, while the rest are as fast as ever.
        let baseline = SyntheticRun.report()
        let disturbed = RunReport(
            environment: baseline.environment,
            measurements: SyntheticRun.keys.map { key in
                let samples = baseline.samples.filter { $0.key == key }.map(\.nsPerOp)
                let cutoff = samples.sorted()[samples.count / 5]
                return CaseMeasurement(
                    key: key, iterations: 1000, nanosecondsPerOperation: samples.map { $0 > cutoff ? $0 * 1.5 : $0 },
                    failure: nil)
            })
        let comparison = try Comparison(baseline: Self.data(baseline), current: Self.data(disturbed))
        #expect(comparison.cases.allSatisfy { ($0.change ?? 0) > 0.05 })
        // The median and the U test alone would have cried wolf for most cases.
        let significant = comparison.cases.filter { ($0.pValue ?? 1) < 0.01 }.count
        #expect(significant > comparison.cases.count / 2, "only \(significant) significant")
        #expect(comparison.cases.allSatisfy { $0.fastestChange == 0 && $0.verdict == .unchanged })
        // And the reader is told that the current run was too noisy to see a small regression.
        #expect(comparison.warnings.count == 1)
        #expect(
            comparison.warnings.first?.hasPrefix(
                "warning: \(disturbed.environment.runID) was measured on a busy machine") == true)
    }

    @Test("A change within the threshold is unchanged, however significant")
    func withinThreshold() throws {
        let comparison = try Comparison(
            baseline: Self.data(SyntheticRun.report()),
            current: Self.data(SyntheticRun.report(scale: [Self.target: 1.04])))
        let changed = try #require(comparison.cases.first { $0.key == Self.target })
        #expect((changed.pValue ?? 1) < 0.01)
        #expect(changed.verdict == .unchanged)
    }

    @Test("A change beyond the threshold that the samples do not support is unchanged")
    func notSignificant() throws {
        // Three samples a side cannot reach p < 0.01: the exact two-sided minimum is 0.1.
        let baseline = Self.data(SyntheticRun.report(samples: 3))
        let current = Self.data(SyntheticRun.report(samples: 3, scale: [Self.target: 1.5]))
        let changed = try #require(
            try Comparison(baseline: baseline, current: current).cases.first { $0.key == Self.target })
        #expect(changed.pValue == 0.1)
        #expect(changed.verdict == .unchanged)
    }

    @Test("Without samples the threshold alone decides, and says so")
    func thresholdOnly() throws {
        let baseline = Self.data(SyntheticRun.report(), samples: false)
        let current = Self.data(SyntheticRun.report(scale: [Self.target: 1.10]))
        let comparison = try Comparison(baseline: baseline, current: current)
        #expect(comparison.usedThresholdOnly)
        #expect(comparison.cases.allSatisfy { $0.method == .threshold && $0.pValue == nil })
        #expect(comparison.cases.filter { $0.verdict == .regressed }.map(\.key) == [Self.target])
        let table = ComparisonFormatter.render(comparison, as: .table)
        #expect(table.contains("no samples for 56 case(s): their verdicts use the 5% threshold alone"))
    }

    @Test("--threshold and --alpha change the verdicts")
    func criteria() throws {
        let baseline = Self.data(SyntheticRun.report())
        let current = Self.data(SyntheticRun.report(scale: [Self.target: 1.10]))
        let loose = try Comparison(baseline: baseline, current: current, criteria: .init(threshold: 0.2, alpha: 0.01))
        #expect(!loose.hasRegression)
        let strict = try Comparison(
            baseline: baseline, current: current, criteria: .init(threshold: 0.05, alpha: 1e-30))
        #expect(!strict.hasRegression)
    }

    @Test("Cases in one run only are listed, not errors")
    func oneSided() throws {
        var baselineRows = SyntheticRun.report().summaries
        var currentRows = SyntheticRun.report().summaries
        let onlyInBaseline = baselineRows.removeLast().key
        let onlyInCurrent = currentRows.removeFirst().key
        let comparison = try Comparison(
            baseline: RunData(name: "a", summaries: currentRows, samples: nil),
            current: RunData(name: "b", summaries: baselineRows, samples: nil))
        #expect(comparison.cases.first { $0.key == onlyInBaseline }?.verdict == .onlyInBaseline)
        #expect(comparison.cases.first { $0.key == onlyInCurrent }?.verdict == .onlyInCurrent)
        #expect(!comparison.hasRegression)
    }

    @Test("A case that fails now but did not before counts as a regression")
    func failedInCurrent() throws {
        var rows = SyntheticRun.report().summaries
        let index = try #require(rows.firstIndex { $0.key == Self.target })
        rows[index].status = SummaryRow.failed
        rows[index].nsMedian = nil
        let comparison = try Comparison(
            baseline: Self.data(SyntheticRun.report()), current: RunData(name: "now", summaries: rows, samples: nil))
        #expect(comparison.cases.first { $0.key == Self.target }?.verdict == .failedInCurrent)
        #expect(comparison.hasRegression)
    }

    @Test("A debug build is not compared with a release build")
    func debugAgainstRelease() {
        #expect(throws: BenchError.self) {
            try Comparison(
                baseline: Self.data(SyntheticRun.report(runID: "a")),
                current: Self.data(SyntheticRun.report(runID: "b", build: "debug")))
        }
    }

    @Test("Environment differences are reported")
    func environment() throws {
        let comparison = try Comparison(
            baseline: Self.data(SyntheticRun.report()),
            current: Self.data(SyntheticRun.report(openssl: "OpenSSL 3.5.0 8 Apr 2025")))
        #expect(
            comparison.environmentDifferences == ["openssl 'OpenSSL 3.0.19 27 Jan 2026' → 'OpenSSL 3.5.0 8 Apr 2025'"])
    }

    @Test("A different compile target is reported; a report from before the column is not")
    func targetCPU() throws {
        let native = try Comparison(
            baseline: Self.data(SyntheticRun.report()),
            current: Self.data(SyntheticRun.report(targetCPU: "x86-64-v4")))
        #expect(native.environmentDifferences == ["target_cpu 'x86-64' → 'x86-64-v4'"])
        let older = try Comparison(
            baseline: Self.data(SyntheticRun.report(targetCPU: "")),
            current: Self.data(SyntheticRun.report()))
        #expect(older.environmentDifferences.isEmpty)
    }
}
