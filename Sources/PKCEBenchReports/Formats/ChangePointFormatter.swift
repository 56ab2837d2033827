import Foundation
import PKCEBenchCore

/// `bench history --changes`: one row per step in a case's series, or one for a series without
/// any (`no-change`) or too short to tell (`too-short`). A step at a change of the environment
/// names it (`Swift 6.3.1 → 6.4.0`) and never alerts.
package enum ChangePointFormatter {
    /// One line of every format.
    struct Row {
        let series: CaseSeries
        let changePoint: ChangePoint?
        let isAlert: Bool
        /// What `--confirm` found, for an alert it measured again.
        let confirmation: HistoryChanges.Confirmation?

        var status: String {
            guard let changePoint else { return series.isTooShort ? "too-short" : "no-change" }
            return changePoint.isRegression ? "regressed" : "improved"
        }

        /// The change and its 95% interval, in percent.
        var change: (estimate: Double, low: Double, high: Double)? {
            changePoint.map { changePoint in
                let estimate = changePoint.estimate
                let margin = estimate.criticalValue(tail: 0.025) * estimate.standardError
                return (
                    estimate.change * 100, (exp(estimate.logChange - margin) - 1) * 100,
                    (exp(estimate.logChange + margin) - 1) * 100
                )
            }
        }
    }

    static func rows(_ changes: HistoryChanges) -> [Row] {
        changes.series.flatMap { series in
            series.changePoints.isEmpty
                ? [Row(series: series, changePoint: nil, isAlert: false, confirmation: nil)]
                : series.changePoints.map {
                    Row(
                        series: series, changePoint: $0, isAlert: changes.isAlert($0),
                        confirmation: changes.confirmation(of: series, $0))
                }
        }
    }

    static let header = [
        "case", "operation", "backend", "size", "threads", "cpu", "cpu_flags", "build", "target_cpu", "metric", "runs",
        "status", "last_run_before",
        "commit_before", "first_run_after", "commit_after", "change_pct", "change_low_pct", "change_high_pct",
        "p_value", "library_before", "library_after", "environment_change", "alert", "confirmation",
        "confirmation_change_pct",
    ]

    package static func render(_ changes: HistoryChanges, as format: OutputFormat) -> String {
        let rows = rows(changes)
        switch format {
        case .csv:
            return CSV.encode(header: header, records: rows.map(record), lineEnding: .lf)
        case .json:
            return JSONReport.changes(rows)
        case .table, .markdown:
            // The series without a step are counted in the summary, not listed.
            var table = TextTable([
                ("case", .left), ("runs", .right), ("status", .left), ("last before", .left), ("first after", .left),
                ("change", .right), ("95% interval", .right), ("p", .right), ("", .left),
            ])
            for row in rows {
                guard let changePoint = row.changePoint, let change = row.change else { continue }
                table.append([
                    row.series.key.description, String(row.series.points.count), row.status,
                    "\(changePoint.lastBefore.commit) \(time(of: changePoint.lastBefore))",
                    "\(changePoint.firstAfter.commit) \(time(of: changePoint.firstAfter))",
                    String(format: "%+.1f%%", change.estimate),
                    String(format: "%+.1f…%+.1f%%", change.low, change.high),
                    changePoint.pValue.map { String(format: "%.3f", $0) } ?? "",
                    [row.isAlert ? "alert" : "", confirmationNote(row.confirmation), environmentNote(changePoint)]
                        .filter { !$0.isEmpty }.joined(separator: "; "),
                ])
            }
            let body = table.rows.isEmpty ? "" : (format == .table ? table.plain() : table.markdown()) + "\n"
            // The summary names the run the window starts after, as the history file spells it.
            let line = format == .table ? summary(changes) : Markdown.text(summary(changes), startsLine: true)
            return body + line + "\n"
        }
    }

    private static func record(_ row: Row) -> [String] {
        let key = row.series.key
        let change = row.change
        return [
            key.description, key.operation.rawValue, key.backend, String(key.size), String(key.threads),
            row.series.host.cpu, row.series.host.cpuFlags, row.series.host.build.rawValue, row.series.host.targetCPU,
            row.series.host.metric.rawValue, String(row.series.points.count), row.status,
            row.changePoint?.lastBefore.runID ?? "", row.changePoint?.lastBefore.commit.description ?? "",
            row.changePoint?.firstAfter.runID ?? "", row.changePoint?.firstAfter.commit.description ?? "",
            ReportSchema.format(change?.estimate, decimals: 2), ReportSchema.format(change?.low, decimals: 2),
            ReportSchema.format(change?.high, decimals: 2), ReportSchema.format(row.changePoint?.pValue, decimals: 4),
            row.changePoint?.libraryChange?.before ?? "", row.changePoint?.libraryChange?.after ?? "",
            row.changePoint.map(environmentChange) ?? "",
            row.changePoint == nil ? "" : (row.isAlert ? "yes" : "no"),
            row.confirmation?.outcome.rawValue ?? "",
            ReportSchema.format(row.confirmation?.change.map { $0 * 100 }, decimals: 2),
        ]
    }

    /// `confirmed +3.1%`, `not-reproduced +0.2%`, `undecided (REASON)`.
    private static func confirmationNote(_ confirmation: HistoryChanges.Confirmation?) -> String {
        guard let confirmation else { return "" }
        let change = confirmation.change.map { String(format: " %+.1f%%", $0 * 100) } ?? ""
        let reason = confirmation.reason.map { " (\($0))" } ?? ""
        return confirmation.outcome.rawValue + change + reason
    }

    /// When the run started, to the minute: `2026-11-27 16:36`.
    private static func time(of point: CaseSeries.Point) -> String {
        String(point.timestamp.prefix(16)).replacingOccurrences(of: "T", with: " ")
    }

    /// `Swift 6.3.1 → 6.4.0; library none → OpenSSL 3.5.0`, or empty for a commit's step.
    static func environmentChange(_ changePoint: ChangePoint) -> String {
        changePoint.environmentChanges.map(\.description).joined(separator: "; ")
    }

    private static func environmentNote(_ changePoint: ChangePoint) -> String {
        changePoint.isEnvironmental ? "environment: " + environmentChange(changePoint) : ""
    }

    /// One line: how many series, change points and alerts, and how many series are too short.
    static func summary(_ changes: HistoryChanges) -> String {
        let series = changes.series
        let short = series.filter(\.isTooShort).count
        let points = series.reduce(0) { $0 + $1.changePoints.count }
        let environmental = series.reduce(0) { $0 + $1.changePoints.filter(\.isEnvironmental).count }
        // Timed runs with no host factor: too few canary cases in them.
        let uncorrected = Set(
            series.filter { $0.host.metric == .time }.flatMap { $0.points.filter { $0.hostFactor == nil } }.map(\.runID)
        ).count
        let alerts = changes.alerts.count
        let confirmed = changes.confirmations.values.filter { $0.outcome == .confirmed }.count
        let hosts = Set(series.map(\.host)).count
        let window = changes.since.map { " after \($0.commit) (run \($0.runID))" } ?? ""
        var line =
            "\(series.count) series\(hosts > 1 ? " on \(hosts) hosts" : ""): \(points) change point"
            + "\(points == 1 ? "" : "s") of at least \(String(format: "%g", changes.threshold * 100))%"
            + (environmental > 0 ? " (\(environmental) at a change of the environment)" : "") + ", "
            + "\(alerts) regression\(alerts == 1 ? "" : "s")\(window)"
            + (changes.confirmations.isEmpty
                ? "" : ", \(confirmed) confirmed of \(changes.confirmations.count) measured again")
        if short > 0 { line += "; \(short) series too short to tell" }
        if uncorrected > 0 {
            line +=
                "; \(uncorrected) run\(uncorrected == 1 ? "" : "s") without canary cases (sha256 of openssl and "
                + "sodium), not corrected for the host"
        }
        return line + "."
    }
}
