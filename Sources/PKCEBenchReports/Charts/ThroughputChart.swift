import Foundation
import PKCEBenchCore

/// `latest.svg`: operations per second of every timed case of a run, and instructions per operation
/// of every counted one, one panel per metric, operation and size with its own axis from zero (sizes
/// differ by orders of magnitude), the backends side by side.
package enum ThroughputChart {
    /// Each measured case is one `<rect class="bar">` with a `<title>` giving its figures; a
    /// failed case is marked `failed` where its bar would be.
    package static func svg(_ run: RunResult) -> String {
        let rows = run.summaries
        let backends = orderedBackends(rows)
        let panels = rows.uniqued { Panel($0) }.map { Panel($0) }
        let metrics = Set(panels.map(\.metric))

        let columns = 4, width = 960.0, top = 70.0, panelHeight = 200.0
        let panelWidth = (width - 20) / Double(columns)
        let rowsOfPanels = (panels.count + columns - 1) / columns
        var svg = SVG(width: width, height: top + panelHeight * Double(rowsOfPanels) + 10)
        let caption =
            rows.first.map {
                "run \(run.environment.runID), \(run.environment.build) build, \($0.key.threads) thread(s)"
            } ?? "no cases"
        svg.text(heading(of: metrics), x: 20, y: 26, size: 16, weight: "bold")
        svg.text(caption, x: 20, y: 46, size: 12)
        legend(&svg, backends: backends, x: width - 20, y: 26)

        for (index, panel) in panels.enumerated() {
            let (operation, size) = (panel.operation, panel.size)
            let originX = 10 + panelWidth * Double(index % columns)
            let originY = top + panelHeight * Double(index / columns)
            let left = originX + 58, right = originX + panelWidth - 10
            let plotTop = originY + 34, plotBottom = originY + panelHeight - 30
            let cases = rows.filter { Panel($0) == panel }
            let axis = Axis(largest: cases.compactMap(figure).max() ?? 1)

            svg.text(
                "\(operation.rawValue), \(size) \(operation.sizeUnit)"
                    + (metrics.count > 1 && panel.metric == .instructions ? ", counted" : ""),
                x: originX + 10, y: originY + 18, size: 13, weight: "bold")
            for tick in axis.ticks {
                let y = plotBottom - axis.fraction(tick) * (plotBottom - plotTop)
                svg.line(x1: left, y1: y, x2: right, y2: y, stroke: tick == 0 ? "#333333" : "#dddddd")
                svg.text(NumberFormat.siPrefixed(tick), x: left - 5, y: y + 4, anchor: .end, size: 10)
            }
            svg.text(
                unit(of: panel.metric), x: originX + 10, y: (plotTop + plotBottom) / 2, anchor: .middle, size: 11,
                rotate: -90)

            let slot = (right - left) / Double(max(backends.count, 1))
            let barWidth = min(36, slot * 0.8)
            for (position, backend) in backends.enumerated() {
                let center = left + slot * (Double(position) + 0.5)
                svg.text(backend, x: center, y: plotBottom + 14, anchor: .middle, size: 10)
                guard let row = cases.first(where: { $0.key.backend == backend }) else { continue }
                guard let value = figure(row) else {
                    svg.text("failed", x: center, y: plotBottom - 4, anchor: .middle, size: 10)
                    continue
                }
                let height = axis.fraction(value) * (plotBottom - plotTop)
                svg.rect(
                    x: center - barWidth / 2, y: plotBottom - height, width: barWidth, height: height,
                    fill: color(of: backend, in: backends),
                    attributes: [
                        ("class", "bar"), ("data-backend", backend), ("data-operation", operation.rawValue),
                        ("data-size", String(size)), ("data-metric", panel.metric.rawValue),
                    ],
                    title: tooltip(row, value))
            }
        }
        return svg.render(title: "PKCEBench throughput, \(caption)")
    }

    /// The cases one panel draws: one metric, operation and size.
    private struct Panel: Hashable {
        var metric: Metric
        var operation: BenchmarkOperation
        var size: Int

        init(_ row: CaseSummary) {
            (metric, operation, size) = (row.metric, row.key.operation, row.key.size)
        }
    }

    /// A bar's height: operations per second of a timed case, instructions per operation of a
    /// counted one; `nil` for a failed case.
    private static func figure(_ row: CaseSummary) -> Double? {
        row.times?.operationsPerSecond ?? row.instructionsPerOperation
    }

    private static func unit(of metric: Metric) -> String {
        switch metric {
        case .time: "ops/s"
        case .instructions: "instructions/op"
        }
    }

    private static func heading(of metrics: Set<Metric>) -> String {
        switch (metrics.contains(.time), metrics.contains(.instructions)) {
        case (false, true):
            "PKCEBench: instructions per operation by backend (fewer is faster)"
        case (true, true):
            "PKCEBench: operations per second (higher is faster) and instructions per operation (fewer is faster)"
        default:
            "PKCEBench: operations per second by backend (higher is faster)"
        }
    }

    private static func tooltip(_ row: CaseSummary, _ value: Double) -> String {
        let name = "\(row.key.operation.rawValue)/\(row.key.backend)/\(row.key.size)"
        guard let times = row.times else {
            return "\(name): \(String(format: "%.1f", value)) instructions/op under Callgrind"
        }
        return
            "\(name): \(NumberFormat.siPrefixed(value)) ops/s, median \(NumberFormat.nanoseconds(times.median)) ns/op"
    }

    /// Backends in the order `allBackends()` uses when they are the shipped ones, then the rest by name.
    static func orderedBackends(_ rows: [CaseSummary]) -> [String] {
        let canonical = ["openssl", "sodium", "swift", "crypto"]
        let names = Set(rows.map(\.key.backend))
        return canonical.filter(names.contains) + names.subtracting(canonical).sorted()
    }

    static func color(of backend: String, in backends: [String]) -> String {
        SVG.palette[(backends.firstIndex(of: backend) ?? 0) % SVG.palette.count]
    }

    /// Swatches and names, right-aligned at `x`.
    static func legend(_ svg: inout SVG, backends: [String], x: Double, y: Double) {
        var cursor = x
        for backend in backends.reversed() {
            cursor -= Double(backend.count) * 7 + 8
            svg.text(backend, x: cursor, y: y, size: 12)
            cursor -= 16
            svg.rect(x: cursor, y: y - 10, width: 12, height: 12, fill: color(of: backend, in: backends))
            cursor -= 10
        }
    }
}
