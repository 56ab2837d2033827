extension RunToRunSpread {
    /// Reads the timed runs of `history` made on `environment`'s host, never `excluded`: the two
    /// runs compared, which must not estimate their own noise. A case's stretches end at its steps,
    /// as `bench history --changes` finds them on those runs, and at changes of its environment.
    package init(
        history: [(environment: RunEnvironment, summary: CaseSummary)], like environment: RunEnvironment,
        excluding excluded: Set<String>, driftFloor: Double = defaultDriftFloor
    ) {
        let (runs, leftOut) = Self.usableRuns(of: history, like: environment, excluding: excluded)
        let analysis = ChangePointAnalysis.standard(
            threshold: ComparisonCriteria.defaultHistoryThresholdPercent(of: .time) / 100)
        self.init(
            runs: runs, stretchEnds: analysis.stretchEnds(of: runs), leftOut: leftOut, driftFloor: driftFloor)
    }
}

extension ChangePointAnalysis {
    /// For each case of `runs` (one host's, oldest first), the runs that begin a new stretch: the
    /// first after each of its steps, and after each change of its environment, whether or not its
    /// step there holds.
    func stretchEnds(of runs: [RunResult]) -> [CaseKey: Set<String>] {
        var ends: [CaseKey: Set<String>] = [:]
        for series in series(of: runs, metric: .time) {
            var first = Set(series.changePoints.map(\.firstAfter.runID))
            for index in series.points.indices.dropFirst()
            where !series.points[index - 1].environmentChanges(to: series.points[index]).isEmpty {
                first.insert(series.points[index].runID)
            }
            ends[series.key] = first
        }
        return ends
    }
}
