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

    /// The characters of eight 6-bit values at once, one value in each byte of `values` and its
    /// character in the same byte of the result, computed without a table or a branch.
    ///
    /// A verifier's characters encode secret random bytes, and a table indexed by secret bits
    /// leaves their trace in the cache, where code on the same machine can read it. Here each
    /// range of the alphabet adds its offset to `'A' + value`, under a flag that is the top bit of
    /// `value + 128 − bound`: eight bytes at a time in one 64-bit word, no byte carrying into the
    /// next (every sum stays below 256, and every result is at least `'-'`, so nothing borrows).
    /// (The standard library's `SIMD` masks select lane by lane here, so a 64-bit word is the
    /// vector.)
    ///
    /// - Precondition: every byte of `values` is below 64.
    @inline(__always)
    static func characters(_ values: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let tops: UInt64 = 0x8080_8080_8080_8080
        let from26 = ((values &+ ones &* (128 - 26)) & tops) &>> 7  // 'a'…'z' for 26…51: +6
        let from52 = ((values &+ ones &* (128 - 52)) & tops) &>> 7  // '0'…'9' for 52…61: −75
        let from62 = ((values &+ ones &* (128 - 62)) & tops) &>> 7  // '-' for 62: −13
        let from63 = from62 & values  // '_' for 63, the odd one of 62 and 63: +49
        let up = values &+ ones &* 65 &+ from26 &* 6 &+ from63 &* 49
        return up &- (from52 &* 75 &+ from62 &* 13)
    }

    /// The eight 6-bit values of the low 48 bits of `bits`, one to a byte, the lowest value in
    /// the lowest byte: three steps that each move the upper half of every field up, as a
    /// bit-deposit instruction would in one.
    @inline(__always)
    static func spread(_ bits: UInt64) -> UInt64 {
        var fields = (bits & 0xFF_FFFF) | (bits &<< 8 & 0xFF_FFFF_0000_0000)
        fields = (fields & 0x0000_0FFF_0000_0FFF) | (fields &<< 4 & 0x0FFF_0000_0FFF_0000)
        return (fields & 0x003F_003F_003F_003F) | (fields &<< 2 & 0x3F00_3F00_3F00_3F00)
    }

    /// Encodes `bytes` and writes the first `output.count` characters of the encoding.
    ///
    /// Writing a prefix is how a verifier of any length is cut from random bytes: every character
    /// carries 6 fresh bits, so no character is biased. The bytes are secret, so every character
    /// is computed by ``characters(_:)``, never looked up.
    ///
    /// - Precondition: `output.count <= encodedCount(of: bytes.count)`.
    static func encode(_ bytes: UnsafeRawBufferPointer, into output: UnsafeMutableBufferPointer<UInt8>) {
        precondition(output.count <= encodedCount(of: bytes.count), "base64url output longer than its input encodes")
        guard let input = bytes.baseAddress, let characters = output.baseAddress else { return }
        let (inputCount, outputCount) = (bytes.count, output.count)
        // Six bytes into eight characters at a time, read as one big-endian 64-bit word (whose last
        // two bytes are the next group's), their eight 6-bit values spread one to a byte, and all
        // eight characters computed and stored at once. Every verifier passes through here.
        let groups = inputCount >= 8 ? min((inputCount &- 2) / 6, outputCount / 8) : 0
        for group in 0..<groups {
            let word = UInt64(bigEndian: input.loadUnaligned(fromByteOffset: group &* 6, as: UInt64.self))
            // The first character's value ends up in the highest byte: stored big-endian, first.
            let text = Self.characters(spread(word &>> 16))
            UnsafeMutableRawPointer(characters + group &* 8).storeBytes(of: text.bigEndian, as: UInt64.self)
        }
        var read = groups &* 6
        var written = groups &* 8
        // The rest, three bytes into four characters at a time; a group cut short by the end of
        // the input has its missing bits zero, one cut short by the end of the output loses its
        // last characters.
        while read < inputCount && written < outputCount {
            var group: UInt32 = 0
            for offset in 0..<3 where read &+ offset < inputCount {
                group |= UInt32(bytes[read &+ offset]) &<< UInt32(16 &- 8 &* offset)
            }
            // Four values in the low four bytes, the first in the fourth.
            let text = Self.characters(spread(UInt64(group)))
            for index in 0..<min(4, outputCount &- written) {
                characters[written &+ index] = UInt8(truncatingIfNeeded: text &>> (24 &- 8 &* UInt64(index)))
            }
            read &+= 3
            written &+= 4
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

    /// The 43 characters of the `S256` challenge of a SHA-256 hash value, eight to a word.
    ///
    /// `hashWord(i)` is Hᵢ of FIPS 180-4 §6.2.2 as a number, whose four big-endian bytes are bytes
    /// 4i…4i + 3 of the digest. The result is six words whose bytes in memory, in order, are the
    /// characters, the last five bytes zero.
    ///
    /// Every 12 bits are two characters from one lookup; the characters stay in registers until
    /// the caller stores the words, and nothing is read back from memory: loads of bytes just
    /// stored in smaller pieces wait for the stores. Every challenge, derived or verified, passes
    /// through here.
    @inlinable @inline(__always)
    static func digestCharacters(
        hashWord: (Int) -> UInt32
    ) -> (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) {
        let pairs = Self.pairs
        @inline(__always) func word(_ i: Int) -> UInt64 { UInt64(hashWord(i)) }
        // Eight characters from the top 48 bits of a 64-bit group: four pairs, the first character
        // in the lowest byte.
        @inline(__always) func eight(_ group: UInt64) -> UInt64 {
            var text: UInt64 = 0
            for pair in 0..<4 {
                let value = Int(truncatingIfNeeded: group &>> (52 &- 12 &* UInt64(pair))) & 0xFFF
                text |= UInt64(UInt16(littleEndian: pairs[value])) &<< (16 &* UInt64(pair))
            }
            return text.littleEndian
        }
        // Bytes 6g…6g + 7 of the digest, as a big-endian number, for g = 0…4: the last ends at
        // byte 31.
        let groups = (
            word(0) &<< 32 | word(1),
            word(1) &<< 48 | word(2) &<< 16 | word(3) &>> 16,
            word(3) &<< 32 | word(4),
            word(4) &<< 48 | word(5) &<< 16 | word(6) &>> 16,
            word(6) &<< 32 | word(7)
        )
        // Bytes 30 and 31: 16 bits, three characters, the last padded with two zero bits.
        let tail = Int(truncatingIfNeeded: word(7)) & 0xFFFF
        let last = UInt64(alphabet.utf8Start[(tail &<< 2) & 0x3F])
        let end = UInt64(UInt16(littleEndian: pairs[tail &>> 4])) | last &<< 16
        return (eight(groups.0), eight(groups.1), eight(groups.2), eight(groups.3), eight(groups.4), end.littleEndian)
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
