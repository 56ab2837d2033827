/// The grammars of the facts a run records about itself in every row of its reports: what a
/// history may hold in `commit`, `run_id`, `timestamp` and `build`. A row that fails one is
/// malformed, so nothing later reads a ref expression, an option or a megabyte of text where a
/// commit was recorded (`bench history --changes --confirm` hands the commit to git).
package enum RecordedFields {
    /// The most bytes a commit takes: 64 hex digits (SHA-256) and the dirty mark.
    package static let commitLimit = 70

    /// A commit in the grammar ``RecordedCommit/init(exactly:)`` reads: 4 to 64 lowercase hex
    /// digits, marked dirty when tracked files differed from the commit, an unknown one, or empty.
    package static func isCommit(_ text: String) -> Bool {
        RecordedCommit(exactly: text) != nil
    }

    /// A commit that names one: 4 to 64 lowercase hex digits, dirty or not.
    package static func isKnownCommit(_ text: String) -> Bool {
        RecordedCommit(exactly: text)?.isKnown == true
    }

    /// The most bytes a run id takes.
    package static let runIDLimit = 128

    /// `<UTC timestamp>-<commit>-<8 hex digits>`, with `-baseline` appended for a run kept as a
    /// baseline: `20261122T041556.042Z-5106788-4f0c2a9e`; the commit is one that `commitMatching`
    /// takes (by default ``isCommit(_:)``), and the whole at most ``runIDLimit`` bytes.
    package static func isRunID(
        _ text: String, commitMatching isValidCommit: (Substring) -> Bool = { isCommit(String($0)) }
    ) -> Bool {
        guard text.utf8.count <= runIDLimit else { return false }
        var rest = Substring(text)
        if rest.hasSuffix("-baseline") { rest = rest.dropLast(9) }
        // 20 bytes of timestamp, a dash, the commit, a dash and 8 hex digits.
        guard rest.utf8.count >= 30 else { return false }
        let dashes = [rest.utf8.dropFirst(20).first, rest.utf8.dropLast(8).last]
        let commit = Substring(rest.utf8.dropFirst(21).dropLast(9))
        return isTimestamp(Substring(rest.utf8.prefix(20)), compact: true)
            && dashes == [UInt8(ascii: "-"), UInt8(ascii: "-")]
            && rest.utf8.suffix(8).allSatisfy(isLowerHex) && isValidCommit(commit)
    }

    /// ISO 8601 in UTC with milliseconds, as a run starts: `2026-11-22T04:15:56.042Z`.
    package static func isTimestamp(_ text: String) -> Bool {
        matches(text.utf8, "####-##-##T##:##:##.###Z")
    }

    /// ``isTimestamp(_:)``, or with `compact`, as a run id holds it: `20261122T041556.042Z`.
    package static func isTimestamp(_ text: Substring, compact: Bool) -> Bool {
        compact ? matches(text.utf8, "########T######.###Z") : isTimestamp(String(text))
    }

    /// Whether `text` is a short or full commit hash: 4 to 64 lowercase hex digits.
    package static func isHash(_ text: Substring) -> Bool {
        (4...64).contains(text.utf8.count) && text.utf8.allSatisfy(isLowerHex)
    }

    private static func isLowerHex(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
    }

    /// Whether `bytes` follow `pattern`, in which `#` is a decimal digit and every other
    /// character itself.
    private static func matches(_ bytes: some Collection<UInt8>, _ pattern: StaticString) -> Bool {
        let expected = UnsafeBufferPointer(start: pattern.utf8Start, count: pattern.utf8CodeUnitCount)
        guard bytes.count == expected.count else { return false }
        return zip(bytes, expected).allSatisfy { byte, wanted in
            wanted == UInt8(ascii: "#") ? (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) : byte == wanted
        }
    }
}
