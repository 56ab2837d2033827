/// How often `markdown` holds `](`, which opens a link's destination, after a `]` that no
/// backslash escapes: counted over Unicode scalars, as a Markdown renderer reads them, where
/// `String`'s search matches whole `Character`s and misses a `]` that a combining mark joins.
package func unescapedLinkDestinations(in markdown: String) -> Int {
    let scalars = Array(markdown.unicodeScalars)
    var count = 0
    for index in scalars.indices.dropLast() where scalars[index] == "]" && scalars[index + 1] == "(" {
        // An odd run of backslashes before the `]` escapes it; an even one escapes only itself.
        let backslashes = scalars[..<index].reversed().prefix { $0 == "\\" }.count
        if backslashes % 2 == 0 { count += 1 }
    }
    return count
}

/// Whether `markdown` holds `needle` scalar for scalar: the check for a raw tag (`<img`), which a
/// prepended scalar before its `<` would hide from `String.contains`.
package func containsScalars(_ markdown: String, _ needle: String) -> Bool {
    Array(markdown.unicodeScalars).firstRange(of: Array(needle.unicodeScalars)) != nil
}
