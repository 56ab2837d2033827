import Foundation

struct TextTable {
    enum Alignment {
        case left, right
    }

    struct Column {
        let title: String
        let alignment: Alignment
    }

    let columns: [Column]
    var rows: [[String]] = []

    init(_ columns: [(String, Alignment)]) {
        self.columns = columns.map { Column(title: $0.0, alignment: $0.1) }
    }

    mutating func append(_ row: [String]) {
        precondition(row.count == columns.count, "a row needs one cell per column")
        rows.append(row)
    }

    /// Columns padded to line up, separated by two spaces; a blank line wherever `groupBreaks`
    /// says a row starts a new group.
    func plain(groupBreaks: Set<Int> = []) -> String {
        let widths = columns.indices.map { column in
            ([columns[column].title] + rows.map { $0[column] }).map(\.count).max() ?? 0
        }
        func line(_ cells: [String]) -> String {
            var text = zip(cells, zip(columns, widths)).map { cell, layout in
                let padding = String(repeating: " ", count: layout.1 - cell.count)
                return layout.0.alignment == .left ? cell + padding : padding + cell
            }.joined(separator: "  ")
            while text.last == " " { text.removeLast() }
            return text
        }
        var lines = [line(columns.map(\.title))]
        for (index, row) in rows.enumerated() {
            if groupBreaks.contains(index) && index > 0 { lines.append("") }
            lines.append(line(row))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// A GitHub-flavoured Markdown table, one line per row: every title and cell escaped as
    /// ``Markdown/text(_:startsLine:)`` escapes text, so that none holds a tag, a link or a line
    /// break.
    func markdown() -> String {
        func line(_ cells: [String]) -> String {
            "| " + cells.map { Markdown.text($0) }.joined(separator: " | ") + " |"
        }
        let rule = "|" + columns.map { $0.alignment == .left ? " --- |" : " ---: |" }.joined()
        return ([line(columns.map(\.title)), rule] + rows.map(line)).joined(separator: "\n") + "\n"
    }
}
