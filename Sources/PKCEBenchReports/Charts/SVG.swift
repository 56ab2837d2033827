import Foundation

/// A small builder of self-contained SVG documents: no scripts, no external fonts or styles.
struct SVG {
    let width: Double
    let height: Double
    private var elements: [String] = []

    init(width: Double, height: Double) {
        self.width = width
        self.height = height
    }

    mutating func rect(
        x: Double, y: Double, width: Double, height: Double, fill: String, attributes: [(String, String)] = [],
        title: String? = nil
    ) {
        let extra = Self.attributes(attributes)
        let open =
            "<rect x=\"\(Self.number(x))\" y=\"\(Self.number(y))\" width=\"\(Self.number(width))\" "
            + "height=\"\(Self.number(height))\" fill=\"\(fill)\"\(extra)"
        elements.append(title.map { open + "><title>\(Self.escape($0))</title></rect>" } ?? open + "/>")
    }

    mutating func line(x1: Double, y1: Double, x2: Double, y2: Double, stroke: String, width: Double = 1) {
        elements.append(
            "<line x1=\"\(Self.number(x1))\" y1=\"\(Self.number(y1))\" x2=\"\(Self.number(x2))\" "
                + "y2=\"\(Self.number(y2))\" stroke=\"\(stroke)\" stroke-width=\"\(Self.number(width))\"/>")
    }

    mutating func polyline(_ points: [(Double, Double)], stroke: String, attributes: [(String, String)] = []) {
        let coordinates = points.map { "\(Self.number($0.0)),\(Self.number($0.1))" }.joined(separator: " ")
        let extra = Self.attributes(attributes)
        elements.append(
            "<polyline points=\"\(coordinates)\" fill=\"none\" stroke=\"\(stroke)\" stroke-width=\"2\"\(extra)/>")
    }

    mutating func circle(x: Double, y: Double, radius: Double, fill: String, title: String? = nil) {
        let open =
            "<circle cx=\"\(Self.number(x))\" cy=\"\(Self.number(y))\" r=\"\(Self.number(radius))\" fill=\"\(fill)\""
        elements.append(title.map { open + "><title>\(Self.escape($0))</title></circle>" } ?? open + "/>")
    }

    mutating func open(_ name: String, attributes: [(String, String)] = []) {
        elements.append("<\(name)\(Self.attributes(attributes))>")
    }

    mutating func close(_ name: String) {
        elements.append("</\(name)>")
    }

    enum Anchor: String {
        case start, middle, end
    }

    mutating func text(
        _ content: String, x: Double, y: Double, anchor: Anchor = .start, size: Double = 12, weight: String = "normal",
        rotate: Double? = nil
    ) {
        let transform =
            rotate.map { " transform=\"rotate(\(Self.number($0)) \(Self.number(x)) \(Self.number(y)))\"" } ?? ""
        elements.append(
            "<text x=\"\(Self.number(x))\" y=\"\(Self.number(y))\" text-anchor=\"\(anchor.rawValue)\" "
                + "font-size=\"\(Self.number(size))\" font-weight=\"\(weight)\"\(transform)>\(Self.escape(content))</text>"
        )
    }

    /// The document, with a white background and a sans-serif font.
    func render(title: String) -> String {
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" + element(title: title) + "\n"
    }

    /// The `<svg>` element alone, to place inside an HTML page.
    func element(title: String, attributes: [(String, String)] = []) -> String {
        let extra = Self.attributes(attributes)
        return """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(Self.number(width))" height="\(Self.number(height))" \
            viewBox="0 0 \(Self.number(width)) \(Self.number(height))" font-family="Helvetica, Arial, sans-serif"\(extra)>
            <title>\(Self.escape(title))</title>
            <rect x="0" y="0" width="\(Self.number(width))" height="\(Self.number(height))" fill="#ffffff"/>
            \(elements.joined(separator: "\n"))
            </svg>
            """
    }

    /// `text` for an SVG or HTML text node or attribute value, Unicode scalar by scalar: a `"`
    /// followed by a combining mark is one `Character`, but still ends an attribute. Scalars that
    /// XML 1.0 does not allow at all (controls other than tab, newline and carriage return;
    /// U+FFFE and U+FFFF) become U+FFFD.
    static func escape(_ text: String) -> String {
        var result = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&apos;"
            case "\t", "\n", "\r": result.unicodeScalars.append(scalar)
            case _ where scalar.value < 0x20 || scalar.value == 0xFFFE || scalar.value == 0xFFFF:
                result.unicodeScalars.append("\u{FFFD}")
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    private static func attributes(_ attributes: [(String, String)]) -> String {
        attributes.map { " \($0.0)=\"\(escape($0.1))\"" }.joined()
    }

    static func number(_ value: Double) -> String {
        String(format: "%.1f", value)
    }

    /// Colours that stay distinguishable for the common kinds of colour blindness (Okabe and Ito).
    static let palette = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000"]
}

/// An axis from 0 to a round maximum, with round ticks.
struct Axis {
    let maximum: Double
    let ticks: [Double]

    /// An axis that holds `largest`, with about five ticks at 1, 2 or 5 × 10ⁿ; values past 10³⁰⁰
    /// (a hand-edited file) are drawn at the top rather than overflow the axis.
    init(largest: Double) {
        let largest = largest > 0 && largest.isFinite ? min(largest, 1e300) : 1
        let rough = largest / 5
        let magnitude = pow(10, (log10(rough)).rounded(.down))
        let step = [1.0, 2, 5, 10].map { $0 * magnitude }.first { $0 >= rough } ?? 10 * magnitude
        let top = (largest / step).rounded(.up) * step
        maximum = top
        ticks = stride(from: 0.0, through: top + step / 2, by: step).map { $0 }
    }

    /// Where `value` sits on the axis, from 0 at its origin to 1 at its maximum, clamped.
    func fraction(_ value: Double) -> Double {
        value.isFinite ? min(max(value / maximum, 0), 1) : (value > 0 ? 1 : 0)
    }
}
