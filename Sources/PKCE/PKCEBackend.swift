/// A source of the two primitives PKCE needs: cryptographically secure random bytes and SHA-256.
///
/// This is the one seam between PKCE and a crypto library. The package ships four conformances:
/// ``SwiftBackend`` (the default: pure Swift, no C library), `OpenSSLBackend`, `SodiumBackend` and
/// `CryptoBackend` (swift-crypto), each in a module of its own so that a client links only what it
/// uses. `allBackends()` in the `PKCEBackends` module lists them all.
///
/// Conforming types must be safe to use from many threads at once.
public protocol PKCEBackend: Sendable {
    /// A short, stable, lowercase name: `swift`, `openssl`, `sodium` or `crypto`.
    ///
    /// Benchmark reports key their rows by it, so it never changes between releases. The harness
    /// takes names of 1 to 32 lowercase ASCII letters, digits, `-`, `_` and `.`, starting with a
    /// letter, one backend to a name.
    var name: String { get }

    /// The library that does the work, with its version where it can be known at run time, as a
    /// benchmark report records it: `OpenSSL 3.0.22 25 Aug 2026`, `libsodium 1.0.18`.
    ///
    /// Results made with different libraries are not compared unawares. The default is the empty
    /// string: nothing recorded.
    var library: String { get }

    /// Whether ``fillRandom(_:)`` can throw.
    ///
    /// `false` for a generator that has no error return and stops the process rather than return
    /// bytes it could not make random, as libsodium's and the standard library's do. The default,
    /// `true`, is the safe assumption; callers handle the error either way.
    var randomnessCanFail: Bool { get }

    /// Fills `buffer` with bytes from a cryptographically secure random number generator.
    ///
    /// - Parameter buffer: The bytes to overwrite; all of them are written.
    /// - Throws: ``PKCEError/randomFailure(source:code:)`` when the generator reports a failure.
    ///   The contents of `buffer` are then unspecified and must not be used.
    func fillRandom(_ buffer: UnsafeMutableRawBufferPointer) throws

    /// Computes the SHA-256 digest (FIPS 180-4) of `message` into the caller's buffer.
    ///
    /// Implementations do not allocate on the heap in Swift code, so callers can hash in a hot loop.
    ///
    /// - Parameters:
    ///   - message: The bytes to hash.
    ///   - digest: Receives the 32-byte digest in its first ``sha256ByteCount`` bytes; it must be at
    ///     least that large.
    func sha256(_ message: UnsafeRawBufferPointer, into digest: UnsafeMutableRawBufferPointer)

    /// Derives the `S256` challenges of many verifiers at once (RFC 7636 §4.2).
    ///
    /// The result is what ``CodeChallenge/init(verifier:method:using:)`` gives for each verifier
    /// with ``ChallengeMethod/s256``, in the same order. The default implementation does exactly
    /// that, one verifier at a time; a backend that can hash several messages at once overrides
    /// it, as ``SwiftBackend`` does with SIMD.
    ///
    /// - Parameter verifiers: The verifiers, in any number.
    /// - Returns: One challenge per verifier, in order.
    func challenges(for verifiers: [CodeVerifier]) -> [CodeChallenge]
}

/// The size of a SHA-256 digest in bytes.
public let sha256ByteCount = 32

extension PKCEBackend {
    /// The empty string: the backend does not say which library it uses.
    public var library: String { "" }

    /// `true`: without a word from the backend, its randomness may fail.
    public var randomnessCanFail: Bool { true }

    /// Derives the `S256` challenges of `verifiers` one at a time, with ``sha256(_:into:)``.
    ///
    /// - Parameter verifiers: The verifiers, in any number.
    /// - Returns: One challenge per verifier, in order.
    public func challenges(for verifiers: [CodeVerifier]) -> [CodeChallenge] {
        verifiers.map { CodeChallenge(verifier: $0, using: self) }
    }

    /// Computes the SHA-256 digest (FIPS 180-4) of `message`.
    ///
    /// A convenience over ``sha256(_:into:)`` that allocates the result.
    ///
    /// - Parameter message: The bytes to hash.
    /// - Returns: The 32-byte digest.
    public func sha256(_ message: [UInt8]) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: sha256ByteCount) { digest, initializedCount in
            // Zeroed first, so that a backend that writes nothing returns zeros, not old memory.
            digest.initialize(repeating: 0)
            message.withUnsafeBytes { sha256($0, into: UnsafeMutableRawBufferPointer(digest)) }
            initializedCount = sha256ByteCount
        }
    }
}
