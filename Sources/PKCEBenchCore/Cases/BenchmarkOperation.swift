import PKCE

/// What a benchmark case measures, one operation at a time.
package enum BenchmarkOperation: String, CaseIterable, Codable, Comparable, Sendable {
    /// `CodeVerifier.generate(length:using:)`: random bytes and their base64url encoding, which
    /// the verifier holds inline.
    case verifier
    /// ``verifier`` and then the verifier's `value`: what a client pays for a verifier as the
    /// `String` it stores and later sends.
    case verifierString = "verifier-string"
    /// `CodeChallenge(verifier:using:)` with `S256`: SHA-256 of the verifier and its encoding,
    /// which the challenge holds inline.
    case challenge
    /// ``challenge`` and then the challenge's `value`: what a client pays to derive a challenge and
    /// have it as the `String` it sends.
    case challengeString = "challenge-string"
    /// `PKCEBackend.challenges(for:)` on batches of ``challengeBatchSize`` verifiers; one
    /// operation is one verifier's challenge, so the figures compare with ``challenge``'s.
    case challengeBatch = "challenge-batch"
    /// `CodeChallenge.verify(presented:against:using:)`: the token endpoint's whole check.
    case verify
    /// `PKCEBackend.sha256(_:into:)` over `size` bytes.
    case sha256
    /// `PKCEBackend.fillRandom(_:)` of `size` bytes.
    case random

    /// The sizes measured when none are asked for.
    ///
    /// For the verifier operations the size is the verifier's length in characters; 43, 55, 56 and
    /// 128 characters are 1, 1, 2 and 3 SHA-256 blocks. For the raw primitives it is in bytes.
    package var defaultSizes: [Int] {
        switch self {
        case .verifier: [43, 128]
        case .verifierString: [43]
        case .challenge: [43, 55, 56, 128]
        case .challengeString: [43]
        case .challengeBatch: [43, 128]
        case .verify: [43]
        case .sha256: [43, 64, 1024, 16_384]
        case .random: [32]
        }
    }

    /// The sizes this operation accepts.
    ///
    /// A verifier has 43 to 128 characters (RFC 7636 §4.1). The raw primitives take 1 byte to
    /// 1 MiB; the case keeps 16 inputs of that size in memory.
    package var allowedSizes: ClosedRange<Int> {
        switch self {
        case .verifier, .verifierString, .challenge, .challengeString, .challengeBatch, .verify:
            CodeVerifier.allowedLengths
        case .sha256: 0...(1 << 20)
        case .random: 1...(1 << 20)
        }
    }

    /// Whether throughput in bytes means something for this operation, so reports give MB/s.
    package var reportsByteThroughput: Bool {
        self == .sha256 || self == .random
    }

    package var sizeUnit: String {
        reportsByteThroughput ? "bytes" : "characters"
    }

    /// How many verifiers one call of the `challenge-batch` case derives challenges for: a
    /// multiple of every lane count (4, 8, 16), as a server hashing stored verifiers in bulk
    /// would pass, and small enough to stay in the L1 cache.
    package static let challengeBatchSize = 64

    /// Operations order as `allCases` lists them, which is the order reports use.
    package static func < (lhs: BenchmarkOperation, rhs: BenchmarkOperation) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}
