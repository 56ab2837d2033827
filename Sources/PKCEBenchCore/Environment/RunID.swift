/// A run's id, taken apart: `<UTC timestamp>-<commit>-<nonce>`, with `-baseline` appended for the
/// baseline side of a run of two builds, such as `20261122T041556.042Z-5106788-4f0c2a9e`. It names
/// the run's files; the nonce keeps apart runs that start in the same millisecond.
/// ``RecordedFields/isRunID(_:commitMatching:)`` is its grammar; rows written before it may hold
/// ids that do not parse, which ``RunEnvironment/runID`` keeps as text.
package struct RunID: Sendable, Hashable, CustomStringConvertible {
    /// When the run started, as in ``RunEnvironment/timestamp`` without its dashes and colons, which
    /// file names are better without: `20261122T041556.042Z`.
    package var timestamp: String
    package var commit: RecordedCommit
    /// 8 lowercase hex digits.
    package var nonce: String
    /// Whether the id is the baseline side's of a run of two builds.
    package var isBaseline: Bool

    private static let baselineSuffix = "-baseline"

    package init(timestamp: String, commit: RecordedCommit, nonce: String, isBaseline: Bool = false) {
        self.timestamp = timestamp
        self.commit = commit
        self.nonce = nonce
        self.isBaseline = isBaseline
    }

    /// A new run's id: `timestamp` in ISO 8601 (``RunEnvironment/timestamp``), and a nonce of 8 hex
    /// digits from the system's CSPRNG.
    package init(startedAt timestamp: String, commit: RecordedCommit) {
        let nonce = String(UInt32.random(in: .min ... .max), radix: 16)
        self.init(
            timestamp: timestamp.filter { $0 != "-" && $0 != ":" }, commit: commit,
            nonce: String(repeating: "0", count: 8 - nonce.count) + nonce)
    }

    /// The id `text` holds; `nil` when it is not in the grammar.
    package init?(_ text: String) {
        guard RecordedFields.isRunID(text) else { return nil }
        var rest = Substring(text)
        let isBaseline = rest.hasSuffix(Self.baselineSuffix)
        if isBaseline { rest = rest.dropLast(Self.baselineSuffix.count) }
        // The grammar makes these ASCII: 20 bytes of timestamp, a dash, the commit, a dash, 8 hex digits.
        guard let commit = RecordedCommit(exactly: String(rest.dropFirst(21).dropLast(9))) else { return nil }
        self.init(
            timestamp: String(rest.prefix(20)), commit: commit, nonce: String(rest.suffix(8)), isBaseline: isBaseline)
    }

    package var description: String {
        "\(timestamp)-\(commit)-\(nonce)" + (isBaseline ? Self.baselineSuffix : "")
    }
}
