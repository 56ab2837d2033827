import Foundation

/// `bench history --chart`: the median nanoseconds per operation of cases over the runs of a
/// history, one line per case (lower is faster).
public enum HistoryChart {
    /// Draws the chart of `rows`, summary rows of many runs.
    ///
    /// Runs are placed left to right in the order they appear in the history, labelled with
    /// their run id (timestamp and commit); each case is one `<polyline class="trend">`, with a marker per run.
    public static func svg(_ rows: [SummaryRow]) -> String {
        let runs = orderedUnique(rows.map(\.runID))
        let keys = orderedUnique(rows.sorted { $0.key < $1.key }.map(\.key))
        let medians = Dictionary(grouping: rows.filter(\.isOK), by: \.key)

        let left = 90.0, right = 260.0, top = 60.0, plotHeight = 320.0, width = 960.0
        let plotBottom = top + plotHeight
        let legendHeight = 18.0 * Double(keys.count) + top
        var svg = SVG(width: width, height: max(plotBottom + 90, legendHeight + 20))
        svg.text(
            "PKCEBench: median ns per operation over runs (lower is faster)", x: 20, y: 26, size: 16, weight: "bold")
        svg.text("\(runs.count) run(s), \(keys.count) case(s)", x: 20, y: 44, size: 12)

        let axis = Axis(largest: rows.compactMap(\.nsMedian).max() ?? 1)
        let plotRight = width - right
        for tick in axis.ticks {
            let y = plotBottom - axis.fraction(tick) * plotHeight
            svg.line(x1: left, y1: y, x2: plotRight, y2: y, stroke: tick == 0 ? "#333333" : "#dddddd")
            svg.text(String(format: "%g", tick), x: left - 6, y: y + 4, anchor: .end, size: 11)
        }
        svg.text("ns/op (median)", x: 24, y: top + plotHeight / 2, anchor: .middle, size: 12, rotate: -90)
        svg.text("run", x: (left + plotRight) / 2, y: plotBottom + 80, anchor: .middle, size: 12)

        let step = runs.count > 1 ? (plotRight - left - 40) / Double(runs.count - 1) : 0
        func x(_ run: Int) -> Double { runs.count > 1 ? left + 20 + step * Double(run) : (left + plotRight) / 2 }
        for (index, run) in runs.enumerated() {
            svg.text(run, x: x(index), y: plotBottom + 14, anchor: .end, size: 10, rotate: -45)
        }

        for (index, key) in keys.enumerated() {
            let color = SVG.palette[index % SVG.palette.count]
            let byRun = Dictionary(
                (medians[key] ?? []).map { ($0.runID, $0.nsMedian ?? 0) }, uniquingKeysWith: { a, _ in a })
            let points = runs.enumerated().compactMap { position, run in
                byRun[run].map { (x(position), plotBottom - axis.fraction($0) * plotHeight, $0, run) }
            }
            svg.polyline(
                points.map { ($0.0, $0.1) }, stroke: color, attributes: [("class", "trend"), ("data-case", "\(key)")])
            for point in points {
                svg.circle(
                    x: point.0, y: point.1, radius: 3, fill: color,
                    title: "\(key) in run \(point.3): \(SummaryFormatter.nanoseconds(point.2)) ns/op")
            }
            let legendY = top + 18 * Double(index)
            svg.rect(x: plotRight + 20, y: legendY - 10, width: 12, height: 12, fill: color)
            svg.text(key.description, x: plotRight + 38, y: legendY, size: 12)
        }
        return svg.render(title: "PKCEBench history")
    }

    private static func orderedUnique<T: Hashable>(_ values: [T]) -> [T] {
        var seen = Set<T>()
        return values.filter { seen.insert($0).inserted }
    }
}
