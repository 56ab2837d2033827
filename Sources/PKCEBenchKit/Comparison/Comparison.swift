/// What a comparison concluded about one case.
public enum Verdict: String, Sendable, Codable, CaseIterable {
    /// Slower by more than the threshold at the median and at the fastest sample, and
    /// significantly so.
    case regressed
    /// Faster by more than the threshold at the median and at the fastest sample, and
    /// significantly so.
    case improved
    /// Neither: within the threshold, or not significant.
    case unchanged
    /// The case failed in the current run but not in the baseline: counted as a regression.
    case failedInCurrent = "failed-in-current"
    /// The case failed in the baseline, so there is nothing to compare against.
    case failedInBaseline = "failed-in-baseline"
    /// The case is in the baseline only.
    case onlyInBaseline = "only-in-baseline"
    /// The case is in the current run only.
    case onlyInCurrent = "only-in-current"

    /// Whether this verdict makes `bench compare` exit with 1.
    public var isRegression: Bool {
        self == .regressed || self == .failedInCurrent
    }
}

/// How a case's verdict was reached.
public enum ComparisonMethod: String, Sendable, Codable {
    /// The changes of the median and of the fastest sample exceed the threshold, and the
    /// Mann–Whitney U test on the samples finds the change significant.
    case mannWhitney = "mann-whitney"
    /// No samples for the case on one side: the changes of the median and of the fastest sample
    /// against the threshold alone.
    case threshold
    /// Nothing to compare.
    case none
}

/// One case in a comparison.
public struct CaseComparison: Sendable, Equatable {
    /// The case.
    public let key: CaseKey
    /// The baseline's median nanoseconds per operation, when it has one.
    public let baselineMedian: Double?
    /// The current median nanoseconds per operation, when it has one.
    public let currentMedian: Double?
    /// The change of the median: `current / baseline − 1`, positive is slower.
    public let change: Double?
    /// The change of the fastest sample, `ns_min`: positive is slower.
    public let fastestChange: Double?
    /// The Mann–Whitney U test's two-sided p-value, when both sides have samples.
    public let pValue: Double?
    /// How the verdict was reached.
    public let method: ComparisonMethod
    /// The verdict.
    public let verdict: Verdict
}

/// When a change counts.
public struct ComparisonCriteria: Sendable, Equatable {
    /// The smallest change of the median that counts, as a fraction: 0.05 is 5%.
    public var threshold: Double
    /// The significance level the U test's p-value must be below.
    public var alpha: Double

    /// Creates criteria; the defaults are a 5% threshold and a 1% significance level.
    public init(threshold: Double = 0.05, alpha: Double = 0.01) {
        self.threshold = threshold
        self.alpha = alpha
    }
}

/// A baseline and a current run compared case by case.
public struct Comparison: Sendable {
    /// Every case of either file, in report order.
    public let cases: [CaseComparison]
    /// The criteria used.
    public let criteria: ComparisonCriteria
    /// Facts of the environment that differ between the files: one phrase each, such as
    /// `openssl 'OpenSSL 3.0.19' → 'OpenSSL 3.2.1'`.
    public let environmentDifferences: [String]

    /// Whether any case regressed, or failed only in the current run.
    public var hasRegression: Bool {
        cases.contains { $0.verdict.isRegression }
    }

    /// How disturbed each run was, by name, baseline first: over its cases, the median of how
    /// far the median sits above the fastest sample. A quiet run here measures 2 to 5%; one that
    /// other tenants slowed, 8 to 40%.
    public let disturbance: [(run: String, median: Double)]

    /// The warnings a reader needs before trusting the verdicts, one line each: runs made in
    /// different environments, and runs so unequally disturbed that the machine alone could move
    /// a median by more than the threshold, which can hide a regression or mimic an improvement.
    public var warnings: [String] {
        var lines: [String] = []
        if !environmentDifferences.isEmpty {
            lines.append(
                "warning: the runs differ in " + environmentDifferences.joined(separator: "; ")
                    + "; the comparison may reflect that rather than the code")
        }
        if disturbance.count == 2 {
            let (busier, quieter) =
                disturbance[0].median >= disturbance[1].median
                ? (disturbance[0], disturbance[1]) : (disturbance[1], disturbance[0])
            if busier.median - quieter.median > criteria.threshold || busier.median > 2 * criteria.threshold {
                func percent(_ value: Double) -> String { String(format: "%.0f%%", value * 100) }
                lines.append(
                    "warning: \(busier.run) was measured on a busy machine: a typical case's median sits "
                        + "\(percent(busier.median)) above its fastest sample there and \(percent(quieter.median)) in "
                        + "\(quieter.run), so a regression that size may go unseen; measure again")
            }
        }
        return lines
    }

    /// Whether any verdict rests on the threshold alone, for want of samples.
    public var usedThresholdOnly: Bool {
        cases.contains { $0.method == .threshold }
    }

    /// Checks that a run made by `builds` may be compared with `baseline`, before it is measured.
    ///
    /// - Throws: ``BenchError`` (65) when one is a debug build and the other a release build:
    ///   debug figures say nothing about release performance.
    public static func requireSameBuild(_ baseline: RunData, _ name: String, builds: Set<String>) throws(BenchError) {
        let baselineBuilds = Set(baseline.summaries.map(\.build))
        guard baselineBuilds != builds && !baselineBuilds.isEmpty && !builds.isEmpty else { return }
        throw BenchError(
            .malformedInput,
            "cannot compare \(baseline.name) (\(baselineBuilds.sorted().joined(separator: ", ")) build) with "
                + "\(name) (\(builds.sorted().joined(separator: ", ")) build): "
                + "figures of a debug build say nothing about a release build")
    }

    /// Compares two runs.
    ///
    /// - Parameters:
    ///   - baseline: The reference run.
    ///   - current: The run under test.
    ///   - criteria: The threshold and significance level.
    /// - Throws: ``BenchError`` (65) when one file is a debug build and the other a release build:
    ///   debug figures say nothing about release performance.
    public init(baseline: RunData, current: RunData, criteria: ComparisonCriteria = .init()) throws(BenchError) {
        try Self.requireSameBuild(baseline, current.name, builds: Set(current.summaries.map(\.build)))
        self.criteria = criteria
        self.environmentDifferences = Self.differences(baseline.summaries.first, current.summaries.first)
        self.disturbance = [baseline, current].compactMap { run in
            let spreads = run.summaries.compactMap { row -> Double? in
                guard row.isOK, let median = row.nsMedian, let fastest = row.nsMin, fastest > 0 else { return nil }
                return median / fastest - 1
            }
            return Statistics(spreads).map { (run.name, $0.median) }
        }

        let baselineRows = Dictionary(uniqueKeysWithValues: baseline.summaries.map { ($0.key, $0) })
        let currentRows = Dictionary(uniqueKeysWithValues: current.summaries.map { ($0.key, $0) })
        let keys = Set(baselineRows.keys).union(currentRows.keys).sorted()
        cases = keys.map { key in
            Self.compare(
                key, baselineRows[key], currentRows[key], baseline.samples(of: key), current.samples(of: key), criteria)
        }
    }

    private static func compare(
        _ key: CaseKey, _ baseline: SummaryRow?, _ current: SummaryRow?,
        _ baselineSamples: [Double]?, _ currentSamples: [Double]?, _ criteria: ComparisonCriteria
    ) -> CaseComparison {
        func verdict(_ verdict: Verdict) -> CaseComparison {
            CaseComparison(
                key: key, baselineMedian: baseline?.nsMedian, currentMedian: current?.nsMedian, change: nil,
                fastestChange: nil, pValue: nil, method: .none, verdict: verdict)
        }
        guard let baseline else { return verdict(.onlyInCurrent) }
        guard let current else { return verdict(.onlyInBaseline) }
        guard let baselineMedian = baseline.nsMedian, baseline.isOK else { return verdict(.failedInBaseline) }
        guard let currentMedian = current.nsMedian, current.isOK else { return verdict(.failedInCurrent) }

        let change = relativeChange(from: baselineMedian, to: currentMedian)
        let fastestChange = relativeChange(from: baseline.nsMin ?? baselineMedian, to: current.nsMin ?? currentMedian)
        var pValue: Double?
        if let baselineSamples, let currentSamples {
            pValue = MannWhitneyU(baselineSamples, currentSamples)?.pValue
        }
        let significant = pValue.map { $0 < criteria.alpha } ?? true
        // A slower build slows every sample, the fastest included; a busy machine delays some
        // samples and leaves the fastest where it was. Both must move for a verdict.
        let outcome: Verdict =
            if change > criteria.threshold && fastestChange > criteria.threshold && significant {
                .regressed
            } else if change < -criteria.threshold && fastestChange < -criteria.threshold && significant {
                .improved
            } else {
                .unchanged
            }
        return CaseComparison(
            key: key, baselineMedian: baselineMedian, currentMedian: currentMedian, change: change,
            fastestChange: fastestChange, pValue: pValue, method: pValue == nil ? .threshold : .mannWhitney,
            verdict: outcome)
    }

    private static func relativeChange(from baseline: Double, to current: Double) -> Double {
        baseline > 0 ? current / baseline - 1 : 0
    }

    private static func differences(_ baseline: SummaryRow?, _ current: SummaryRow?) -> [String] {
        guard let baseline = baseline?.environment, let current = current?.environment else { return [] }
        return zip(baseline.comparableFacts, current.comparableFacts).compactMap { old, new in
            old.value == new.value || old.value.isEmpty || new.value.isEmpty
                ? nil : "\(old.key) '\(old.value)' → '\(new.value)'"
        }
    }
}

/// A run to compare: its summary rows and, when there are any, its samples.
public struct RunData: Sendable {
    /// What to call the run in messages: usually its file's path.
    public let name: String
    /// One row per case.
    public let summaries: [SummaryRow]
    /// Nanoseconds per operation of each sample, by case; `nil` when there is no samples file.
    public let samplesByCase: [CaseKey: [Double]]?

    /// Creates run data from rows in memory.
    public init(name: String, summaries: [SummaryRow], samples: [SampleRow]?) {
        self.name = name
        self.summaries = summaries
        self.samplesByCase = samples.map { rows in
            Dictionary(grouping: rows, by: \.key).mapValues { $0.sorted { $0.sample < $1.sample }.map(\.nsPerOp) }
        }
    }

    /// Reads a summary file and the samples file beside it, when there is one.
    ///
    /// - Throws: ``BenchError``: 66 when the summary is missing; 65 when either file is malformed.
    ///   A samples file that is there but malformed is an error, never silently ignored.
    public static func load(summaryAt path: String) throws(BenchError) -> RunData {
        let summaries = try ReportFiles.readSummary(at: path)
        let samplesPath = ReportFiles.samplesPath(for: path)
        let samples = ReportFiles.exists(samplesPath) ? try ReportFiles.readSamples(at: samplesPath) : nil
        return RunData(name: path, summaries: summaries, samples: samples)
    }

    /// Whether a samples file came with the summary.
    public var hasSamples: Bool { samplesByCase != nil }

    func samples(of key: CaseKey) -> [Double]? {
        samplesByCase?[key].flatMap { $0.isEmpty ? nil : $0 }
    }
}
