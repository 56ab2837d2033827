/// The commit a run records: a short or full hash, marked dirty when tracked files differed from
/// it, or none known. Its text, ``description``, is what the `commit` column and the run's id hold:
/// `a11f3bc`, `a11f3bc-dirty`, `unknown` outside a git checkout, or empty in a row that recorded
/// nothing. Where the commit came from is ``RunEnvironment/commitSource``, beside it.
package struct RecordedCommit: Sendable, Hashable, CustomStringConvertible {
    /// 4 to 64 lowercase hex digits (``RecordedFields/isHash(_:)``); `nil` when no commit is known.
    package let hash: String?
    /// Whether tracked files differed from ``hash``: a build of it may not be the commit's.
    package let isDirty: Bool
    /// An unknown commit recorded as empty text rather than as `unknown`, which the grammar allows.
    private let isBlank: Bool

    /// No commit known: a run made outside a git checkout.
    package static let unknown = RecordedCommit(hash: nil, isDirty: false, isBlank: false)

    /// The grammar of a known commit's text, for messages.
    package static let grammar = "4 to 64 lowercase hex digits, -dirty or not"

    private static let unknownText = "unknown"
    private static let dirtySuffix = "-dirty"

    private init(hash: String?, isDirty: Bool, isBlank: Bool) {
        self.hash = hash
        self.isDirty = isDirty
        self.isBlank = isBlank
    }

    /// The commit `hash` names, dirty or not; `nil` when `hash` is not 4 to 64 lowercase hex digits.
    package init?(hash: String, isDirty: Bool = false) {
        guard RecordedFields.isHash(hash[...]) else { return nil }
        self.init(hash: hash, isDirty: isDirty, isBlank: false)
    }

    /// The commit `text` records, in the grammar of the `commit` column: 4 to 64 lowercase hex
    /// digits, with `-dirty` appended or not, `unknown`, or empty; `nil` for anything else, which
    /// git could read as more than a commit.
    package init?(exactly text: String) {
        if text.isEmpty {
            self.init(hash: nil, isDirty: false, isBlank: true)
        } else if text == Self.unknownText {
            self = .unknown
        } else if text.hasSuffix(Self.dirtySuffix) {
            self.init(hash: String(text.dropLast(Self.dirtySuffix.count)), isDirty: true)
        } else {
            self.init(hash: text, isDirty: false)
        }
    }

    /// The commit `text` records, leniently, as rows written before the grammar need: text that is
    /// not a commit (``init(exactly:)``) is an unknown one.
    package init(recorded text: String) {
        self = RecordedCommit(exactly: text) ?? .unknown
    }

    /// Whether a commit is known: a hash, dirty or not.
    package var isKnown: Bool { hash != nil }

    /// Whether this is a build of exactly the commit: known and not dirty.
    package var isClean: Bool { isKnown && !isDirty }

    /// Whether this commit and `hashOrPrefix` name the same one: this one is known, dirty or not,
    /// `hashOrPrefix` has at least 4 characters, and either begins with the other.
    package func matches(_ hashOrPrefix: String) -> Bool {
        guard let hash, hashOrPrefix.utf8.count >= 4 else { return false }
        return hashOrPrefix.hasPrefix(hash) || hash.hasPrefix(hashOrPrefix)
    }

    /// The recorded text: `a11f3bc`, `a11f3bc-dirty`, `unknown`, or empty.
    package var description: String {
        guard let hash else { return isBlank ? "" : Self.unknownText }
        return isDirty ? hash + Self.dirtySuffix : hash
    }
}

extension RecordedCommit {
    /// The commit checked out in `directory` (by default the current one), dirty when a tracked
    /// file is modified, or an unknown one outside a git checkout.
    static func checkedOut(in directory: String? = nil) -> RecordedCommit {
        guard let checkout = SystemFacts.gitCheckout(in: directory) else { return .unknown }
        return RecordedCommit(hash: checkout.shortHash, isDirty: checkout.isDirty) ?? .unknown
    }
}
