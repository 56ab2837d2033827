import Foundation
import PKCEBenchCore

/// Renders summary rows for standard output.
package enum SummaryFormatter {
    /// Renders `rows` in `format`.
    ///
    /// The table and Markdown line the backends up per operation and size and mark the fastest
    /// of each group; a failed case shows its error instead of figures.
    package static func render(_ rows: [SummaryRow], as format: OutputFormat) -> String {
        let rows = rows.sorted { $0.key < $1.key }
        switch format {
        case .csv:
            return ReportSchema.encode(rows, columns: ReportSchema.summary, lineEnding: .lf)
        case .json:
            return JSONReport.run(rows)
        case .table, .markdown:
            let counted = rows.contains { $0.summary.metric == .instructions }
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
                table.append(counted ? countedCells(row, fewest: isBest) : cells(row, fastest: isBest))
            }
            let groupStarts = Set(rows.indices.uniqued { rows[$0].key.group })
            return format == .table ? table.plain(groupBreaks: groupStarts) : table.markdown()
        }
    }

    /// The cases that rank first in their group of two or more: the smallest median time or
    /// instruction count; a failed case never ranks.
    static func bestInGroups(_ rows: [SummaryRow]) -> Set<CaseKey> {
        Set(
            Dictionary(grouping: rows, by: \.key.group).values.compactMap { group in
                guard group.count > 1 else { return nil }
                return group.compactMap { row in figure(row).map { (row.key, $0) } }.min { $0.1 < $1.1 }?.0
            })
    }

    private static func figure(_ row: SummaryRow) -> Double? {
        guard row.isOK else { return nil }
        return row.summary.metric == .instructions ? row.summary.instructionsPerOperation : row.summary.median
    }

    private static func countedCells(_ row: SummaryRow, fewest: Bool) -> [String] {
        let head = [row.key.operation.rawValue, String(row.key.size), String(row.key.threads), row.key.backend]
        guard row.isOK, let instructions = row.summary.instructionsPerOperation else {
            return head + ["failed", row.summary.failure ?? ""]
        }
        return head + [String(format: "%.1f", instructions), fewest ? "fewest" : ""]
    }

    private static func cells(_ row: SummaryRow, fastest: Bool) -> [String] {
        let head = [row.key.operation.rawValue, String(row.key.size), String(row.key.threads), row.key.backend]
        guard row.isOK, let median = row.summary.median else {
            return head + ["failed", "", "", "", "", row.summary.failure ?? ""]
        }
        return head + [NumberFormat.nanoseconds(median)] + rateCells(row) + [fastest ? "fastest" : ""]
    }

    /// A timed row's ops/s, MB/s, ±cv and allocations per operation, as the tables show them.
    static func rateCells(_ row: SummaryRow) -> [String] {
        [
            row.summary.operationsPerSecond.map(NumberFormat.siPrefixed) ?? "",
            row.summary.megabytesPerSecond.map { String(format: "%.1f", $0) } ?? "",
            row.summary.coefficientOfVariation.map { String(format: "±%.1f%%", $0 * 100) } ?? "",
            row.summary.allocationsPerOperation.map(allocations) ?? "",
        ]
    }

    /// `0`, `1`, `1.02`: allocations per operation, whole where they are.
    static func allocations(_ value: Double) -> String {
        abs(value - value.rounded()) < 0.005 ? String(format: "%.0f", value) : String(format: "%.2f", value)
    }
}
