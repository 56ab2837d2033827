import Foundation

/// Which run a side of a comparison was: what reports name it by.
package struct RunIdentity: Sendable, Equatable {
    /// What the comparison calls the run: usually its file's path.
    package var name: String
    /// Empty when the run has no cases.
    package var runID: String
    /// The commit it measured (`unknown` outside a Git checkout).
    package var commit: String
    /// `nil` when the run has no cases.
    package var environment: RunEnvironment?

    package init(_ run: RunResult) {
        name = run.name
        environment = run.recordedEnvironment
        runID = environment?.runID ?? ""
        commit = environment?.commit ?? ""
    }
}

package struct Comparison: Sendable {
    /// Every case of either file, in report order.
    package let cases: [CaseComparison]
    package let criteria: ComparisonCriteria
    package let pairing: Pairing
    /// When the paired comparison looked at its pairs; ``LookSchedule/single`` otherwise.
    package let looks: LookSchedule
    package let metric: Metric
    /// Where the two sides' code lay when they were timed side by side; `nil` for runs made apart,
    /// and for instruction counts, which no layout moves.
    package let layout: CodeLayout?
    /// Facts of the environment that differ between the files: one phrase each, such as
    /// `openssl library 'OpenSSL 3.0.19' → 'OpenSSL 3.2.1'`.
    package let environmentDifferences: [String]
    package let runs: (baseline: RunIdentity, current: RunIdentity)
    /// The current run's cases, for reports that show its results beside the comparison.
    package let currentSummaries: [CaseSummary]
    /// For runs made apart: the change that the whole current run shows against the baseline,
    /// the median of the cases' changes, which every case's change is taken net of; `nil` when the
    /// runs were paired or fewer than `minimumCasesForShift` cases have a figure on both sides.
    package private(set) var runShift: Double? = nil
    /// For runs made apart: what their error bars hold of the spread between runs; `nil` when the
    /// runs were paired or counted instructions.
    package private(set) var runToRun: RunToRunSpread? = nil
    /// For runs made apart: the cases whose spread between runs the history did not measure for
    /// runs like these two, held to the drift floor instead.
    package private(set) var unmeasuredSpread: Set<CaseKey> = []

    /// The cases with a figure on both sides that a run-wide shift needs: with fewer, a shift of
    /// the host cannot be told from a change of the cases.
    package static let minimumCasesForShift = 8

    /// The run-wide shift beyond which a verdict must hold both net of the shift and as measured:
    /// 1%, above every shift between two runs of one build measured here (at most 0.4%).
    package static let shiftAlarm = 0.01

    package var shiftBeyondAlarm: Bool {
        runShift.map { abs(log1p($0)) >= log1p(Self.shiftAlarm) } ?? false
    }

    /// The cases with these verdicts, in the order of `verdicts`.
    package func cases(in verdicts: [Verdict]) -> [CaseComparison] {
        verdicts.flatMap { verdict in cases.filter { $0.verdict == verdict } }
    }

    /// Whether any case regressed, or failed only in the current run.
    package var hasRegression: Bool {
        cases.contains { $0.verdict.isRegression }
    }

    /// Whether any case could not be decided, or the whole current run moved by the threshold
    /// (`shiftReachesThreshold`).
    package var isInconclusive: Bool {
        cases.contains { $0.verdict == .inconclusive } || shiftReachesThreshold
    }

    /// Whether the run-wide shift is at least the threshold either way: the host, or a change that
    /// moves every case alike, which runs made apart cannot tell from each other.
    package var shiftReachesThreshold: Bool {
        runShift.map { abs(log1p($0)) >= log1p(criteria.threshold) } ?? false
    }

    package enum Outcome: Sendable, Equatable {
        /// No case regressed and every case was decided.
        case clear
        case regression
        /// No case regressed, but at least one could not be decided: measure again.
        case inconclusive
    }

    package var outcome: Outcome {
        hasRegression ? .regression : isInconclusive ? .inconclusive : .clear
    }

    /// How disturbed each run was, by name, baseline first: over its cases, the median of how
    /// far the median sits above the fastest sample: a few percent in a quiet run, far more in one
    /// that other tenants slowed.
    package let disturbance: [(run: String, median: Double)]

    private struct Busier {
        let run: String
        let median: Double
        let quieter: Double
        let isCurrent: Bool
    }

    /// The run measured on a busier machine, when the two runs' disturbances differ by more than
    /// the threshold, or one exceeds twice the threshold: the machine alone could then move a
    /// case by the threshold. Only for independent runs; paired processes share the machine.
    private static func busier(
        _ disturbance: [(run: String, median: Double)], pairing: Pairing, criteria: ComparisonCriteria
    ) -> Busier? {
        guard pairing == .independent, disturbance.count == 2 else { return nil }
        let currentIsBusier = disturbance[1].median > disturbance[0].median
        let (busier, quieter) = currentIsBusier ? (disturbance[1], disturbance[0]) : (disturbance[0], disturbance[1])
        guard busier.median - quieter.median > criteria.threshold || busier.median > 2 * criteria.threshold else {
            return nil
        }
        return Busier(run: busier.run, median: busier.median, quieter: quieter.median, isCurrent: currentIsBusier)
    }

    /// The warnings a reader needs before trusting the verdicts, one line each: runs made in
    /// different environments, and runs so unequally disturbed that the machine alone could move
    /// a case by more than the threshold, which can hide a regression or mimic one.
    package var warnings: [String] {
        var lines: [String] = []
        if !environmentDifferences.isEmpty {
            lines.append(
                "warning: the runs differ in " + environmentDifferences.joined(separator: "; ")
                    + "; the comparison may reflect that rather than the code")
        }
        if shiftReachesThreshold, let shift = runShift {
            lines.append(
                "warning: the whole current run is " + String(format: "%+.1f%%", shift * 100)
                    + " against the baseline: a host that drifted, or a change that moves every case alike, "
                    + "which runs made apart cannot tell apart; the comparison is inconclusive; measure both "
                    + "builds with bench ab")
        }
        if let busier = Self.busier(disturbance, pairing: pairing, criteria: criteria) {
            func percent(_ value: Double) -> String { String(format: "%.0f%%", value * 100) }
            let quieter = disturbance.first { $0.run != busier.run }?.run ?? "the other run"
            let consequence =
                busier.isCurrent
                ? "its regressions are reported as inconclusive" : "its cases are inconclusive unless they regressed"
            lines.append(
                "warning: \(busier.run) was measured on a busy machine: a typical case's median sits "
                    + "\(percent(busier.median)) above its fastest sample there and \(percent(busier.quieter)) in "
                    + "\(quieter), so the machine alone could move a case by the threshold; \(consequence); "
                    + "measure again, or use bench ab")
        }
        return lines
    }

    /// Checks that a run made in `build` may be compared with `baseline`, before it is measured.
    ///
    /// - Throws: ``BenchError`` (`.malformedInput`) when one is a debug build and the other a release build:
    ///   debug figures say nothing about release performance.
    package static func requireSameBuild(_ baseline: RunResult, _ name: String, build: BuildConfiguration?)
        throws(BenchError)
    {
        guard let baselineBuild = baseline.recordedEnvironment?.build, let build, baselineBuild != build else { return }
        throw BenchError(
            .malformedInput,
            "cannot compare \(baseline.name) (\(baselineBuild.rawValue) build) with \(name) (\(build.rawValue) build): "
                + "figures of a debug build say nothing about a release build")
    }

    /// - Throws: ``BenchError`` (`.malformedInput`) when the runs measured different metrics, or one file
    ///   mixes the two.
    package static func requireSameMetric(_ baseline: RunResult, _ current: RunResult) throws(BenchError) -> Metric {
        let metric = try current.metric()
        if !current.summaries.isEmpty { try requireSameMetric(baseline, current.name, metric: metric) }
        return baseline.summaries.isEmpty ? metric : try baseline.metric()
    }

    /// Checks that a run named `name`, which will measure `metric`, may be compared with
    /// `baseline`, before it is measured.
    ///
    /// - Throws: ``BenchError`` (`.malformedInput`) when the baseline measured the other metric, or mixes the two.
    package static func requireSameMetric(_ baseline: RunResult, _ name: String, metric: Metric) throws(BenchError) {
        let baselineMetric = try baseline.metric()
        guard baselineMetric == metric || baseline.summaries.isEmpty else {
            throw BenchError(
                .malformedInput,
                "cannot compare \(baseline.name) (\(baselineMetric.rawValue)) with \(name) (\(metric.rawValue)): "
                    + "instruction counts and timings are different measures")
        }
    }

    /// - Parameters:
    ///   - pairing: Whether process `i` of each run was measured next to the other's.
    ///   - gateDecisions: With pairs, the sequential gate's decisions as it took them while measuring
    ///     (``PairedProcesses``), by the compared case key; a case without one is `inconclusive`.
    ///     `nil` for paired runs read back from files, whose samples the gate is replayed on
    ///     (``SequentialGate/replay(_:schedule:criteria:)``).
    ///   - layout: Where the sides' code lay, when they were measured side by side.
    /// - Throws: ``BenchError`` (`.malformedInput`) when one file is a debug build and the other a release build,
    ///   or when one counted instructions and the other was timed.
    package init(
        baseline: RunResult, current: RunResult, criteria: ComparisonCriteria, pairing: Pairing = .independent,
        looks: LookSchedule = .single, gateDecisions: [CaseKey: GateDecision]? = nil, layout: CodeLayout? = nil,
        runToRun: RunToRunSpread = .unmeasured
    ) throws(BenchError) {
        try Self.requireSameBuild(baseline, current.name, build: current.recordedEnvironment?.build)
        self.metric = try Self.requireSameMetric(baseline, current)
        self.layout = metric == .time ? layout : nil
        self.criteria = criteria
        self.pairing = pairing
        self.looks = looks
        self.environmentDifferences = Self.differences(
            baseline.recordedEnvironment, current.recordedEnvironment, metric: metric)
        self.runs = (RunIdentity(baseline), RunIdentity(current))
        self.currentSummaries = current.summaries
        let baselineRows = Dictionary(uniqueKeysWithValues: baseline.summaries.map { ($0.key, $0) })
        let currentRows = Dictionary(uniqueKeysWithValues: current.summaries.map { ($0.key, $0) })
        let keys = Set(baselineRows.keys).union(currentRows.keys).sorted()
        guard metric == .time else {
            self.disturbance = []
            self.cases = keys.map { Self.compareCount($0, baselineRows[$0], currentRows[$0], criteria) }
            return
        }
        self.disturbance = [baseline, current].compactMap { run in
            let spreads = run.summaries.compactMap { summary -> Double? in
                guard let times = summary.times, times.fastest > 0 else { return nil }
                return times.median / times.fastest - 1
            }
            return Statistics(spreads).map { (run.name, $0.median) }
        }

        let (baselineSamples, currentSamples) = (baseline.samplesByProcess, current.samplesByProcess)
        let decisions: [GateDecision?]
        switch pairing {
        case .byProcess:
            if let gateDecisions {
                decisions = keys.map { gateDecisions[$0] }
            } else {
                // Runs read back from files: the gate over their pairs, look by look, as it was taken.
                let figures = keys.map { key in
                    Self.pairFigures(baselineSamples[key] ?? [:], currentSamples[key] ?? [:])
                }
                decisions = SequentialGate.replay(figures, schedule: looks, criteria: criteria)
            }
        case .independent:
            // Each run's figure is its fastest sample, the statistic the history keeps.
            let logChanges = keys.map { key -> Double? in
                guard let old = baselineRows[key]?.times?.fastest, let new = currentRows[key]?.times?.fastest,
                    old > 0, new > 0
                else { return nil }
                return log(new / old)
            }
            let changes = logChanges.compactMap { $0 }
            let shift = changes.count >= Self.minimumCasesForShift ? Statistics(changes)?.median : nil
            self.runShift = shift.map { exp($0) - 1 }
            self.runToRun = runToRun
            // The spread was estimated net of each pair's shift, on runs that took as many samples:
            // without a shift, or for runs made otherwise (another count of samples, or of measuring
            // processes on one side than on the other), only the floor holds.
            let spreads = keys.map { key -> RunToRunSpread.Estimate? in
                guard shift != nil, let spread = runToRun.variances[key],
                    baselineRows[key]?.samples == spread.samples, currentRows[key]?.samples == spread.samples,
                    baselineSamples[key]?.count == currentSamples[key]?.count
                else { return nil }
                return spread
            }
            self.unmeasuredSpread = Set(keys.indices.filter { spreads[$0] == nil }.map { keys[$0] })
            let estimates = keys.indices.map { index -> ChangeEstimate? in
                // Without two processes on a side, a process's own bias cannot be told from a
                // change; without a measured spread, the processes' scatter is all there is.
                let key = keys[index]
                guard let logChange = logChanges[index],
                    let within = ChangeEstimate.independent(
                        baseline: Self.fastestByProcess(baselineSamples[key] ?? [:]),
                        current: Self.fastestByProcess(currentSamples[key] ?? [:]))
                else { return nil }
                return Self.acrossRuns(logChange, within: within, spread: spreads[index], floor: runToRun.driftFloor)
            }
            // The median's own variance, about π/2n times a typical case's (Kendall and Stuart), is
            // in every case's change net of it.
            let variances = estimates.compactMap { $0.map { $0.standardError * $0.standardError } }
            let shiftVariance =
                shift == nil ? 0 : Double.pi / (2 * Double(variances.count)) * (Statistics(variances)?.median ?? 0)
            func decide(net: Bool) -> [GateDecision?] {
                let adjusted = estimates.map { estimate in
                    estimate.map { estimate in
                        var adjusted = ChangeEstimate(
                            logChange: estimate.logChange - (net ? shift ?? 0 : 0),
                            standardError: (estimate.standardError * estimate.standardError
                                + (net ? shiftVariance : 0)).squareRoot(),
                            degreesOfFreedom: estimate.degreesOfFreedom, units: estimate.units)
                        adjusted.driftBound = estimate.driftBound
                        return adjusted
                    }
                }
                return SequentialGate.decide(adjusted, look: 1, of: 1, criteria: criteria)
            }
            let netOfShift = decide(net: true)
            if let shift, abs(shift) >= log1p(Self.shiftAlarm) {
                // A shift this large may be the host, or a change of many cases, which moves the
                // median with it: a verdict stands only where it holds either way.
                let asMeasured = decide(net: false)
                decisions = zip(netOfShift, asMeasured).map { net, measured in
                    guard var net else { return nil }
                    if net.verdict != measured?.verdict { net.verdict = .inconclusive }
                    return net
                }
            } else {
                decisions = netOfShift
            }
        }
        let cases = keys.indices.map { index in
            Self.compare(
                keys[index], baselineRows[keys[index]], currentRows[keys[index]], decisions[index],
                samples: baseline.hasSamples && current.hasSamples,
                method: pairing == .byProcess ? .pairs : .processes, criteria)
        }
        // A machine busier in one run than the other can mimic a regression (current busier) or
        // hide one (baseline busier): those verdicts cannot stand.
        let doubtful: Set<Verdict> =
            switch Self.busier(disturbance, pairing: pairing, criteria: criteria)?.isCurrent {
            case true?: [.regressed]
            case false?: [.improved, .unchanged]
            case nil: []
            }
        self.cases = cases.map { item in
            var item = item
            if item.method != .threshold, doubtful.contains(item.verdict) { item.verdict = .inconclusive }
            return item
        }
    }

    /// Each pair's figure for one case: the median of its turns' log ratios, by pair number.
    /// Turn `j` of a pair is sample `j` of each side, taken back to back.
    static func pairFigures(_ baseline: [Int: [Double]], _ current: [Int: [Double]]) -> [Int: Double] {
        var figures: [Int: Double] = [:]
        for (pair, old) in baseline {
            guard let new = current[pair] else { continue }
            let turns = zip(old, new).compactMap { old, new in old > 0 && new > 0 ? log(new / old) : nil }
            figures[pair] = Statistics(turns)?.median
        }
        return figures
    }

    /// A change between runs made apart, before the run-wide shift is taken out: the change of
    /// the runs' fastest samples, with twice the history's spread between runs for its variance
    /// (each run's figure moves by it) or, where that spread was never measured, the processes'
    /// scatter, which stands in for the fastest sample's, held to the drift floor.
    private static func acrossRuns(
        _ logChange: Double, within: ChangeEstimate, spread: RunToRunSpread.Estimate?, floor: Double
    ) -> ChangeEstimate {
        guard let spread else {
            var estimate = ChangeEstimate(
                logChange: logChange, standardError: within.standardError,
                degreesOfFreedom: within.degreesOfFreedom, units: within.units)
            estimate.driftBound = log1p(floor)
            return estimate
        }
        return ChangeEstimate(
            logChange: logChange, standardError: (2 * spread.variance).squareRoot(),
            degreesOfFreedom: spread.degreesOfFreedom, units: within.units)
    }

    /// Each process's fastest sample, in process order, so that sums come out the same every time.
    private static func fastestByProcess(_ samples: [Int: [Double]]) -> [Double] {
        samples.sorted { $0.key < $1.key }.compactMap { $0.value.min() }
    }

    private static func compare(
        _ key: CaseKey, _ baseline: CaseSummary?, _ current: CaseSummary?, _ decision: GateDecision?,
        samples: Bool, method: ComparisonMethod, _ criteria: ComparisonCriteria
    ) -> CaseComparison {
        func result(
            _ verdict: Verdict, change: Double? = nil, method: ComparisonMethod = .none, decision: GateDecision? = nil
        ) -> CaseComparison {
            CaseComparison(
                key: key, baselineMedian: baseline?.times?.median, currentMedian: current?.times?.median,
                change: change,
                interval: decision?.interval, detectable: decision?.detectable, pValue: decision?.pValue,
                method: method, verdict: verdict, look: decision?.look)
        }
        guard let baseline else { return result(.onlyInCurrent) }
        guard let current else { return result(.onlyInBaseline) }
        guard let old = baseline.times else { return result(.failedInBaseline) }
        guard let new = current.times else { return result(.failedInCurrent) }
        let (baselineMedian, currentMedian) = (old.median, new.median)

        guard samples else {
            // No samples on one side: nothing to estimate the noise from. A slower build slows
            // every sample, the fastest included; a busy machine delays some and leaves the
            // fastest where it was: both must move.
            let change = relativeChange(from: baselineMedian, to: currentMedian)
            let fastest = relativeChange(from: old.fastest, to: new.fastest)
            let verdict: Verdict =
                change > criteria.threshold && fastest > criteria.threshold
                ? .regressed
                : change < -criteria.threshold && fastest < -criteria.threshold ? .improved : .unchanged
            return result(verdict, change: change, method: .threshold)
        }
        guard let decision else {
            // Samples, but from fewer than two processes (or pairs): a process's own bias cannot
            // be told from a change.
            return result(
                .inconclusive, change: relativeChange(from: baselineMedian, to: currentMedian), method: method)
        }
        // A case still open when the measuring stopped could not be decided.
        return result(
            decision.verdict ?? .inconclusive, change: decision.estimate.change, method: method, decision: decision)
    }

    /// Instruction counts of one case: exact, so the change itself decides, against the threshold.
    private static func compareCount(
        _ key: CaseKey, _ old: CaseSummary?, _ new: CaseSummary?, _ criteria: ComparisonCriteria
    ) -> CaseComparison {
        func result(_ verdict: Verdict, change: Double? = nil, method: ComparisonMethod = .none) -> CaseComparison {
            CaseComparison(
                key: key, baselineMedian: nil, currentMedian: nil, change: change, interval: nil, detectable: nil,
                pValue: nil, method: method, verdict: verdict, baselineInstructions: old?.instructionsPerOperation,
                currentInstructions: new?.instructionsPerOperation)
        }
        guard let old else { return result(.onlyInCurrent) }
        guard let new else { return result(.onlyInBaseline) }
        guard let before = old.instructionsPerOperation else { return result(.failedInBaseline) }
        guard let after = new.instructionsPerOperation else { return result(.failedInCurrent) }
        let change = relativeChange(from: before, to: after)
        let verdict: Verdict =
            change >= criteria.threshold && change > 0
            ? .regressed : change <= -criteria.threshold && change < 0 ? .improved : .unchanged
        return result(verdict, change: change, method: .instructions)
    }

    private static func relativeChange(from baseline: Double, to current: Double) -> Double {
        baseline > 0 ? current / baseline - 1 : 0
    }

    /// The environment facts in which the runs differ. The kernel, which moves timings with the
    /// host, leaves an instruction count as it was: counts are compared across hosts.
    private static func differences(_ baseline: RunEnvironment?, _ current: RunEnvironment?, metric: Metric) -> [String]
    {
        guard let baseline, let current else { return [] }
        let old = baseline.comparableFacts
        let new = current.comparableFacts
        // Facts in the fixed order, then the libraries by backend; one that only one run has
        // (a backend only one side measured) is not a difference.
        let order = ["cpu", "kernel", "target_cpu", "swift"]
        let names = order + Set(old.keys).intersection(new.keys).subtracting(order).sorted()
        return names.compactMap { name in
            guard let before = old[name], let after = new[name] else { return nil }
            return before == after || before.isEmpty || after.isEmpty || (metric == .instructions && name == "kernel")
                ? nil : "\(name) '\(before)' → '\(after)'"
        }
    }
}
