/// A verifier's characters, held inline: room for the longest verifier, 128 bytes in sixteen
/// 64-bit words, and how many of them are used. The bytes past the last character are zero.
///
/// A verifier has 43 characters or more, too many for Swift's small-string form (15 bytes), so as
/// a `String` it lives on the heap and every copy of it is an atomic retain and release. A
/// challenge's derivation paid two of those pairs: one to copy the verifier, one to read the
/// `String`'s bytes. Held here, a verifier costs no allocation to make and nothing but its bytes to
/// copy or read.
@usableFromInline
struct VerifierCharacters: Sendable {
    /// The most characters a verifier may have (RFC 7636 §4.1).
    @usableFromInline
    static let capacity = 128

    @usableFromInline
    var words:
        (
            UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64,
            UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64
        ) = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)

    @usableFromInline
    let storedCount: UInt8

    /// The number of characters.
    @usableFromInline
    var count: Int { Int(storedCount) }

    /// Makes `count` characters with `write`, which receives a buffer of exactly `count` bytes and
    /// must write all of them.
    ///
    /// - Precondition: `count` is at most ``capacity``.
    @inline(__always)
    init(count: Int, _ write: (UnsafeMutableBufferPointer<UInt8>) throws -> Void) rethrows {
        precondition((0...Self.capacity).contains(count), "a verifier has at most 128 characters")
        storedCount = UInt8(truncatingIfNeeded: count)
        try withUnsafeMutableBytes(of: &words) { bytes in
            try bytes.withMemoryRebound(to: UInt8.self) {
                try write(UnsafeMutableBufferPointer(rebasing: $0[..<count]))
            }
        }
    }

    /// The characters of the verifier at `verifier`, read where they lie.
    ///
    /// `CodeVerifier.withUTF8(_:)` on an element of an array first copies the element, all
    /// 128 bytes of storage, to the stack; reading a verifier's last bytes back from that copy
    /// waits for the copy's stores.
    @inline(__always)
    static func bytes(of verifier: UnsafePointer<CodeVerifier>) -> UnsafeRawBufferPointer {
        let characters = UnsafeRawPointer(verifier) + MemoryLayout<CodeVerifier>.offset(of: \.characters)!
        let count = characters.load(fromByteOffset: MemoryLayout<Self>.offset(of: \.storedCount)!, as: UInt8.self)
        return UnsafeRawBufferPointer(
            start: characters + MemoryLayout<Self>.offset(of: \.words)!, count: Int(count))
    }

    /// Calls `body` with the characters.
    @inlinable
    func withUTF8<Result>(_ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result {
        try withUnsafeBytes(of: words) { bytes in
            try bytes.withMemoryRebound(to: UInt8.self) { try body(UnsafeBufferPointer(rebasing: $0[..<count])) }
        }
    }

    /// The characters as a new `String`.
    var string: String {
        withUTF8 { characters in
            String(unsafeUninitializedCapacity: characters.count) { $0.initialize(fromContentsOf: characters) }
        }
    }
}
