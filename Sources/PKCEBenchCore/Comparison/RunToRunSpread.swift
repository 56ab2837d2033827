import Foundation

/// How far each case's figure moves between runs of one build on one host, beyond the drift that
/// moves the whole run, estimated from a history of earlier runs; a case without enough runs is held
/// to ``driftFloor``. The article "The statistics of each verdict" ("Runs made apart") gives the model
/// and the estimate.
package struct RunToRunSpread: Sendable {
    /// One case's variance of its log figure between runs, and that estimate's degrees of freedom.
    package struct Estimate: Sendable, Equatable {
        package var variance: Double
        package var degreesOfFreedom: Double
    }

    package let variances: [CaseKey: Estimate]
    /// The runs of the history that the estimate rests on.
    package let runs: Int
    /// The commits they were made of.
    package let commits: Int
    /// The bound on a case's run effect that the comparison assumes where the history measured none.
    package let driftFloor: Double

    /// The runs of one commit a case needs before its spread counts as measured; runs of several
    /// commits count as many runs less one per commit.
    package static let minimumRuns = 5

    /// 3%: `ComparingRuns.md` says how it was chosen.
    package static let defaultDriftFloor = 0.03

    /// No history: every case unmeasured.
    package static let unmeasured = RunToRunSpread(variances: [:], runs: 0, commits: 0, driftFloor: defaultDriftFloor)

    private init(variances: [CaseKey: Estimate], runs: Int, commits: Int, driftFloor: Double) {
        self.variances = variances
        self.runs = runs
        self.commits = commits
        self.driftFloor = driftFloor
    }

    /// Counts the runs of `history` made as `environment` was (host: CPU, its flags, cores, kernel;
    /// Swift, compile target and build configuration), never `excluded`: the two runs compared,
    /// which must not estimate their own noise.
    package init(
        history: [(environment: RunEnvironment, summary: CaseSummary)], like environment: RunEnvironment,
        excluding excluded: Set<String>, driftFloor: Double = defaultDriftFloor
    ) {
        // Log fastest sample by run, by case; each run's commit and libraries (a row holds its own
        // backend's), since a backend's new version makes another build of the same commit.
        var figures: [String: [CaseKey: Double]] = [:]
        var libraries: [String: [String: String]] = [:]
        var commits: [String: String] = [:]
        for (run, summary) in history
        where Self.sameBuild(run, environment) && !excluded.contains(run.runID) && summary.metric == .time {
            // A build of exactly one commit: not a dirty one, nor an unknown one.
            guard let fastest = summary.times?.fastest, fastest > 0, run.recordedCommit.isClean else { continue }
            figures[run.runID, default: [:]][summary.key] = log(fastest)
            libraries[run.runID, default: [:]].merge(run.libraries) { first, _ in first }
            commits[run.runID] = run.commit
        }
        // A run of a few cases has no shift of its own to measure: its median case would be it.
        let runs = figures.keys.filter { figures[$0]!.count >= Comparison.minimumCasesForShift }.sorted()
        let groups = Dictionary(grouping: runs) { run in
            ([commits[run]!] + libraries[run, default: [:]].sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" })
        }.values.filter { $0.count >= 2 }
        var squares: [CaseKey: Double] = [:]
        var runsBeyondFirst: [CaseKey: Int] = [:]
        var freedom: [CaseKey: Double] = [:]
        for runs in groups {
            let residuals = Self.residuals(runs.map { figures[$0]! })
            let cases = Double(residuals.count)
            for (key, residuals) in residuals {
                squares[key, default: 0] += residuals.reduce(0) { $0 + $1 * $1 }
                runsBeyondFirst[key, default: 0] += residuals.count - 1
                // The runs' shifts cost the group's cases a run's worth of degrees of freedom
                // between them: (runs − 1)(cases − 1) in all.
                freedom[key, default: 0] += Double(residuals.count - 1) * (1 - 1 / cases)
            }
        }
        let measured = runsBeyondFirst.filter { $0.value >= Self.minimumRuns - 1 }.keys.sorted()
        let moderated = ModeratedVariances(
            measured.map { squares[$0]! / freedom[$0]! }, degreesOfFreedom: measured.map { freedom[$0]! })
        var variances: [CaseKey: Estimate] = [:]
        for (index, key) in measured.enumerated() {
            variances[key] = Estimate(
                variance: moderated.variances[index], degreesOfFreedom: moderated.degreesOfFreedom[index])
        }
        self.init(
            variances: variances, runs: groups.reduce(0) { $0 + $1.count }, commits: groups.count,
            driftFloor: driftFloor)
    }

    /// The residuals of each case in the runs of one build, after removing the case's level and
    /// each run's shift: three rounds of a median polish, means over runs and medians over cases.
    private static func residuals(_ runs: [[CaseKey: Double]]) -> [CaseKey: [Double]] {
        let keys = Set(runs.flatMap(\.keys)).filter { key in runs.filter { $0[key] != nil }.count >= 2 }
        var shifts = [Double](repeating: 0, count: runs.count)
        var levels: [CaseKey: Double] = [:]
        for _ in 0..<3 {
            for key in keys {
                let values = runs.indices.compactMap { run in runs[run][key].map { $0 - shifts[run] } }
                levels[key] = values.reduce(0, +) / Double(values.count)
            }
            for run in runs.indices {
                let deviations = runs[run].compactMap { key, value in levels[key].map { value - $0 } }
                shifts[run] = Statistics(deviations)?.median ?? 0
            }
        }
        var residuals: [CaseKey: [Double]] = [:]
        for key in keys {
            residuals[key] = runs.indices.compactMap { run in runs[run][key].map { $0 - shifts[run] - levels[key]! } }
        }
        return residuals
    }

    /// Every fact of the host alike, cores too, and the kernel and Swift.
    private static func sameBuild(_ a: RunEnvironment, _ b: RunEnvironment) -> Bool {
        a.host == b.host && a.version.isSameKernelAndSwift(as: b.version)
    }
}
