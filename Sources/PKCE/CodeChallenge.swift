/// A PKCE `code_challenge` (RFC 7636 §4.2) and the method that derived it.
///
/// The client sends it with the authorization request; the server stores it with the
/// authorization code and later checks the verifier against it with
/// ``verify(_:using:)`` or ``verify(presented:against:using:)``.
public struct CodeChallenge: Hashable, Sendable {
    /// The challenge, as sent in the `code_challenge` parameter.
    public let value: String

    /// How ``value`` was derived, as sent in the `code_challenge_method` parameter.
    public let method: ChallengeMethod

    /// The number of characters of an `S256` challenge: 32 digest bytes in unpadded base64url.
    static let s256Length = 43

    /// Derives the challenge for `verifier`.
    ///
    /// - Parameters:
    ///   - verifier: The client's secret verifier.
    ///   - method: ``ChallengeMethod/s256`` unless the caller names ``ChallengeMethod/plain``.
    ///   - backend: The backend whose SHA-256 computes an `S256` challenge.
    public init(verifier: CodeVerifier, method: ChallengeMethod = .s256, using backend: some PKCEBackend) {
        switch method {
        case .s256:
            self.value = String(unsafeUninitializedCapacity: Self.s256Length) { characters in
                Self.encodeS256(of: verifier, using: backend, into: characters)
                return Self.s256Length
            }
        case .plain:
            self.value = verifier.value
        }
        self.method = method
    }

    /// A challenge this module derived with `S256`: 43 base64url characters, not checked again.
    init(s256Value value: String) {
        self.value = value
        self.method = .s256
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
        case .plain:
            try validate(
                value, as: .codeChallenge, lengths: CodeVerifier.allowedLengths, isAllowed: Unreserved.contains)
        }
        self.value = value
        self.method = method
    }

    /// Writes `BASE64URL(SHA256(ASCII(verifier)))`, 43 characters, to `output`.
    static func encodeS256(
        of verifier: CodeVerifier,
        using backend: some PKCEBackend,
        into output: UnsafeMutableBufferPointer<UInt8>
    ) {
        withUnsafeTemporaryAllocation(byteCount: sha256ByteCount, alignment: 8) { digest in
            var verifierValue = verifier.value
            verifierValue.withUTF8 { backend.sha256(UnsafeRawBufferPointer($0), into: digest) }
            Base64URL.encode(UnsafeRawBufferPointer(digest), into: output)
        }
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
