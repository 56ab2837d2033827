@testable import PKCE
import Foundation
import Testing

@Suite("base64url without padding (RFC 4648 §5)")
struct Base64URLTests {
    /// Foundation's base64, made URL-safe and unpadded: an independent encoder to compare against.
    static func reference(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func encode(_ bytes: [UInt8], count: Int? = nil) -> String {
        let count = count ?? Base64URL.encodedCount(of: bytes.count)
        let output = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            bytes.withUnsafeBytes { Base64URL.encode($0, into: buffer) }
            initialized = count
        }
        return String(decoding: output, as: UTF8.self)
    }

    @Test("RFC 4648 §10 vectors, URL-safe and unpadded")
    func rfc4648() {
        let vectors = [
            "": "", "f": "Zg", "fo": "Zm8", "foo": "Zm9v", "foob": "Zm9vYg", "fooba": "Zm9vYmE", "foobar": "Zm9vYmFy",
        ]
        for (input, expected) in vectors {
            #expect(Self.encode(Array(input.utf8)) == expected)
        }
    }

    @Test("A digest's 43 characters match the general encoder and Foundation's, for every byte in every position")
    func digestEncoding() {
        // Each of the 32 positions holds each of the 256 byte values in one of these digests, and
        // each 12-bit pair of characters sees varied neighbours.
        var digests: [[UInt8]] = [Array(repeating: 0, count: 32), Array(repeating: 0xFF, count: 32)]
        for value in 0...255 {
            digests.append((0..<32).map { UInt8(truncatingIfNeeded: value &+ $0 &* 73) })
        }
        for digest in digests {
            let characters = digest.withUnsafeBytes { S256Characters(digest: $0.baseAddress!) }
            let text = characters.withUTF8 { String(decoding: $0, as: UTF8.self) }
            #expect(text == Self.encode(digest))
            #expect(text == Self.reference(digest))
            // The five bytes past the characters are zero, as in characters copied from a string:
            // equality and hashing read all 48.
            #expect(characters == S256Characters { _ = $0.update(fromContentsOf: text.utf8) })
        }
    }

    @Test("Matches Foundation's encoder for every length up to 200 and every byte value")
    func matchesFoundation() {
        for length in 0...200 {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ length &* 11) }
            #expect(Self.encode(bytes) == Self.reference(bytes))
        }
        let everyByte = (0...255).map(UInt8.init)
        #expect(Self.encode(everyByte) == Self.reference(everyByte))
    }

    @Test("A prefix of the encoding can be written, for every cut")
    func prefixes() {
        let bytes = (0..<33).map { UInt8($0 * 7) }
        let full = Self.encode(bytes)
        for count in 0...full.count {
            #expect(Self.encode(bytes, count: count) == String(full.prefix(count)))
        }
    }

    @Test("Exactly 16 characters can end a 32-byte digest's encoding")
    func digestEndings() {
        let endings = (0...255).map(UInt8.init).filter(Base64URL.canEndDigestEncoding)
        #expect(String(decoding: endings, as: UTF8.self) == "048AEIMQUYcgkosw")
    }
}
