@testable import PKCE
import PKCEBackends
import Testing

@Suite("S256 challenges of every backend")
struct S256Tests {
    @Test("RFC 7636 Appendix B: octets → verifier → challenge", arguments: backends)
    func appendixB(backend: any PKCEBackend) throws {
        let vector = Vectors.appendixB
        // generate() encodes ceil(43 × 3 / 4) = 33 random bytes; a 33rd byte whose top two bits are
        // zero leaves the 43rd character as the RFC's 32-byte encoding has it.
        let replay = ReplayingBackend(wrapping: backend, bytes: vector.octets + [0])
        let verifier = try CodeVerifier.generate(using: replay)
        #expect(verifier.value == vector.verifier)

        let challenge = CodeChallenge(verifier: verifier, using: backend)
        #expect(challenge.value == vector.challenge)
        #expect(challenge.method == .s256)
        #expect(throws: Never.self) { try challenge.verify(verifier, using: backend) }
    }

    @Test("BASE64URL(SHA256(message)) uses '-' and '_'", arguments: backends, Vectors.s256Encodings.indices)
    func hashAndEncode(backend: any PKCEBackend, index: Int) {
        let vector = Vectors.s256Encodings[index]
        let digest = backend.sha256(Array(vector.message.utf8))
        let encoded = [UInt8](unsafeUninitializedCapacity: 43) { output, count in
            digest.withUnsafeBytes { Base64URL.encode($0, into: output) }
            count = 43
        }
        #expect(String(decoding: encoded, as: UTF8.self) == vector.encoded)
    }

    @Test(
        "Verifiers of every length hash to the same challenge on every backend", arguments: CodeVerifier.allowedLengths)
    func challengesAgree(length: Int) throws {
        let verifier = try CodeVerifier.generate(length: length, using: SwiftBackend())
        let challenges = Set(backends.map { CodeChallenge(verifier: verifier, using: $0).value })
        #expect(challenges.count == 1)
        let challenge = try #require(challenges.first)
        #expect(throws: Never.self) { try CodeChallenge(validating: challenge, method: .s256) }
    }
}

/// A backend that hashes with another and "randomly" returns fixed bytes: the way to check that a
/// verifier is the base64url encoding of the random bytes.
struct ReplayingBackend: PKCEBackend {
    let wrapping: any PKCEBackend
    let bytes: [UInt8]

    var name: String { "replay" }

    func fillRandom(_ buffer: UnsafeMutableRawBufferPointer) throws {
        precondition(buffer.count <= bytes.count, "asked for more bytes than the replay holds")
        buffer.copyBytes(from: bytes[..<buffer.count])
    }

    func sha256(_ message: UnsafeRawBufferPointer, into digest: UnsafeMutableRawBufferPointer) {
        wrapping.sha256(message, into: digest)
    }
}
