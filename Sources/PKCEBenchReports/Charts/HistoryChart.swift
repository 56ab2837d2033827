import Foundation
import PKCEBenchCore

/// `bench history --chart`: each case's median over the runs of a history, one small panel per
/// case (a row per operation, size and threads, a column per backend), all on one axis of change
/// against the case's first run, so that a 10% step looks the same in every case.
package enum HistoryChart {
    /// Runs left to right in history order; each case is one `<g class="panel" data-case="…">`
    /// holding a `<polyline class="trend">` with a marker (and tooltip) per run that has a median.
    package static func svg(_ history: [RunResult]) -> String {
        let runs = history.map(\.environment.runID)
        let keys = history.flatMap { $0.summaries.map(\.key) }.sorted().uniqued()
        let backends = keys.map(\.backend).uniqued()
        let groups = keys.map(\.group).uniqued()
        var mediansByCase: [CaseKey: [String: Double]] = [:]
        for run in history {
            for summary in run.summaries {
                if let median = summary.times?.median, median.isFinite, median > 0 {
                    mediansByCase[summary.key, default: [:]][run.environment.runID] = median
                }
            }
        }
        var changes: [CaseKey: [(run: Int, median: Double, change: Double)]] = [:]
        for key in keys {
            let medians = mediansByCase[key] ?? [:]
            let series = runs.enumerated().compactMap { index, run in medians[run].map { (run: index, median: $0) } }
            guard let reference = series.first?.median else { continue }
            changes[key] = series.map { ($0.run, $0.median, $0.median / reference - 1) }
        }
        let largest = changes.values.flatMap { $0.map { abs($0.change) } }.max() ?? 0
        let axis = Axis(largest: max(largest * 100, 5))

        let grid = PanelGrid(backends: backends, groups: groups, axis: axis)
        var svg = grid.canvas(
            title: "PKCEBench: change of each case's median ns/op against its first run (below 0 is faster)",
            subtitle:
                "\(runs.count) run(s), \(keys.count) case(s); runs left to right: \(runs.first ?? "none") … \(runs.last ?? "")"
        )
        for (rowIndex, group) in groups.enumerated() {
            grid.drawLabel(&svg, row: rowIndex)
            for (column, backend) in backends.enumerated() {
                let key = CaseKey(
                    backend: backend, operation: group.operation, size: group.size, threads: group.threads)
                guard keys.contains(key) else { continue }
                svg.open("g", attributes: [("class", "panel"), ("data-case", key.description)])
                drawPanel(
                    &svg, key: key, series: changes[key] ?? [], runs: runs, grid: grid,
                    frame: grid.frame(row: rowIndex, column: column))
                svg.close("g")
            }
        }
        return svg.render(title: "PKCEBench history")
    }

    private static func drawPanel(
        _ svg: inout SVG, key: CaseKey, series: [(run: Int, median: Double, change: Double)], runs: [String],
        grid: PanelGrid, frame: PanelGrid.Frame
    ) {
        let middle = frame.top + frame.height / 2
        func y(_ change: Double) -> Double { grid.y(change * 100, in: frame) }
        func x(_ run: Int) -> Double { grid.x(Double(run), of: runs.count, in: frame) }
        grid.drawBackground(&svg, frame: frame)
        guard let latest = series.last else {
            svg.text("no results", x: frame.left + frame.width / 2, y: middle - 6, anchor: .middle, size: 11)
            return
        }
        // Red or green when the latest run is beyond bench compare's default threshold.
        let threshold = ComparisonCriteria.defaultThresholdPercent(of: .time, pairing: .independent) / 100
        let color = latest.change > threshold ? "#c0392b" : latest.change < -threshold ? "#1e8449" : "#2c5d8a"
        svg.polyline(
            series.map { (x($0.run), y($0.change)) }, stroke: color,
            attributes: [("class", "trend"), ("data-case", key.description)])
        for point in series {
            svg.circle(
                x: x(point.run), y: y(point.change), radius: 2.5, fill: color,
                title: "\(key) in run \(runs[point.run]): \(NumberFormat.nanoseconds(point.median)) ns/op, "
                    + String(format: "%+.1f%%", point.change * 100) + " against its first run")
        }
        svg.text(
            String(format: "%+.1f%%", latest.change * 100) + " · \(NumberFormat.nanoseconds(latest.median)) ns",
            x: frame.left + frame.width, y: frame.top - 4, anchor: .end, size: 10)
    }
}
