/// What `bench backfill` measures: which commits of a range, and how many runs each still needs
/// given the history, so that a backfill stopped at any point resumes where it stopped.
package enum BackfillPlan {
    /// Every `every`-th commit of `commits` (oldest first), counted back from the newest, which is
    /// always measured: `--every 3` over 7 commits measures the 1st, 4th and 7th.
    package static func picked(_ commits: [CommitBuilds.Commit], every: Int) -> [CommitBuilds.Commit] {
        commits.enumerated().filter { (commits.count - 1 - $0.offset) % max(1, every) == 0 }.map(\.element)
    }

    /// One machine's share of a range, so that machines measure it between them: `--shard K/N`.
    package struct Shard: Sendable, Equatable, CustomStringConvertible {
        /// From 1 to ``count``.
        package let number: Int
        package let count: Int

        /// The whole range, for a backfill that does not share it.
        package static let whole = Shard(number: 1, count: 1)

        /// `K/N`, with 1 ≤ K ≤ N ≤ 1000; `nil` for anything else.
        package init?(_ text: String) {
            let parts = text.split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count == 2, let number = Int(parts[0]), let count = Int(parts[1]),
                (1...1000).contains(count), (1...count).contains(number)
            else { return nil }
            self.init(number: number, count: count)
        }

        private init(number: Int, count: Int) {
            self.number = number
            self.count = count
        }

        package var description: String { "\(number)/\(count)" }

        /// This share of `commits` (oldest first): the K-th of every N, counted from the oldest, so that
        /// the N shares of a range are apart and cover it, and each spreads over the whole range.
        package func share(of commits: [CommitBuilds.Commit]) -> [CommitBuilds.Commit] {
            commits.enumerated().filter { $0.offset % count == number - 1 }.map(\.element)
        }
    }

    /// How many of `wanted` runs of `commit` the history lacks: runs of a clean build of that
    /// commit, recorded by at least 7 digits of its hash, on this ``Host`` count when they timed
    /// exactly `cases`, what that commit's build measures of the selection; a run that `history`
    /// holds twice (from the results directory and from the store) counts once.
    package static func runsMissing(
        of commit: CommitBuilds.Commit, on host: Host, cases: Set<CaseKey>, history: [RunResult],
        wanted: Int
    ) -> Int {
        var seen = Set<String>()
        let done = history.filter { run in
            guard seen.insert(run.environment.runID).inserted else { return false }
            let recorded = run.environment.recordedCommit
            return recorded.isClean && (recorded.hash?.utf8.count ?? 0) >= 7 && recorded.matches(commit.id)
                && run.environment.host == host
                && Set(run.summaries.filter { $0.metric == .time }.map(\.key)) == cases
        }.count
        return max(0, wanted - done)
    }
}
