import Foundation
import PKCEBenchCore
@testable import PKCEBenchReports
import PKCEBenchReportsTestSupport
import PKCEBenchTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Text from a report on its way into a page or to a terminal: shown, never obeyed.
@Suite("Escapes for pages and terminals")
struct EscapeTests {
    @Test("SVG and HTML escapes work on Unicode scalars: a quote with a combining mark still closes no attribute")
    func escapesByScalar() {
        let escaped = SVG.escape("\"\u{301}")
        #expect(!escaped.unicodeScalars.contains("\""))
        #expect(escaped == "&quot;\u{301}")
        #expect(SVG.escape("<'\u{338}>&") == "&lt;&apos;\u{338}&gt;&amp;")
        // Controls XML does not allow at all become U+FFFD; tab, newline and return stay.
        #expect(SVG.escape("a\u{1B}[31m\tb\u{0}") == "a\u{FFFD}[31m\tb\u{FFFD}")
    }
    @Test("What reaches a terminal shows escape sequences and direction overrides, and keeps lines when asked")
    func terminalText() {
        #expect(printable("\u{1B}[2Jred") == "\\u{1B}[2Jred")
        #expect(printable("abc\u{202E}def") == "abc\\u{202E}def")
        #expect(printable("a\nb\tc") == "a\\nb\\tc")
        #expect(printable("a\nb\tc\r", keepingLines: true) == "a\nb\tc\\r")
        #expect(printable("café, 10 µs") == "café, 10 µs")
    }

    @Test("Markdown escapes work on Unicode scalars: a prepended or combining scalar hides no tag, link or cell")
    func markdownByScalar() {
        // U+0600 joins the `<` after it into one Character, U+0301 the `[` before it.
        let tag = Markdown.text("\u{600}<img src=x onerror=alert(1)>")
        #expect(!tag.unicodeScalars.contains("<") && !tag.unicodeScalars.contains(">"))
        #expect(tag == "\u{600}&lt;img src=x onerror=alert(1)&gt;")
        let link = Markdown.text("[\u{301}x\u{600}](y)")
        #expect(unescapedLinkDestinations(in: link) == 0)
        // Expected values are kept out of #expect, whose quoting of a literal that holds both a
        // `\u{…}` escape and a backslash leaves the backslash unescaped and does not compile.
        let escapedLink = "\\[\u{301}x\u{600}\\](y)"
        #expect(link == escapedLink)
        let escapedBar = "a\u{600}\\|b"
        #expect(Markdown.text("a\u{600}|b") == escapedBar)
        // A backslash is escaped itself, so it cannot undo the escape of a `]` after it.
        let escapedBackslash = Markdown.text("[x\\](y)")
        let threeBackslashes = "\\[x\\\\\\](y)"
        #expect(escapedBackslash == threeBackslashes)
        #expect(unescapedLinkDestinations(in: escapedBackslash) == 0)
        #expect(unescapedLinkDestinations(in: "[x\\\\](y)") == 1)
        let punctuation = "&amp;lt; \\*a\\* \\_b\\_ \\`c\\` \\~d\\~ \\$e\\$ \\!f \\#g"
        #expect(Markdown.text("&lt; *a* _b_ `c` ~d~ $e$ !f #g") == punctuation)
        #expect(
            Markdown.text("OpenSSL 3.0.19 27 Jan 2026, -4.2% (p 0.01)") == "OpenSSL 3.0.19 27 Jan 2026, -4.2% (p 0.01)")
    }

    @Test("Markdown text keeps its line: line breaks and other controls become U+FFFD, a tab a space")
    func markdownControls() {
        let controls = "a\u{FFFD}\u{FFFD}\\# b\u{FFFD}\\[2J\u{FFFD}c\u{FFFD}d\u{FFFD}e f\u{FFFD}"
        #expect(Markdown.text("a\r\n# b\u{1B}[2J\u{85}c\u{2028}d\u{202E}e\tf\u{0}") == controls)
        #expect(!Markdown.text("x\ny\rz").unicodeScalars.contains { $0 == "\n" || $0 == "\r" })
    }

    @Test(
        "Markdown text that begins a line cannot make it a heading, a list, an underline or a code block",
        arguments: [
            ("# h", "\\# h"), ("- item", "\\- item"), ("+ item", "\\+ item"), ("===", "\\==="),
            ("12. item", "12\\. item"), ("3) item", "3\\) item"), ("    code", "&#32;   code"),
            ("> quote", "&gt; quote"), ("2026-11-22", "2026-11-22"), ("warning: x", "warning: x"),
        ])
    func markdownLineStart(text: String, escaped: String) {
        #expect(Markdown.text(text, startsLine: true) == escaped)
    }

    @Test("Only text that can neither end a code span nor a cell goes in one; any other is escaped outside it")
    func markdownCode() {
        #expect(Markdown.code("20261122T041556.042Z-5106788-4f0c2a9e") == "`20261122T041556.042Z-5106788-4f0c2a9e`")
        #expect(Markdown.code("abc1234-dirty") == "`abc1234-dirty`")
        let escapedTick = "a\\` &lt;img&gt;"
        #expect(Markdown.code("a` <img>") == escapedTick)
        let escapedBar = "x\\|y"
        #expect(Markdown.code("x|y") == escapedBar)
        #expect(Markdown.code("x\ny") == "x\u{FFFD}y")
        #expect(Markdown.code("") == "")
    }

    @Test("A Markdown table keeps one line per row, and one cell per column, whatever its cells hold")
    func markdownTable() {
        let planted = [
            "failed:\n# injected\r\n<img src=x onerror=alert(1)>", "[\u{301}x\u{600}](https://example.com)",
            "a|b\u{301}|\u{600}|c", "\\|",
        ]
        var table = TextTable([("name", .left), ("note", .left)])
        for cell in planted { table.append(["case", cell]) }
        let markdown = table.markdown()
        let lines = markdown.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(markdown.hasSuffix("\n") && lines.count == planted.count + 2)
        for line in lines {
            // Every `|` that separates cells: none escaped by an odd run of backslashes.
            let scalars = Array(line.unicodeScalars)
            let separators = scalars.indices.filter { index in
                scalars[index] == "|" && scalars[..<index].reversed().prefix { $0 == "\\" }.count % 2 == 0
            }
            #expect(separators.count == 3, "\(line)")
        }
        #expect(!containsScalars(markdown, "<img"))
        #expect(unescapedLinkDestinations(in: markdown) == 0)
    }

    @Test("A run's Markdown keeps the table at its rows + 2 lines when a failed case's reason holds line breaks")
    func markdownSummaryWithLineBreaks() {
        let reason = "broken\n\n# injected\n| a | b |\n\u{600}<img src=x onerror=alert(1)>\n[\u{301}x\u{600}](y)"
        let run = SyntheticRun.report(failed: [SyntheticRun.keys[0]: reason])
        #expect(run.summaries.count > 1 && run.summaries.filter { $0.failure == reason }.count == 1)
        let markdown = SummaryFormatter.render(run, as: .markdown)
        let lines = markdown.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(lines.count == run.summaries.count + 2)
        #expect(lines.allSatisfy { $0.hasPrefix("| ") && $0.hasSuffix(" |") })
        #expect(!containsScalars(markdown, "<img"))
        #expect(unescapedLinkDestinations(in: markdown) == 0)
    }
}
