import Foundation

/// Steps in each case's series of runs, from a history of runs: the analysis behind
/// `bench history --changes`, its rule, unit and error rates in the article "Tracking regressions
/// over time".
///
/// A series is one case on one ``Host`` in one metric, in the order the runs were made; the run
/// is its unit. Timings are each run's fastest sample, the figure a busy host moves least, on the
/// log scale and divided by the run's host factor: the median over the run's canary cases
/// (``isCanary``, code this package does not compile) of how far each sits from its own median
/// over the series, which takes out what slowed or sped up the whole host without taking out a
/// change to this package's code (counts need no such correction). Runs of one commit next to each
/// other are one group: a step falls only between commits. Where the kernel, Swift or the case's
/// library changed between two runs, the series is cut: a step there is the environment's, named
/// by its cause, and never an alert. ``EDivisive`` finds the other steps; a step holds when the
/// runs within ``window`` of it on either side differ by the threshold, significantly (with a
/// standard error no smaller than the series' run-to-run noise gives), and those within ``reach``
/// by the threshold in the same direction: a slow drift moves the far runs and not the near ones,
/// a few runs that sit high together by chance the near and not the far. A step that does not hold
/// is dropped, the smallest first, and its neighbours measured again.
package struct ChangePointAnalysis: Sendable, Equatable {
    package var detector: EDivisive
    /// The smallest change, as a fraction, that a step must show to be reported.
    package var threshold: Double
    /// The most runs on each side of a step that its size is measured on.
    package var window: Int
    /// The one-sided p-value, by Welch's t-test on the runs within ``window``, that a step must reach.
    package var stepSignificance: Double
    /// The same, for a step at an environment change: one test at a place known before the runs were
    /// read, not the best of the places a search tried, and a step that never alerts.
    package var environmentStepSignificance: Double
    /// The most runs on each side of a step that the far comparison reads.
    package var reach: Int { 4 * window }

    /// Fewer runs than this in a series are reported as too short: two segments of the minimum length.
    package var fewestRuns: Int { 2 * detector.minimumSegment }

    /// The analysis the command line runs: p ≤ 0.05 by 199 permutations, segments of at least
    /// three runs, steps measured on 5 runs either side at p ≤ 0.001 and on 20. At 0.01 a step with
    /// 3 runs after it in a history of 12 could not be found (220 orderings of those runs are all the
    /// test has); what a step must show on either side, not the permutation test, is what keeps
    /// false steps out, as the article's simulation shows. A step at an environment change is tested
    /// at p ≤ 0.025 in the direction it took (0.05 for either direction).
    package static func standard(threshold: Double) -> ChangePointAnalysis {
        ChangePointAnalysis(
            detector: EDivisive(significance: 0.05, permutations: 199, minimumSegment: 3), threshold: threshold,
            window: 5, stepSignificance: 0.001, environmentStepSignificance: 0.025)
    }

    package init(
        detector: EDivisive, threshold: Double, window: Int, stepSignificance: Double,
        environmentStepSignificance: Double
    ) {
        precondition(window >= detector.minimumSegment)
        precondition(stepSignificance > 0 && stepSignificance < 1)
        precondition(environmentStepSignificance > 0 && environmentStepSignificance < 1)
        self.detector = detector
        self.threshold = threshold
        self.window = window
        self.stepSignificance = stepSignificance
        self.environmentStepSignificance = environmentStepSignificance
    }

    /// The canary cases, from which a run's host factor comes: SHA-256 by OpenSSL and libsodium,
    /// whose code a toolchain does not compile and the kernel does not serve (random bytes are the
    /// kernel's), so that a change to this package, or to most of its cases, is not taken for the
    /// host's.
    package static func isCanary(_ key: CaseKey) -> Bool {
        key.operation == .sha256 && (key.backend == "openssl" || key.backend == "sodium")
    }

    /// The series of every case `include` keeps, in `runs` (oldest first) of `metric`, with their
    /// steps: of each host's runs, the last `lastRuns` (each permutation costs the square of a
    /// series' length).
    package func series(
        of runs: [RunResult], metric: Metric, lastRuns: Int = .max, include: (CaseKey) -> Bool = { _ in true }
    ) -> [CaseSeries] {
        let hosts = Dictionary(grouping: runs.filter { $0.summaries.contains { $0.metric == metric } }) {
            SeriesHost(run: $0, metric: metric)
        }
        return hosts.keys.sorted().flatMap { host in
            analyse(
                HostSeries(runs: hosts[host] ?? [], metric: metric, lastRuns: lastRuns), host: host, include: include)
        }
    }

    private func analyse(_ series: HostSeries, host: SeriesHost, include: (CaseKey) -> Bool) -> [CaseSeries] {
        series.keys.filter(include).map { key in
            let points = series.points(of: key)
            guard points.count >= fewestRuns else {
                return CaseSeries(key: key, host: host, points: points, changePoints: [], isTooShort: true)
            }
            let values = points.map(\.level)
            let environmentCuts = Set(
                points.indices.dropFirst().filter { !points[$0 - 1].environmentChanges(to: points[$0]).isEmpty })
            // A run without a known commit is a group of its own.
            let commitBoundaries = Set(
                points.indices.dropFirst().filter {
                    points[$0].commit != points[$0 - 1].commit || !points[$0].commit.isKnown
                })
            var splits = detector.splits(of: values, allowedAt: commitBoundaries, fixed: environmentCuts)
            func step(at index: Int) -> Step? {
                Step(
                    at: index, cuts: environmentCuts.union(splits.map(\.index)), in: values, analysis: self,
                    significance: environmentCuts.contains(index) ? environmentStepSignificance : stepSignificance)
            }
            // Drop the smallest step that does not hold, then measure its neighbours again.
            while let smallest = splits.indices.map({ (position: $0, step: step(at: splits[$0].index)) })
                .filter({ $0.step?.holds != true })
                .min(by: { abs($0.step?.near.change ?? 0) < abs($1.step?.near.change ?? 0) })
            {
                splits.remove(at: smallest.position)
            }
            let found = splits.map { (index: $0.index, pValue: Optional($0.pValue)) }
            // A cut with fewer than the minimum segment on a side is measured once the runs are there.
            let environmental = environmentCuts.map { (index: $0, pValue: Double?.none) }
            let changePoints = (found + environmental).sorted { $0.index < $1.index }.compactMap {
                candidate -> ChangePoint? in
                guard let step = step(at: candidate.index), step.holds else { return nil }
                let before = points[candidate.index - 1], after = points[candidate.index]
                return ChangePoint(
                    lastBefore: before, firstAfter: after, index: candidate.index, estimate: step.near,
                    pValue: candidate.pValue, environmentChanges: before.environmentChanges(to: after))
            }
            return CaseSeries(key: key, host: host, points: points, changePoints: changePoints, isTooShort: false)
        }
    }

    /// A step at a cut, measured twice: on the runs within ``window`` of it, and on those within
    /// ``reach``, never past the neighbouring cuts.
    private struct Step {
        let near: ChangeEstimate
        let far: ChangeEstimate
        /// Reported: both at least the threshold in the same direction, and the near one
        /// significant at `significance`.
        let holds: Bool

        /// `nil` with fewer than the minimum segment on a side.
        init?(
            at index: Int, cuts: Set<Int>, in values: [Double], analysis: ChangePointAnalysis, significance: Double
        ) {
            let start = cuts.filter { $0 < index }.max() ?? 0
            let end = cuts.filter { $0 > index }.min() ?? values.count
            let before = values[max(start, index - analysis.window)..<index]
            let after = values[index..<min(end, index + analysis.window)]
            guard index - start >= analysis.detector.minimumSegment, end - index >= analysis.detector.minimumSegment,
                let measured = ChangeEstimate.independent(baseline: before.map(exp), current: after.map(exp)),
                let far = ChangeEstimate.independent(
                    baseline: values[max(start, index - analysis.reach)..<index].map(exp),
                    current: values[index..<min(end, index + analysis.reach)].map(exp))
            else { return nil }
            // A few runs that sit close together by chance do not make a noisy series quiet: the
            // near comparison's standard error is at least what the series' own run-to-run noise gives.
            let floor =
                Self.runToRunNoise(of: values, cuts: cuts)
                * (1 / Double(before.count) + 1 / Double(after.count)).squareRoot()
            near =
                measured.standardError >= floor
                ? measured
                : ChangeEstimate(
                    logChange: measured.logChange, standardError: floor,
                    degreesOfFreedom: measured.degreesOfFreedom, units: measured.units)
            self.far = far
            holds =
                abs(near.change) >= analysis.threshold && abs(far.change) >= analysis.threshold
                && (near.change > 0) == (far.change > 0)
                && near.pValue(near.change > 0 ? .slower : .faster) <= significance
        }

        /// The standard deviation of one run's level, from the differences between neighbouring runs
        /// that no cut separates (von Neumann's mean square successive difference, which a slow drift
        /// barely moves); 0 with none.
        static func runToRunNoise(of values: [Double], cuts: Set<Int>) -> Double {
            let differences = values.indices.dropFirst().filter { !cuts.contains($0) }.map {
                values[$0] - values[$0 - 1]
            }
            guard !differences.isEmpty else { return 0 }
            return (differences.reduce(0) { $0 + $1 * $1 } / Double(2 * differences.count)).squareRoot()
        }
    }
}

/// What makes runs one series: the ``Host``, every fact alike, and the metric.
package struct SeriesHost: Hashable, Comparable, Sendable, CustomStringConvertible {
    package let machine: Host
    package let metric: Metric

    package init(run: RunResult, metric: Metric) {
        machine = run.environment.host
        self.metric = metric
    }

    package var cpu: String { machine.cpu }
    package var cpuFlags: String { machine.cpuFlags }
    package var build: BuildConfiguration { machine.build }
    package var targetCPU: String { machine.targetCPU }

    /// `AMD EPYC (sha_ni avx2), 2 cores, release, x86-64, time`.
    package var description: String {
        "\(cpu) (\(cpuFlags.isEmpty ? "no listed flags" : cpuFlags)), \(machine.cores) core"
            + "\(machine.cores == 1 ? "" : "s"), \(build), \(targetCPU), \(metric.rawValue)"
    }

    package static func < (lhs: SeriesHost, rhs: SeriesHost) -> Bool {
        lhs.description < rhs.description
    }
}

/// One case's runs on one host, with the steps found in them.
package struct CaseSeries: Sendable, Equatable {
    package let key: CaseKey
    package let host: SeriesHost
    /// Oldest first.
    package let points: [Point]
    /// In the order of the series.
    package let changePoints: [ChangePoint]
    /// Fewer runs than the analysis needs: no step can be found.
    package let isTooShort: Bool

    /// One run of the case.
    package struct Point: Sendable, Equatable {
        package let runID: String
        package let commit: RecordedCommit
        package let timestamp: String
        /// The run's figure: the fastest sample in nanoseconds per operation, or instructions per operation.
        package let value: Double
        /// `log(value)`, less the run's host factor: what the analysis compares.
        package let level: Double
        /// The run's host factor on the log scale; `nil` for counts, which need none, and for a run
        /// without canary cases, whose timings are compared uncorrected.
        package let hostFactor: Double?
        /// The run's kernel release and Swift version.
        package let kernel: String
        package let swift: String
        /// The backend's library in that run, or empty.
        package let library: String

        /// What differs in `next`'s environment, in the order kernel, Swift, library.
        package func environmentChanges(to next: Point) -> [EnvironmentChange] {
            [
                EnvironmentChange(fact: .kernel, before: kernel, after: next.kernel),
                EnvironmentChange(fact: .swift, before: swift, after: next.swift),
                EnvironmentChange(fact: .library, before: library, after: next.library),
            ].filter { $0.before != $0.after }
        }
    }
}

/// A change to a series' environment between two neighbouring runs: the cause of a step found there.
package struct EnvironmentChange: Sendable, Equatable, CustomStringConvertible {
    package enum Fact: String, Sendable {
        case kernel
        case swift = "Swift"
        /// The backend's `PKCEBackend.library`.
        case library
    }

    package let fact: Fact
    package let before: String
    package let after: String

    /// `Swift 6.3.1 → 6.4.0`; an empty side is `none`.
    package var description: String {
        "\(fact.rawValue) \(before.isEmpty ? "none" : before) → \(after.isEmpty ? "none" : after)"
    }
}

/// A step in a case's series.
package struct ChangePoint: Sendable, Equatable {
    /// The last run before the step and the first after it.
    package let lastBefore: CaseSeries.Point
    package let firstAfter: CaseSeries.Point
    /// The position of ``firstAfter`` in the series.
    package let index: Int
    /// The runs after against the runs before, within the analysis' window of the step and never
    /// past a neighbouring one; positive is slower.
    package let estimate: ChangeEstimate
    /// The permutation test's; `nil` for a step at an environment change, which is not tested.
    package let pValue: Double?
    /// What changed in the environment at the step; empty for a step found between two commits.
    package let environmentChanges: [EnvironmentChange]

    package var isRegression: Bool { estimate.change > 0 }
    /// The environment's step, never a commit's: it does not alert.
    package var isEnvironmental: Bool { !environmentChanges.isEmpty }
    /// The backend's library before and after, when it changed at the step.
    package var libraryChange: EnvironmentChange? { environmentChanges.first { $0.fact == .library } }
}

/// The runs of one series host, by case, with each run's host factor.
private struct HostSeries {
    let runs: [RunResult]
    let metric: Metric
    let keys: [CaseKey]
    /// `log(figure)` by run and case.
    private let logs: [[CaseKey: Double]]
    /// By run: `nil` for counts and for a run with too few canaries.
    private let hostFactors: [Double?]

    init(runs: [RunResult], metric: Metric, lastRuns: Int) {
        // The order the runs were made in; a file appended to in turn is in it already.
        let runs = Array(
            runs.enumerated().sorted {
                ($0.element.environment.timestamp, $0.offset) < ($1.element.environment.timestamp, $1.offset)
            }.map(\.element).suffix(lastRuns))
        self.runs = runs
        self.metric = metric
        let logs = runs.map { run in
            Dictionary(
                run.summaries.compactMap { summary -> (CaseKey, Double)? in
                    guard summary.metric == metric, let figure = Self.figure(of: summary), figure > 0 else {
                        return nil
                    }
                    return (summary.key, log(figure))
                }, uniquingKeysWith: { first, _ in first })
        }
        self.logs = logs
        keys = Set(logs.flatMap(\.keys)).sorted()
        guard metric == .time else {
            hostFactors = Array(repeating: nil, count: runs.count)
            return
        }
        // Each canary's median over the runs of one environment: a new OpenSSL moves its canaries,
        // not the host, and a new kernel or Swift cuts every series anyway.
        var levels: [Canary: [Double]] = [:]
        for (run, figures) in zip(runs, logs) {
            for (key, level) in figures where ChangePointAnalysis.isCanary(key) {
                levels[Canary(key: key, run: run), default: []].append(level)
            }
        }
        let medians = levels.mapValues { Statistics.percentile(50, ofSorted: $0.sorted()) }
        hostFactors = zip(runs, logs).map { run, figures in
            let offsets = figures.compactMap { key, level in
                medians[Canary(key: key, run: run)].map { level - $0 }
            }.sorted()
            return offsets.count >= Self.fewestCanaries ? Statistics.percentile(50, ofSorted: offsets) : nil
        }
    }

    /// A canary case in one environment.
    private struct Canary: Hashable {
        let key: CaseKey
        let kernel: String
        let swift: String
        let library: String

        init(key: CaseKey, run: RunResult) {
            self.key = key
            kernel = run.environment.kernel
            swift = run.environment.swift
            library = run.environment.libraries[key.backend] ?? ""
        }
    }

    /// With one canary, its own series would be flat and its noise every other case's.
    static let fewestCanaries = 2

    func points(of key: CaseKey) -> [CaseSeries.Point] {
        runs.indices.compactMap { index in
            guard let level = logs[index][key] else { return nil }
            let environment = runs[index].environment
            return CaseSeries.Point(
                runID: environment.runID, commit: environment.recordedCommit, timestamp: environment.timestamp,
                value: exp(level), level: level - (hostFactors[index] ?? 0), hostFactor: hostFactors[index],
                kernel: environment.kernel, swift: environment.swift,
                library: environment.libraries[key.backend] ?? "")
        }
    }

    private static func figure(of summary: CaseSummary) -> Double? {
        switch summary.outcome {
        case .timed(let times): times.fastest
        case .counted(let instructions): instructions
        case .failed: nil
        }
    }
}
