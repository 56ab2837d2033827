import Foundation
import PKCEBenchCore

/// The layout of the charts of a history (`bench history --chart`, and with `--changes`): one small
/// panel per case, a row per operation, size and threads, a column per backend, each panel a band of
/// percent about 0 on one symmetric axis that all panels share.
struct PanelGrid {
    typealias Frame = (left: Double, top: Double, width: Double, height: Double)

    let backends: [String]
    let groups: [CaseGroup]
    let axis: Axis

    private static let panelWidth = 220.0, panelHeight = 96.0, gapX = 24.0, gapY = 40.0
    private static let left = 150.0, top = 96.0

    /// A drawing of the grid's size with its two title lines and each column's backend.
    func canvas(title: String, subtitle: String) -> SVG {
        var svg = SVG(
            width: Self.left + Double(max(backends.count, 1)) * (Self.panelWidth + Self.gapX) + 20,
            height: Self.top + Double(groups.count) * (Self.panelHeight + Self.gapY) + 40)
        svg.text(title, x: 20, y: 26, size: 16, weight: "bold")
        svg.text(subtitle, x: 20, y: 46, size: 12)
        for (column, backend) in backends.enumerated() {
            svg.text(
                backend, x: Self.left + Double(column) * (Self.panelWidth + Self.gapX) + Self.panelWidth / 2,
                y: Self.top - 26, anchor: .middle, size: 13, weight: "bold")
        }
        return svg
    }

    /// Row `row`'s label, `challenge 43`, or `challenge 43 ×2` on two threads.
    func drawLabel(_ svg: inout SVG, row: Int) {
        let group = groups[row]
        svg.text(
            "\(group.operation.rawValue) \(group.size)" + (group.threads == 1 ? "" : " ×\(group.threads)"),
            x: Self.left - 12, y: frame(row: row, column: 0).top + Self.panelHeight / 2 + 4, anchor: .end, size: 12)
    }

    func frame(row: Int, column: Int) -> Frame {
        (
            Self.left + Double(column) * (Self.panelWidth + Self.gapX),
            Self.top + Double(row) * (Self.panelHeight + Self.gapY), Self.panelWidth, Self.panelHeight
        )
    }

    /// A panel's background, its line at 0 and the axis's bounds.
    func drawBackground(_ svg: inout SVG, frame: Frame) {
        let middle = frame.top + frame.height / 2
        svg.rect(x: frame.left, y: frame.top, width: frame.width, height: frame.height, fill: "#f7f7f7")
        svg.line(x1: frame.left, y1: middle, x2: frame.left + frame.width, y2: middle, stroke: "#888888")
        let bound = String(format: "%g%%", axis.maximum)
        svg.text("+\(bound)", x: frame.left + 2, y: frame.top + 10, size: 9)
        svg.text("−\(bound)", x: frame.left + 2, y: frame.top + frame.height - 3, size: 9)
    }

    /// Where `percent` lies in a panel, up for positive.
    func y(_ percent: Double, in frame: Frame) -> Double {
        frame.top + frame.height / 2 - (percent >= 0 ? 1 : -1) * axis.fraction(abs(percent)) * frame.height / 2
    }

    /// Where the `index`-th of `count` runs lies in a panel, left to right.
    func x(_ index: Double, of count: Int, in frame: Frame) -> Double {
        count > 1
            ? frame.left + 8 + (frame.width - 16) * index / Double(count - 1)
            : frame.left + frame.width / 2
    }
}
