import Foundation
import PKCEBenchCore

/// `bench history --changes --chart`: each case's series as the analysis compares it, one small
/// panel per case (a row per operation, size and threads, a column per backend), with each step
/// marked where it falls and the mean of each segment between steps.
package enum ChangePointChart {
    /// Runs left to right in series order; each case is one `<g class="panel" data-case="…">`
    /// holding a `<polyline class="series">`, a `<g class="segment">` line per segment and a
    /// `<g class="change-point" data-status="regressed|improved">` per step.
    package static func svg(_ changes: HistoryChanges) -> String {
        drawing(changes).render(title: "PKCEBench change points")
    }

    /// The chart as an `<svg>` element, for `latest.html`.
    static func element(_ changes: HistoryChanges) -> String {
        drawing(changes).element(title: "PKCEBench change points")
    }

    private static func drawing(_ changes: HistoryChanges) -> SVG {
        let series = changes.series
        let backends = series.map(\.key.backend).uniqued()
        let groups = series.map(\.key.group).uniqued()
        // Each run's level against the series' first segment, in percent: a step looks the same in every case.
        let relative = series.map { series -> [Double] in
            let end = series.changePoints.first?.index ?? series.points.count
            let first = series.points.prefix(end).map(\.level)
            let reference = first.isEmpty ? 0 : first.reduce(0, +) / Double(first.count)
            return series.points.map { (exp($0.level - reference) - 1) * 100 }
        }
        let axis = Axis(largest: max(relative.joined().map(abs).max() ?? 0, 5))

        let grid = PanelGrid(backends: backends, groups: groups, axis: axis)
        let points = series.reduce(0) { $0 + $1.changePoints.count }
        let counted = series.first?.host.metric == .instructions
        var svg = grid.canvas(
            title: counted
                ? "PKCEBench: each run's instructions per operation against the first segment (above 0 is more)"
                : "PKCEBench: each run's fastest sample, corrected for the host, against the first segment (above 0 is slower)",
            subtitle: "\(series.count) series, \(points) change point(s) of at least "
                + "\(String(format: "%g", changes.threshold * 100))%: red slower, green faster")
        for (rowIndex, group) in groups.enumerated() {
            grid.drawLabel(&svg, row: rowIndex)
            for (column, backend) in backends.enumerated() {
                // One host's series per panel: the first, when a history spans several.
                guard let index = series.firstIndex(where: { $0.key.backend == backend && $0.key.group == group })
                else { continue }
                svg.open("g", attributes: [("class", "panel"), ("data-case", series[index].key.description)])
                drawPanel(
                    &svg, series: series[index], relative: relative[index], grid: grid,
                    frame: grid.frame(row: rowIndex, column: column))
                svg.close("g")
            }
        }
        return svg
    }

    private static func drawPanel(
        _ svg: inout SVG, series: CaseSeries, relative: [Double], grid: PanelGrid, frame: PanelGrid.Frame
    ) {
        let middle = frame.top + frame.height / 2
        func y(_ percent: Double) -> Double { grid.y(percent, in: frame) }
        func x(_ run: Double) -> Double { grid.x(run, of: relative.count, in: frame) }
        grid.drawBackground(&svg, frame: frame)
        guard !relative.isEmpty else { return }
        svg.polyline(
            relative.enumerated().map { (x(Double($0.offset)), y($0.element)) }, stroke: "#2c5d8a",
            attributes: [("class", "series")])
        for (index, point) in series.points.enumerated() {
            svg.circle(
                x: x(Double(index)), y: y(relative[index]), radius: 2, fill: "#2c5d8a",
                title: "\(series.key) in run \(point.runID) (commit \(point.commit)): "
                    + (series.host.metric == .instructions
                        ? "\(NumberFormat.siPrefixed(point.value)) instructions/op"
                        : "\(NumberFormat.nanoseconds(point.value)) ns/op fastest"))
        }
        // The segments between steps, each at its mean.
        let bounds = [0] + series.changePoints.map(\.index) + [relative.count]
        for (start, end) in zip(bounds, bounds.dropFirst()) where end > start {
            let mean = relative[start..<end].reduce(0, +) / Double(end - start)
            svg.open("g", attributes: [("class", "segment")])
            svg.line(x1: x(Double(start)), y1: y(mean), x2: x(Double(end - 1)), y2: y(mean), stroke: "#555555")
            svg.close("g")
        }
        for changePoint in series.changePoints {
            let color = changePoint.isRegression ? "#c0392b" : "#1e8449"
            let at = x(Double(changePoint.index) - 0.5)
            svg.open(
                "g",
                attributes: [
                    ("class", "change-point"), ("data-status", changePoint.isRegression ? "regressed" : "improved"),
                ])
            svg.line(x1: at, y1: frame.top, x2: at, y2: frame.top + frame.height, stroke: color, width: 2)
            svg.text(
                String(format: "%+.1f%%", changePoint.estimate.change * 100), x: at + 3, y: frame.top + 10, size: 9)
            svg.close("g")
        }
        if series.isTooShort {
            svg.text("too short", x: frame.left + frame.width / 2, y: middle - 6, anchor: .middle, size: 11)
        }
    }
}
