/// The steps of every series of a history, and which of them are alerts: regressions of at least
/// the threshold that begin after ``since``, where the environment did not change.
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
        package let commit: RecordedCommit
        package let timestamp: String
    }

    /// What `--confirm` found for each alert it measured again, by ``alertID(_:_:)``.
    package var confirmations: [String: Confirmation] = [:]

    /// An alert measured again: the builds either side of its step compared side by side.
    package struct Confirmation: Sendable, Equatable {
        package enum Outcome: String, Sendable {
            /// The later build is slower by the threshold of `bench ab`, significantly.
            case confirmed
            /// It is not: the bound on the change lies below that threshold.
            case notReproduced = "not-reproduced"
            /// The comparison could not decide, or could not be made (`reason` says why).
            case undecided
        }

        package var outcome: Outcome
        /// The later build against the earlier, `current / baseline − 1`.
        package var change: Double?
        package var reason: String?

        package init(outcome: Outcome, change: Double?, reason: String? = nil) {
            self.outcome = outcome
            self.change = change
            self.reason = reason
        }
    }

    /// What identifies an alert among the series: its host, case and first run after the step.
    package static func alertID(_ series: CaseSeries, _ changePoint: ChangePoint) -> String {
        "\(series.host)|\(series.key)|\(changePoint.firstAfter.runID)"
    }

    package func confirmation(of series: CaseSeries, _ changePoint: ChangePoint) -> Confirmation? {
        confirmations[Self.alertID(series, changePoint)]
    }

    /// With confirmations, the alerts that were confirmed; otherwise every alert.
    package var standingAlerts: [(series: CaseSeries, changePoint: ChangePoint)] {
        guard !confirmations.isEmpty else { return alerts }
        return alerts.filter { confirmation(of: $0.series, $0.changePoint)?.outcome == .confirmed }
    }

    package init(series: [CaseSeries], threshold: Double, since: Since?) {
        self.series = series
        self.threshold = threshold
        self.since = since
    }

    /// Whether `changePoint` makes `bench history --changes` exit with 1: a regression after
    /// ``since``, not at a change of the environment.
    package func isAlert(_ changePoint: ChangePoint) -> Bool {
        guard changePoint.isRegression, !changePoint.isEnvironmental else { return false }
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
            return Since(runID: run.runID, commit: run.recordedCommit, timestamp: run.timestamp)
        }
        let hashes = [reference] + [resolve(reference)].compactMap { $0 }
        let run = ordered.last { environment in hashes.contains(where: environment.recordedCommit.matches) }
        return run.map { Since(runID: $0.runID, commit: $0.recordedCommit, timestamp: $0.timestamp) }
    }
}
