/// Text from reports on its way into Markdown (a pull-request comment, a GitHub job summary):
/// shown as written, never read as Markdown or HTML. A name, a failure's reason or a library's
/// version comes from a file that anyone who can write the results directory wrote.
///
/// Every escape works on Unicode scalars, as CommonMark and HTML read them: a `Character` that
/// begins with a prepended scalar (U+0600) or ends with a combining one (U+0301) still holds a `<`
/// or a `]` that a renderer sees.
enum Markdown {
    /// `text` as inline Markdown that renders as it reads: in a table's cell, inside `<sub>`, or
    /// where a line begins (after `> `) when `startsLine`.
    ///
    /// `<`, `>` and `&` become HTML's character references, so that no tag or entity is made; the
    /// ASCII punctuation that opens or closes an inline construct (emphasis, a code span, a link
    /// or an image, a cell, strikethrough, math) or a heading is escaped with a backslash, and so,
    /// when `startsLine`, is what would make the line a list item or a setext underline. A line
    /// break or another control, which could end the line and start a block of its own, becomes
    /// U+FFFD, a tab a space.
    static func text(_ text: String, startsLine: Bool = false) -> String {
        var escaped = ""
        escaped.unicodeScalars.reserveCapacity(text.unicodeScalars.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "&": escaped += "&amp;"
            case "\\", "`", "*", "_", "[", "]", "|", "#", "!", "~", "$":
                escaped.unicodeScalars.append("\\")
                escaped.unicodeScalars.append(scalar)
            case "\t": escaped.unicodeScalars.append(" ")
            default: escaped.unicodeScalars.append(isHidden(scalar) ? "\u{FFFD}" : scalar)
            }
        }
        return startsLine ? escapingBlockStart(escaped) : escaped
    }

    /// `text` in a code span when it is made only of characters that can neither end the span nor
    /// a table's cell, as a run's id and a commit are; otherwise escaped as
    /// ``text(_:startsLine:)`` escapes it, outside a code span, where no escape works.
    static func code(_ text: String) -> String {
        guard !text.isEmpty, text.unicodeScalars.allSatisfy(isPlainInCode) else { return Self.text(text) }
        return "`\(text)`"
    }

    // MARK: - Internals

    /// A control (C0, DEL, C1), a line or paragraph separator, or a direction override or isolate
    /// (which reorders the text around it as shown).
    private static func isHidden(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control, .lineSeparator, .paragraphSeparator: return true
        default: return (0x202A...0x202E).contains(scalar.value) || (0x2066...0x2069).contains(scalar.value)
        }
    }

    private static func isPlainInCode(_ scalar: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar)
            || ("0"..."9").contains(scalar) || "-.:+".unicodeScalars.contains(scalar)
    }

    /// `text` with a backslash before what would make a line that begins with it a list item or a
    /// setext heading's underline: a first `-`, `+` or `=`, or the `.` or `)` after leading digits;
    /// and a first space as a character reference, which neither indents the line into a code
    /// block nor lets a marker after it count. (`#` and `>` are escaped wherever they stand.)
    private static func escapingBlockStart(_ text: String) -> String {
        let scalars = text.unicodeScalars
        guard let first = scalars.first else { return text }
        if first == " " { return "&#32;" + String(scalars.dropFirst()) }
        if "-+=".unicodeScalars.contains(first) { return "\\" + text }
        let digits = scalars.prefix { ("0"..."9").contains($0) }
        guard !digits.isEmpty, digits.count <= 9, let next = scalars.dropFirst(digits.count).first,
            next == "." || next == ")"
        else { return text }
        var escaped = String.UnicodeScalarView(digits)
        escaped.append("\\")
        escaped.append(contentsOf: scalars.dropFirst(digits.count))
        return String(escaped)
    }
}
