import Foundation
import PKCEBenchCore
@testable import PKCEBenchReports
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
}
