import Foundation
import PKCEBenchCore

package enum SummaryFormatter {
    /// The table and Markdown line the backends up per operation and size and mark the fastest
    /// of each group; a failed case shows its error instead of figures.
    package static func render(_ run: RunResult, as format: OutputFormat) -> String {
        let rows = run.summaries
        switch format {
        case .csv:
            return ReportSchema.summaryCSV(of: run)
        case .json:
            return JSONReport.run(run)
        case .table, .markdown:
            // One table per metric: a case both timed and counted is a row of each.
            let tables = Metric.allCases.compactMap { metric in
                let rows = rows.filter { $0.metric == metric }
                return rows.isEmpty ? nil : table(rows, counted: metric == .instructions, as: format)
            }
            return tables.isEmpty ? table([], counted: false, as: format) : tables.joined(separator: "\n")
        }
    }

    /// The rows of one metric.
    private static func table(_ rows: [CaseSummary], counted: Bool, as format: OutputFormat) -> String {
        var table = TextTable(
            [("operation", .left), ("size", .right), ("threads", .right), ("backend", .left)]
                + (counted
                    ? [("instructions/op", .right), ("", .left)]
                    : [
                        ("median ns/op", .right), ("ops/s", .right), ("MB/s", .right), ("±cv", .right),
                        ("allocs/op", .right), ("", .left),
                    ]))
        let best = bestInGroups(rows)
        for row in rows {
            let isBest = best.contains(row.key)
            let head = [row.key.operation.rawValue, String(row.key.size), String(row.key.threads), row.key.backend]
            table.append(head + (counted ? countedCells(row, fewest: isBest) : cells(row, fastest: isBest)))
        }
        let groupStarts = Set(rows.indices.uniqued { rows[$0].key.group })
        return format == .table ? table.plain(groupBreaks: groupStarts) : table.markdown()
    }

    /// The cases that rank first in their group of two or more: the smallest median time or
    /// instruction count; a failed case never ranks. `rows` are of one metric.
    static func bestInGroups(_ rows: [CaseSummary]) -> Set<CaseKey> {
        Set(
            Dictionary(grouping: rows, by: \.key.group).values.compactMap { group in
                guard group.count > 1 else { return nil }
                return group.compactMap { row in figure(row).map { (row.key, $0) } }.min { $0.1 < $1.1 }?.0
            })
    }

    private static func figure(_ row: CaseSummary) -> Double? {
        row.instructionsPerOperation ?? row.times?.median
    }

    private static func countedCells(_ row: CaseSummary, fewest: Bool) -> [String] {
        guard let instructions = row.instructionsPerOperation else {
            return ["failed", row.failure ?? ""]
        }
        return [String(format: "%.1f", instructions), fewest ? "fewest" : ""]
    }

    private static func cells(_ row: CaseSummary, fastest: Bool) -> [String] {
        guard let times = row.times else {
            return ["failed", "", "", "", "", row.failure ?? ""]
        }
        return [NumberFormat.nanoseconds(times.median)] + rateCells(row, times) + [fastest ? "fastest" : ""]
    }

    /// A timed row's ops/s, MB/s, ±cv and allocations per operation, as the tables show them.
    static func rateCells(_ row: CaseSummary, _ times: CaseSummary.Times) -> [String] {
        [
            times.operationsPerSecond.map(NumberFormat.siPrefixed) ?? "",
            times.megabytesPerSecond.map { String(format: "%.1f", $0) } ?? "",
            String(format: "±%.1f%%", times.coefficientOfVariation * 100),
            row.allocationsPerOperation.map(allocations) ?? "",
        ]
    }

    /// `0`, `1`, `1.02`: allocations per operation, whole where they are.
    static func allocations(_ value: Double) -> String {
        abs(value - value.rounded()) < 0.005 ? String(format: "%.0f", value) : String(format: "%.2f", value)
    }
}
