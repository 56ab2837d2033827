/// What `bench backfill` measures: which commits of a range, and how many runs each still needs
/// given the history, so that a backfill stopped at any point resumes where it stopped.
package enum BackfillPlan {
    /// Every `every`-th commit of `commits` (oldest first), counted back from the newest, which is
    /// always measured: `--every 3` over 7 commits measures the 1st, 4th and 7th.
    package static func picked(_ commits: [CommitBuilds.Commit], every: Int) -> [CommitBuilds.Commit] {
        commits.enumerated().filter { (commits.count - 1 - $0.offset) % max(1, every) == 0 }.map(\.element)
    }

    /// How many of `wanted` runs of `commit` the history lacks: runs of a clean build of that
    /// commit, recorded by at least 7 digits of its hash, on this ``Host`` count when they timed
    /// exactly `cases`, what that commit's build measures of the selection.
    package static func runsMissing(
        of commit: CommitBuilds.Commit, on host: Host, cases: Set<CaseKey>, history: [RunResult],
        wanted: Int
    ) -> Int {
        let done = history.filter { run in
            let recorded = run.environment.recordedCommit
            return recorded.isClean && (recorded.hash?.utf8.count ?? 0) >= 7 && recorded.matches(commit.id)
                && run.environment.host == host
                && Set(run.summaries.filter { $0.metric == .time }.map(\.key)) == cases
        }.count
        return max(0, wanted - done)
    }
}
