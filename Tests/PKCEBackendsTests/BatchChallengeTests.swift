@testable import PKCE
import PKCEBackends
import Testing

@Suite("Challenges in batches: the same as one at a time")
struct BatchChallengeTests {
    /// One verifier of every length, 43…128: one, two and three SHA-256 blocks, and the padding
    /// boundaries at 55/56 and 119/120 characters.
    static func everyLength() throws -> [CodeVerifier] {
        try CodeVerifier.allowedLengths.map { length in
            try CodeVerifier.generate(length: length, using: SwiftBackend())
        }
    }

    static func oneAtATime(_ verifiers: some Sequence<CodeVerifier>) -> [String] {
        verifiers.map { CodeChallenge(verifier: $0, using: SwiftBackend()).value }
    }

    /// The pure-Swift batch's widths that this machine runs: two messages at a time on the SHA
    /// instructions where the CPU has them, and 4, 8 and 16 SIMD lanes, whichever the compile
    /// target would pick.
    static let widths = (SHA256.Implementation.shaExtensions.isAvailable ? [2] : []) + [4, 8, 16]

    /// The pure-Swift batch with `lanes` lanes (2: ``SHA256Pairs``).
    static func batch(_ verifiers: [CodeVerifier], lanes: Int) -> [String] {
        let challenges =
            switch lanes {
            case 2: SHA256Pairs.challenges(for: verifiers)
            case 4: SHA256Lanes.challenges(for: verifiers, lanes: SIMD4<UInt32>.self)
            case 8: SHA256Lanes.challenges(for: verifiers, lanes: SIMD8<UInt32>.self)
            default: SHA256Lanes.challenges(for: verifiers, lanes: SIMD16<UInt32>.self)
            }
        return challenges.map(\.value)
    }

    @Test(
        "Every backend's challenges(for:) agrees with the pure-Swift single path, every length in one batch",
        arguments: backends)
    func everyBackend(backend: any PKCEBackend) throws {
        // Against another backend's single path, so that the default implementation is not
        // compared with itself.
        let everyLength = try Self.everyLength()
        let batch = backend.challenges(for: everyLength)
        #expect(batch.map(\.value) == Self.oneAtATime(everyLength))
        #expect(batch.allSatisfy { $0.method == .s256 })
        #expect(backend.challenges(for: []).isEmpty)
    }

    @Test("RFC 7636 Appendix B in a batch, in every lane position", arguments: backends)
    func appendixB(backend: any PKCEBackend) throws {
        let vector = Vectors.appendixB
        let appendixB = try CodeVerifier(validating: vector.verifier)
        let others = Array(try Self.everyLength().prefix(20))
        for position in 0...others.count {
            var verifiers = others
            verifiers.insert(appendixB, at: position)
            #expect(backend.challenges(for: verifiers)[position].value == vector.challenge)
        }
    }

    /// Batches of 0 to 40 verifiers of mixed lengths: every remainder modulo 2, 4, 8 and 16 lanes.
    @Test(
        "Each lane width, batches that do not fill the lanes, lanes ending at different blocks", arguments: widths,
        0...40)
    func laneWidths(lanes: Int, count: Int) throws {
        // Lengths of one, two and three blocks side by side, so that lanes finish at different blocks.
        let everyLength = try Self.everyLength()
        let verifiers = (0..<count).map { everyLength[($0 * 37) % everyLength.count] }
        #expect(Self.batch(verifiers, lanes: lanes) == Self.oneAtATime(verifiers))
    }

    @Test("Each lane width on one verifier of every length 43…128", arguments: widths)
    func laneWidthsEveryLength(lanes: Int) throws {
        let everyLength = try Self.everyLength()
        #expect(Self.batch(everyLength, lanes: lanes) == Self.oneAtATime(everyLength))
    }

    @Test("Each lane width on batches of one length, for every length 43…128", arguments: widths)
    func laneWidthsUniform(lanes: Int) throws {
        for length in CodeVerifier.allowedLengths {
            let verifiers = try (0..<(lanes + 3)).map { _ in
                try CodeVerifier.generate(length: length, using: SwiftBackend())
            }
            #expect(Self.batch(verifiers, lanes: lanes) == Self.oneAtATime(verifiers), "length \(length)")
        }
    }
}
