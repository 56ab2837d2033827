/// base64url without padding (RFC 4648 §5), as RFC 7636 uses it for verifiers and challenges.
@usableFromInline
enum Base64URL {
    /// The base64url alphabet; `alphabet[i]` encodes the 6-bit value `i`.
    @usableFromInline
    static let alphabet: StaticString = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"

    /// The number of characters that encode `byteCount` bytes without padding.
    static func encodedCount(of byteCount: Int) -> Int {
        (byteCount * 4 + 2) / 3
    }

    /// Encodes `bytes` and writes the first `output.count` characters of the encoding.
    ///
    /// Writing a prefix is how a verifier of any length is cut from random bytes: every character
    /// carries 6 fresh bits, so no character is biased.
    ///
    /// - Precondition: `output.count <= encodedCount(of: bytes.count)`.
    static func encode(_ bytes: UnsafeRawBufferPointer, into output: UnsafeMutableBufferPointer<UInt8>) {
        precondition(output.count <= encodedCount(of: bytes.count), "base64url output longer than its input encodes")
        guard let input = bytes.baseAddress, let characters = output.baseAddress else { return }
        let table = alphabet.utf8Start
        let (inputCount, outputCount) = (bytes.count, output.count)
        var read = 0
        var written = 0
        // Six bytes into eight characters at a time, read as one big-endian 64-bit word (whose last
        // two bytes are the next group's): a third fewer instructions per byte than three bytes at
        // a time. Every challenge and verifier passes through here.
        while read &+ 8 <= inputCount && written &+ 8 <= outputCount {
            let word = UInt64(bigEndian: input.loadUnaligned(fromByteOffset: read, as: UInt64.self))
            for index in 0..<8 {
                characters[written &+ index] = table[Int(truncatingIfNeeded: word &>> (58 &- 6 &* index)) & 0x3F]
            }
            read &+= 6
            written &+= 8
        }
        // Whole 3-byte groups into whole 4-character groups.
        while read &+ 3 <= inputCount && written &+ 4 <= outputCount {
            let group = UInt32(bytes[read]) << 16 | UInt32(bytes[read &+ 1]) << 8 | UInt32(bytes[read &+ 2])
            for index in 0..<4 {
                characters[written &+ index] = table[Int(group &>> (18 &- 6 &* UInt32(index)) & 0x3F)]
            }
            read &+= 3
            written &+= 4
        }
        // The rest: a group cut short by the end of the input (missing bits are zero) or of the output.
        guard written < outputCount else { return }
        var group: UInt32 = 0
        for offset in 0..<3 where read + offset < inputCount {
            group |= UInt32(bytes[read + offset]) << UInt32(16 - 8 * offset)
        }
        for shift in stride(from: 18, through: 0, by: -6) where written < outputCount {
            characters[written] = table[Int(group >> UInt32(shift) & 0x3F)]
            written += 1
        }
    }

    /// Every pair of characters: `pairs[v]` holds the encoding of the 12-bit value `v`, its first
    /// character in the low byte, so that one little-endian 16-bit store writes both in order.
    /// 8 KiB, made on first use and never written again (hence safe to share across threads, and
    /// to read from the derivations inlined into other modules).
    @usableFromInline
    nonisolated(unsafe) static let pairs: UnsafePointer<UInt16> = {
        let table = alphabet.utf8Start
        let pairs = UnsafeMutablePointer<UInt16>.allocate(capacity: 4096)
        for value in 0..<4096 {
            pairs[value] = (UInt16(table[value & 0x3F]) << 8 | UInt16(table[value >> 6])).littleEndian
        }
        return UnsafePointer(pairs)
    }()

    /// Encodes a 32-byte SHA-256 digest as the 43 characters of an `S256` challenge.
    ///
    /// What ``encode(_:into:)`` does for 32 bytes, with every length known and two characters per
    /// lookup: the compiler unrolls it into 21 loads and stores of character pairs and one of a
    /// single character, with no loop or length checks left. Every challenge, derived or
    /// verified, passes through here.
    @inlinable @inline(__always)
    static func encodeDigest(_ digest: UnsafeRawPointer, into characters: UnsafeMutablePointer<UInt8>) {
        let pairs = Self.pairs
        let output = UnsafeMutableRawPointer(characters)
        // Bytes 0…29, six at a time: eight characters from each big-endian 64-bit load, whose last
        // two bytes belong to the next group (the last load ends exactly at byte 31).
        for group in 0..<5 {
            let word = UInt64(bigEndian: digest.loadUnaligned(fromByteOffset: group &* 6, as: UInt64.self))
            for pair in 0..<4 {
                let value = Int(truncatingIfNeeded: word &>> (52 &- 12 &* pair)) & 0xFFF
                output.storeBytes(of: pairs[value], toByteOffset: group &* 8 &+ pair &* 2, as: UInt16.self)
            }
        }
        // Bytes 30 and 31: 16 bits, three characters, the last padded with two zero bits.
        let tail =
            Int(digest.load(fromByteOffset: 30, as: UInt8.self)) << 8
            | Int(digest.load(fromByteOffset: 31, as: UInt8.self))
        output.storeBytes(of: pairs[tail &>> 4], toByteOffset: 40, as: UInt16.self)
        characters[42] = alphabet.utf8Start[(tail &<< 2) & 0x3F]
    }

    /// Whether `byte` is in the base64url alphabet.
    static func isAlphabet(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"):
            return true
        default:
            return false
        }
    }

    /// Whether `byte` can end the unpadded encoding of a 32-byte digest.
    ///
    /// 32 bytes are 256 bits; the 43rd character holds the last 4 of them and 2 zero bits, so only
    /// characters whose alphabet index is a multiple of 4 can appear there.
    static func canEndDigestEncoding(_ byte: UInt8) -> Bool {
        let table = alphabet.utf8Start
        return (0..<16).contains { table[$0 * 4] == byte }
    }
}
