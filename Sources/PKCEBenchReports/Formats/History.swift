import PKCEBenchCore

package struct HistoryTrend: Sendable, Equatable {
    package struct Point: Sendable, Equatable {
        package let runID: String
        package let commit: String
        /// Nanoseconds per operation; `nil` when the case failed in that run.
        package let median: Double?
        /// Nanoseconds per operation: what a busy machine moves least.
        package let fastest: Double?
        /// The change against the previous run that has a figure: positive is slower.
        package let change: Double?
    }

    package let key: CaseKey
    /// Oldest first.
    package let points: [Point]

    /// The trends of every case `include` keeps in the last `runs` runs of `history`, oldest run
    /// first.
    package static func trends(
        _ history: [RunResult], lastRuns runs: Int, include: (CaseKey) -> Bool = { _ in true }
    ) -> [HistoryTrend] {
        let byCase = Dictionary(
            grouping: history.suffix(runs).flatMap { run in
                run.summaries.filter { include($0.key) }.map { (summary: $0, environment: run.environment) }
            },
            by: \.summary.key)
        return byCase.keys.sorted().map { key in
            var previous: Double?
            let points = (byCase[key] ?? []).map { summary, environment in
                let times = summary.times
                let median = times?.median
                var change: Double?
                if let median, let previous, previous > 0 { change = median / previous - 1 }
                if let median { previous = median }
                return Point(
                    runID: environment.runID, commit: environment.commit, median: median,
                    fastest: times?.fastest, change: change)
            }
            return HistoryTrend(key: key, points: points)
        }
    }
}

package enum HistoryFormatter {
    /// One row per case and run, grouped by case.
    package static func render(_ trends: [HistoryTrend], as format: OutputFormat) -> String {
        let header = [
            "operation", "size", "threads", "backend", "run_id", "commit", "ns_median", "ns_min", "change_pct",
        ]
        let rows = trends.flatMap { trend in trend.points.map { (trend.key, $0) } }
        switch format {
        case .csv:
            return CSV.encode(
                header: header,
                records: rows.map { key, point in
                    [
                        key.operation.rawValue, String(key.size), String(key.threads), key.backend, point.runID,
                        point.commit, ReportSchema.format(point.median, decimals: 3),
                        ReportSchema.format(point.fastest, decimals: 3),
                        ReportSchema.format(point.change.map { $0 * 100 }, decimals: 2),
                    ]
                }, lineEnding: .lf)
        case .json:
            return JSONReport.history(trends)
        case .table, .markdown:
            var table = TextTable([
                ("operation", .left), ("size", .right), ("threads", .right), ("backend", .left), ("run", .left),
                ("commit", .left), ("median ns/op", .right), ("change", .right), ("fastest ns/op", .right),
            ])
            var groupStarts: Set<Int> = []
            for trend in trends {
                groupStarts.insert(table.rows.count)
                for point in trend.points {
                    table.append([
                        trend.key.operation.rawValue, String(trend.key.size), String(trend.key.threads),
                        trend.key.backend, point.runID, point.commit,
                        point.median.map(NumberFormat.nanoseconds) ?? "failed",
                        point.change.map { String(format: "%+.1f%%", $0 * 100) } ?? "",
                        point.fastest.map(NumberFormat.nanoseconds) ?? "",
                    ])
                }
            }
            return format == .table ? table.plain(groupBreaks: groupStarts) : table.markdown()
        }
    }
}
