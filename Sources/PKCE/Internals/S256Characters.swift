/// The 43 base64url characters of an `S256` challenge, held inline: six 64-bit words, the last
/// five bytes always zero.
///
/// A `String` of 43 characters is too long for Swift's small-string form (15 bytes) and costs a
/// heap allocation; this costs none, so a challenge can be derived, compared, hashed and verified
/// without one.
@usableFromInline
struct S256Characters: Hashable, Sendable {
    /// The number of characters: 32 digest bytes in unpadded base64url.
    @usableFromInline
    static let count = 43

    @usableFromInline
    var words: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0)

    /// Makes the characters with `write`, which receives a buffer of exactly ``count`` bytes and
    /// must write all of them.
    @inlinable @inline(__always)
    init(_ write: (UnsafeMutableBufferPointer<UInt8>) -> Void) {
        withUnsafeMutableBytes(of: &words) { bytes in
            bytes.withMemoryRebound(to: UInt8.self) { write(UnsafeMutableBufferPointer(rebasing: $0[..<Self.count])) }
        }
    }

    /// The characters of the challenge of a SHA-256 hash value, whose word `i` is `hashWord(i)`:
    /// Hᵢ of FIPS 180-4 §6.2.2, the digest's bytes 4i…4i + 3 read as a big-endian number.
    @inlinable @inline(__always)
    init(hashWord: (Int) -> UInt32) {
        words = Base64URL.digestCharacters(hashWord: hashWord)
    }

    /// The characters of the challenge of the 32-byte SHA-256 digest at `digest`.
    @inlinable @inline(__always)
    init(digest: UnsafeRawPointer) {
        self.init { UInt32(bigEndian: digest.loadUnaligned(fromByteOffset: $0 &* 4, as: UInt32.self)) }
    }

    /// Calls `body` with the characters.
    @inlinable
    func withUTF8<Result>(_ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result {
        var words = words
        return try withUnsafeBytes(of: &words) { bytes in
            try bytes.withMemoryRebound(to: UInt8.self) { try body(UnsafeBufferPointer(rebasing: $0[..<Self.count])) }
        }
    }

    /// The characters as a new `String`.
    var string: String {
        withUTF8 { characters in
            String(unsafeUninitializedCapacity: Self.count) { $0.initialize(fromContentsOf: characters) }
        }
    }

    @usableFromInline
    static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.words == rhs.words
    }

    @usableFromInline
    func hash(into hasher: inout Hasher) {
        hasher.combine(words.0)
        hasher.combine(words.1)
        hasher.combine(words.2)
        hasher.combine(words.3)
        hasher.combine(words.4)
        hasher.combine(words.5)
    }
}
