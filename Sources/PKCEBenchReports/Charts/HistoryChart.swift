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

        let panelWidth = 220.0, panelHeight = 96.0, gapX = 24.0, gapY = 40.0
        let left = 150.0, top = 96.0
        let width = left + Double(max(backends.count, 1)) * (panelWidth + gapX) + 20
        let height = top + Double(groups.count) * (panelHeight + gapY) + 40
        var svg = SVG(width: width, height: height)
        svg.text(
            "PKCEBench: change of each case's median ns/op against its first run (below 0 is faster)",
            x: 20, y: 26, size: 16, weight: "bold")
        svg.text(
            "\(runs.count) run(s), \(keys.count) case(s); runs left to right: \(runs.first ?? "none") … \(runs.last ?? "")",
            x: 20, y: 46, size: 12)
        for (column, backend) in backends.enumerated() {
            svg.text(
                backend, x: left + Double(column) * (panelWidth + gapX) + panelWidth / 2, y: top - 26, anchor: .middle,
                size: 13, weight: "bold")
        }

        for (rowIndex, group) in groups.enumerated() {
            let panelTop = top + Double(rowIndex) * (panelHeight + gapY)
            svg.text(label(group), x: left - 12, y: panelTop + panelHeight / 2 + 4, anchor: .end, size: 12)
            for (column, backend) in backends.enumerated() {
                let key = CaseKey(
                    backend: backend, operation: group.operation, size: group.size, threads: group.threads)
                guard keys.contains(key) else { continue }
                let panelLeft = left + Double(column) * (panelWidth + gapX)
                svg.open("g", attributes: [("class", "panel"), ("data-case", key.description)])
                drawPanel(
                    &svg, key: key, series: changes[key] ?? [], runs: runs, axis: axis,
                    frame: (panelLeft, panelTop, panelWidth, panelHeight))
                svg.close("g")
            }
        }
        return svg.render(title: "PKCEBench history")
    }

    private static func drawPanel(
        _ svg: inout SVG, key: CaseKey, series: [(run: Int, median: Double, change: Double)], runs: [String],
        axis: Axis, frame: (left: Double, top: Double, width: Double, height: Double)
    ) {
        let middle = frame.top + frame.height / 2
        func y(_ change: Double) -> Double {
            let percent = change * 100
            return middle - (percent >= 0 ? 1 : -1) * axis.fraction(abs(percent)) * frame.height / 2
        }
        func x(_ run: Int) -> Double {
            runs.count > 1
                ? frame.left + 8 + (frame.width - 16) * Double(run) / Double(runs.count - 1)
                : frame.left + frame.width / 2
        }
        svg.rect(x: frame.left, y: frame.top, width: frame.width, height: frame.height, fill: "#f7f7f7")
        svg.line(x1: frame.left, y1: middle, x2: frame.left + frame.width, y2: middle, stroke: "#888888")
        let bound = String(format: "%g%%", axis.maximum)
        svg.text("+\(bound)", x: frame.left + 2, y: frame.top + 10, size: 9)
        svg.text("−\(bound)", x: frame.left + 2, y: frame.top + frame.height - 3, size: 9)
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

    /// A row of panels' label: `challenge 43`, or `challenge 43 ×2` on two threads.
    private static func label(_ group: CaseGroup) -> String {
        "\(group.operation.rawValue) \(group.size)" + (group.threads == 1 ? "" : " ×\(group.threads)")
    }
}
