/// The steps of every series of a history, and which of them are alerts: regressions of at least
/// the threshold that begin after ``since``.
package struct HistoryChanges: Sendable, Equatable {
    package let series: [CaseSeries]
    /// The smallest change reported, as a fraction.
    package let threshold: Double
    /// The run after which a regression alerts; `nil` when any does.
    package let since: Since?

    /// Where the window of alerts begins.
    package struct Since: Sendable, Equatable {
        /// The last run of the commit, or the run, that `--since` named.
        package let runID: String
        package let commit: String
        package let timestamp: String
    }

    package init(series: [CaseSeries], threshold: Double, since: Since?) {
        self.series = series
        self.threshold = threshold
        self.since = since
    }

    /// Whether `changePoint` makes `bench history --changes` exit with 1.
    package func isAlert(_ changePoint: ChangePoint) -> Bool {
        guard changePoint.isRegression else { return false }
        guard let since else { return true }
        return changePoint.firstAfter.timestamp > since.timestamp
    }

    package var alerts: [(series: CaseSeries, changePoint: ChangePoint)] {
        series.flatMap { series in series.changePoints.filter(isAlert).map { (series, $0) } }
    }

    /// The run `reference` names in `runs`: a run id, or the last run of a commit given by a prefix
    /// of its hash; `resolve` turns any other revision (`main~3`, a tag) into a full hash.
    package static func since(
        _ reference: String, in runs: [RunResult], resolve: (String) -> String? = SystemFacts.commitHash
    ) -> Since? {
        let ordered = runs.map(\.environment).sorted { $0.timestamp < $1.timestamp }
        if let run = ordered.last(where: { $0.runID == reference }) {
            return Since(runID: run.runID, commit: run.commit, timestamp: run.timestamp)
        }
        func recorded(_ environment: RunEnvironment) -> String {
            environment.commit.hasSuffix("-dirty") ? String(environment.commit.dropLast(6)) : environment.commit
        }
        let hashes = [reference] + [resolve(reference)].compactMap { $0 }
        let run = ordered.last { environment in
            let commit = recorded(environment)
            return commit.count >= 4 && commit != "unknown"
                && hashes.contains { $0.count >= 4 && ($0.hasPrefix(commit) || commit.hasPrefix($0)) }
        }
        return run.map { Since(runID: $0.runID, commit: $0.commit, timestamp: $0.timestamp) }
    }
}
