/// A PKCE `code_challenge` (RFC 7636 §4.2) and the method that derived it.
///
/// The client sends it with the authorization request; the server stores it with the
/// authorization code and later checks the verifier against it with
/// ``verify(_:using:policy:)`` or ``verify(presented:against:using:policy:)``.
///
/// An `S256` challenge keeps its 43 characters inline, in the value itself: deriving one
/// allocates nothing, and neither do comparing, hashing and verifying it. ``value`` makes a
/// `String` of them each time it is read (one heap allocation); ``withUTF8(_:)`` lends the
/// characters without one, for writing them straight into a request.
public struct CodeChallenge: Hashable, Sendable {
    /// The characters, by method. Not `Hashable`: a synthesized `==` would compare a `plain`
    /// challenge, a secret, with an early exit; ``CodeChallenge`` compares in constant time.
    @usableFromInline
    enum Storage: Sendable {
        case s256(S256Characters)
        case plain(String)
    }

    @usableFromInline
    let storage: Storage

    /// The challenge, as sent in the `code_challenge` parameter.
    ///
    /// For an `S256` challenge this makes a new `String` on every read: keep it rather than read
    /// it twice, or use ``withUTF8(_:)``, which makes none.
    public var value: String {
        switch storage {
        case .s256(let characters): characters.string
        case .plain(let value): value
        }
    }

    /// How ``value`` was derived, as sent in the `code_challenge_method` parameter.
    public var method: ChallengeMethod {
        switch storage {
        case .s256: .s256
        case .plain: .plain
        }
    }

    /// Calls `body` with the challenge's characters, ASCII, as ``value`` has them, without making
    /// a `String`.
    ///
    /// - Parameter body: Reads the characters; the buffer is valid only during the call.
    /// - Returns: What `body` returns.
    @inlinable
    public func withUTF8<Result>(_ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result {
        switch storage {
        case .s256(let characters):
            return try characters.withUTF8(body)
        case .plain(var value):
            return try value.withUTF8(body)
        }
    }

    /// The number of characters of an `S256` challenge: 32 digest bytes in unpadded base64url.
    static let s256Length = S256Characters.count

    /// Derives the challenge for `verifier`.
    ///
    /// - Parameters:
    ///   - verifier: The client's secret verifier.
    ///   - method: ``ChallengeMethod/s256`` unless the caller names ``ChallengeMethod/plain``.
    ///   - backend: The backend whose SHA-256 computes an `S256` challenge.
    @inlinable @inline(__always)
    public init(
        verifier: borrowing CodeVerifier, method: ChallengeMethod = .s256, using backend: borrowing some PKCEBackend
    ) {
        // Inlined into every caller. As a call, it cost nearly as much again as the base64url it
        // runs, most of that the call's own: the verifier copied into the call's frame, the result
        // returned through memory and read back, the backend passed as a generic with its metadata.
        switch method {
        case .s256:
            self.storage = .s256(Self.s256Characters(of: verifier, using: backend))
        case .plain:
            self.storage = .plain(verifier.value)
        }
    }

    /// The `S256` challenge made of `characters`.
    @inline(__always)
    init(s256 characters: S256Characters) {
        self.storage = .s256(characters)
    }

    /// Validates a challenge received from elsewhere, such as an authorization request or the
    /// server's own storage.
    ///
    /// An `S256` challenge is exactly 43 base64url characters, with no padding, ending in a
    /// character a 32-byte digest can end in; a `plain` challenge follows the verifier's rules, and
    /// is accepted only when `policy` allows `plain`.
    ///
    /// - Parameters:
    ///   - value: The candidate challenge, taken whole: nothing is trimmed.
    ///   - method: The `code_challenge_method` it came with;
    ///     ``ChallengeMethod/init(requestParameter:policy:)`` reads one from a request.
    ///   - policy: What the server accepts; `S256` only by default.
    /// - Throws: ``PKCEError/challengeMethodNotAllowed(_:)`` for `plain` that `policy` does not
    ///   allow, ``PKCEError/invalidCharacter(_:character:position:)`` or
    ///   ``PKCEError/invalidLength(_:length:)``.
    public init(validating value: String, method: ChallengeMethod, policy: PKCEPolicy = PKCEPolicy()) throws(PKCEError)
    {
        try policy.check(method)
        switch method {
        case .s256:
            let length = Self.s256Length
            try validate(value, as: .codeChallenge, lengths: length...length, isAllowed: Base64URL.isAlphabet)
            let last = value.utf8[value.utf8.index(before: value.utf8.endIndex)]
            guard Base64URL.canEndDigestEncoding(last) else {
                throw .invalidCharacter(.codeChallenge, character: Unicode.Scalar(last), position: length - 1)
            }
            self.storage = .s256(S256Characters { _ = $0.update(fromContentsOf: value.utf8) })
        case .plain:
            try validate(
                value, as: .codeChallenge, lengths: CodeVerifier.allowedLengths, isAllowed: Unreserved.contains)
            self.storage = .plain(value)
        }
    }

    /// `BASE64URL(SHA256(ASCII(verifier)))`: the 43 characters of `verifier`'s `S256` challenge.
    ///
    /// A function of its own, not a closure in the initializer, because a closure may not capture
    /// the initializer's borrowed parameters.
    @inlinable @inline(__always)
    static func s256Characters(of verifier: CodeVerifier, using backend: some PKCEBackend) -> S256Characters {
        verifier.withUTF8 { s256Characters(of: $0, using: backend) }
    }

    /// `BASE64URL(SHA256(characters))`: the 43 characters of the `S256` challenge of the verifier
    /// whose characters are `characters`.
    @inlinable @inline(__always)
    static func s256Characters(
        of characters: UnsafeBufferPointer<UInt8>, using backend: some PKCEBackend
    ) -> S256Characters {
        withUnsafeTemporaryAllocation(byteCount: sha256ByteCount, alignment: 8) { digest in
            // Zeroed first: a backend that writes no digest yields the challenge of zeros, never
            // one made of what the stack held before.
            digest.initializeMemory(as: UInt8.self, repeating: 0)
            backend.sha256(UnsafeRawBufferPointer(characters), into: digest)
            let digest = UnsafeRawPointer(digest.baseAddress!)
            return S256Characters(digest: digest)
        }
    }
}

// MARK: - Equality

extension CodeChallenge {
    /// Whether two challenges have the same method and characters, compared in constant time.
    ///
    /// A `plain` challenge is the verifier itself, so `==` never stops at the first differing
    /// character: the time it takes depends on the lengths only. A server should still verify with
    /// ``verify(_:using:policy:)`` or ``verify(presented:against:using:policy:)``, which also apply
    /// its ``PKCEPolicy``, rather than compare a recomputed challenge with `==`.
    public static func == (lhs: CodeChallenge, rhs: CodeChallenge) -> Bool {
        let sameMethod = lhs.method == rhs.method
        let sameCharacters = lhs.withUTF8 { left in
            rhs.withUTF8 { right in constantTimeEquals(UnsafeRawBufferPointer(left), UnsafeRawBufferPointer(right)) }
        }
        return sameMethod && sameCharacters
    }

    /// Hashes the method and the characters.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(method)
        withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }
}

// MARK: - Printing

/// An `S256` challenge is public, and prints whole. A `plain` challenge is the verifier itself, a
/// secret, and prints only its length, also in `dump`, `debugPrint` and a debugger's `po`.
extension CodeChallenge: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// `CodeChallenge(S256, E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM)`, or
    /// `CodeChallenge(plain, 43 characters)`: a `plain` challenge's value is never printed.
    public var description: String {
        switch method {
        case .s256: "CodeChallenge(S256, \(value))"
        case .plain: "CodeChallenge(plain, \(value.utf8.count) characters)"
        }
    }

    /// The same as ``description``.
    public var debugDescription: String { description }

    /// The method and, for `S256`, the value; for `plain`, its length in place of the value.
    public var customMirror: Mirror {
        switch method {
        case .s256: Mirror(self, children: ["value": value, "method": method], displayStyle: .struct)
        case .plain: Mirror(self, children: ["length": value.utf8.count, "method": method], displayStyle: .struct)
        }
    }
}
