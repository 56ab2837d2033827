import Foundation

/// How far each case's figure, its fastest sample, moves between runs on one host beyond the shift
/// that moves the whole run, estimated from the history's stable stretches; a case without enough
/// runs is held to ``driftFloor``. The article "The statistics of each verdict" ("Runs made apart")
/// gives the model and the estimate.
///
/// The history's runs of the host, in the order they were made, are read as `bench history
/// --changes` reads them: a case's neighbouring runs are compared only where no step of that case
/// and no change of its environment (kernel, Swift, its library) lies between them. Each
/// comparison is net of the pair's shift (the median over the cases of their changes), and a case's
/// variance is half the mean square of those differences (von Neumann's mean square successive
/// difference, which a slow drift barely moves), so one run a commit is enough.
package struct RunToRunSpread: Sendable {
    /// One case's variance of its log figure between runs, and that estimate's degrees of freedom.
    package struct Estimate: Sendable, Equatable {
        package var variance: Double
        package var degreesOfFreedom: Double
        /// The samples each of those runs took of the case: the spread is of runs made so.
        package var samples: Int
    }

    /// Why runs of the history were not read.
    package struct LeftOut: Sendable, Equatable {
        /// Runs of another host: CPU, flags, cores, build configuration or compile target.
        package var otherHost = 0
        /// Runs of a build with uncommitted changes, or of no known commit.
        package var unknownCode = 0
        /// Runs of fewer cases than ``Comparison/minimumCasesForShift``, whose shift cannot be measured.
        package var fewCases = 0
        /// Runs beyond the newest ``RunToRunSpread/lastRuns`` of the host.
        package var older = 0

        package var total: Int { otherHost + unknownCode + fewCases + older }
    }

    package let variances: [CaseKey: Estimate]
    /// The runs of the history that the estimate rests on.
    package let runs: Int
    /// The commits they were made of.
    package let commits: Int
    /// The runs of the history not read, by reason; the two compared are not counted.
    package let leftOut: LeftOut
    /// The bound on a case's run effect that the comparison assumes where the history measured none.
    package let driftFloor: Double

    /// The runs in a row a case needs (4 neighbouring differences within its stretches) before its
    /// spread counts as measured.
    package static let minimumRuns = 5

    /// The newest runs of the host that are read: as many as `bench history --changes` reads by
    /// default, since the stretches are its.
    package static let lastRuns = 100

    /// 3%: `ComparingRuns.md` says how it was chosen.
    package static let defaultDriftFloor = 0.03

    /// No history: every case unmeasured.
    package static let unmeasured = RunToRunSpread(runs: [], stretchEnds: [:], leftOut: LeftOut())

    /// The timed runs of `history` made on `environment`'s host that can measure a spread, oldest
    /// first and at most ``lastRuns`` of them, never `excluded` (the two runs compared, which must
    /// not estimate their own noise), and the runs left out. A run's environment is its first row's
    /// with the library of every row's backend, since each row records only its own.
    package static func usableRuns(
        of history: [(environment: RunEnvironment, summary: CaseSummary)], like environment: RunEnvironment,
        excluding excluded: Set<String>
    ) -> (runs: [RunResult], leftOut: LeftOut) {
        var leftOut = LeftOut()
        var order: [String] = []
        var environments: [String: RunEnvironment] = [:]
        var summaries: [String: [CaseSummary]] = [:]
        for (run, summary) in history where summary.metric == .time && !excluded.contains(run.runID) {
            if environments[run.runID] == nil {
                order.append(run.runID)
                environments[run.runID] = run
            } else {
                environments[run.runID]?.libraries.merge(run.libraries) { first, _ in first }
            }
            summaries[run.runID, default: []].append(summary)
        }
        var runs: [RunResult] = []
        for id in order {
            guard let run = environments[id], let cases = summaries[id] else { continue }
            if run.host != environment.host {
                leftOut.otherHost += 1
            } else if !run.recordedCommit.isClean {
                // A build of exactly one commit: not a dirty one, nor an unknown one.
                leftOut.unknownCode += 1
            } else if cases.filter({ ($0.times?.fastest ?? 0) > 0 }).count < Comparison.minimumCasesForShift {
                // A run of a few cases has no shift of its own to measure: its median case would be it.
                leftOut.fewCases += 1
            } else {
                runs.append(RunResult(environment: run, summaries: cases))
            }
        }
        // In the order they were made, as a series is.
        runs = runs.enumerated().sorted {
            ($0.element.environment.timestamp, $0.offset) < ($1.element.environment.timestamp, $1.offset)
        }.map(\.element)
        leftOut.older = max(0, runs.count - Self.lastRuns)
        return (Array(runs.suffix(Self.lastRuns)), leftOut)
    }

    /// The spread that `runs` (``usableRuns(of:like:excluding:)``'s) measure, where each case's
    /// stretches end at the runs `stretchEnds` names for it: the first run after each of its steps
    /// and changes of environment.
    package init(
        runs: [RunResult], stretchEnds: [CaseKey: Set<String>], leftOut: LeftOut,
        driftFloor: Double = defaultDriftFloor
    ) {
        variances = Self.estimate(runs, stretchEnds: stretchEnds)
        self.runs = runs.count
        commits = Set(runs.map(\.environment.commit)).count
        self.leftOut = leftOut
        self.driftFloor = driftFloor
    }

    /// Each case's moderated variance from `runs`, one host's, oldest first.
    private static func estimate(_ runs: [RunResult], stretchEnds cuts: [CaseKey: Set<String>]) -> [CaseKey: Estimate] {
        guard runs.count >= 2 else { return [:] }
        // A case's runs of the sampling most of them used; its other runs are as if it were absent.
        let sampling = Dictionary(grouping: runs.flatMap(\.summaries), by: \.key).mapValues {
            Self.mostCommon($0.map(\.samples))
        }
        let figures = runs.map { Self.logFastest($0, sampling: sampling) }
        var squares: [CaseKey: Double] = [:]
        var differences: [CaseKey: Int] = [:]
        var stretches: [CaseKey: Int] = [:]
        var freedom: [CaseKey: Double] = [:]
        var previousUsed: [CaseKey: Int] = [:]
        for index in runs.indices.dropFirst() {
            var changes: [CaseKey: Double] = [:]
            for (key, value) in figures[index] {
                if let before = figures[index - 1][key] { changes[key] = value - before }
            }
            guard changes.count >= Comparison.minimumCasesForShift,
                let shift = Statistics(Array(changes.values))?.median
            else { continue }
            let runID = runs[index].environment.runID
            for (key, change) in changes {
                if cuts[key]?.contains(runID) == true { continue }
                let residual = change - shift
                squares[key, default: 0] += residual * residual
                differences[key, default: 0] += 1
                // A difference that does not follow the case's previous one begins a stretch.
                if previousUsed[key] != index - 1 { stretches[key, default: 0] += 1 }
                previousUsed[key] = index
                // The pair's shift costs its cases one difference's worth between them.
                freedom[key, default: 0] += 1 - 1 / Double(changes.count)
            }
        }
        let measured = differences.filter { $0.value >= minimumRuns - 1 }.keys.sorted()
        let moderated = ModeratedVariances(
            measured.map { squares[$0]! / Double(2 * differences[$0]!) },
            degreesOfFreedom: measured.map { key in
                // Neighbouring differences share a run, so m of them in k stretches are worth
                // 2m² / (3m − k) degrees of freedom (von Neumann et al. 1941), not m.
                let m = Double(differences[key]!), k = Double(stretches[key]!)
                return 2 * m * m / (3 * m - k) * freedom[key]! / m
            })
        var variances: [CaseKey: Estimate] = [:]
        for (index, key) in measured.enumerated() {
            variances[key] = Estimate(
                variance: moderated.variances[index], degreesOfFreedom: moderated.degreesOfFreedom[index],
                samples: sampling[key]!)
        }
        return variances
    }

    /// The value most of `values` take; of those tied, the smallest.
    private static func mostCommon(_ values: [Int]) -> Int {
        let counts = Dictionary(values.map { ($0, 1) }, uniquingKeysWith: +)
        return counts.sorted { ($1.value, $0.key) < ($0.value, $1.key) }.first?.key ?? 0
    }

    /// Each timed case's log fastest sample, where the run took the case's usual count of samples.
    private static func logFastest(_ run: RunResult, sampling: [CaseKey: Int]) -> [CaseKey: Double] {
        var figures: [CaseKey: Double] = [:]
        for summary in run.summaries where summary.samples == sampling[summary.key] {
            if let fastest = summary.times?.fastest, fastest > 0, figures[summary.key] == nil {
                figures[summary.key] = log(fastest)
            }
        }
        return figures
    }
}
