/// What the token endpoint learned from its PKCE check, when the check did not fail.
public enum PKCEVerification: Hashable, Sendable {
    /// A challenge was stored with the authorization code, and the presented verifier matches it.
    case verified

    /// Neither a challenge was stored nor a verifier presented: the client did not use PKCE.
    ///
    /// Whether to accept that is the server's policy; RFC 9700 §2.1.1 asks servers to require PKCE
    /// for public clients.
    case notUsed
}

extension CodeChallenge {
    /// Checks a verifier against this challenge (RFC 7636 §4.6), in constant time.
    ///
    /// The challenge is recomputed from `verifier` with this challenge's ``method`` (never another)
    /// and compared byte for byte without an early exit, so the time taken does not reveal how
    /// much of a guess was right.
    ///
    /// - Parameters:
    ///   - verifier: The verifier the token request presented.
    ///   - backend: The backend whose SHA-256 recomputes an `S256` challenge.
    /// - Throws: ``PKCEError/verifierMismatch`` when the verifier does not match.
    public func verify(_ verifier: CodeVerifier, using backend: some PKCEBackend) throws(PKCEError) {
        var expected = value
        let matches = expected.withUTF8 { expected in
            switch method {
            case .s256:
                return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Self.s256Length) { computed in
                    Self.encodeS256(of: verifier, using: backend, into: computed)
                    return constantTimeEquals(UnsafeRawBufferPointer(computed), UnsafeRawBufferPointer(expected))
                }
            case .plain:
                var presented = verifier.value
                return presented.withUTF8 {
                    constantTimeEquals(UnsafeRawBufferPointer($0), UnsafeRawBufferPointer(expected))
                }
            }
        }
        guard matches else { throw .verifierMismatch }
    }

    /// The token endpoint's whole PKCE decision, from what was stored and what was presented.
    ///
    /// | stored challenge | presented verifier | result |
    /// |---|---|---|
    /// | yes | matching | ``PKCEVerification/verified`` |
    /// | yes | not matching | throws ``PKCEError/verifierMismatch`` |
    /// | yes | malformed | throws the validation error |
    /// | yes | none | throws ``PKCEError/missingVerifier`` (RFC 7636 §4.6) |
    /// | none | any | throws ``PKCEError/unexpectedVerifier`` (RFC 9700 §4.8.2) |
    /// | none | none | ``PKCEVerification/notUsed`` |
    ///
    /// - Parameters:
    ///   - presentedVerifier: The token request's `code_verifier`, if it had one.
    ///   - storedChallenge: The challenge stored with the authorization code, if there was one.
    ///   - backend: The backend whose SHA-256 recomputes an `S256` challenge.
    /// - Returns: Whether PKCE was used and passed.
    /// - Throws: ``PKCEError`` as the table says.
    public static func verify(
        presented presentedVerifier: String?,
        against storedChallenge: CodeChallenge?,
        using backend: some PKCEBackend
    ) throws(PKCEError) -> PKCEVerification {
        switch (storedChallenge, presentedVerifier) {
        case (nil, nil):
            return .notUsed
        case (nil, .some):
            throw .unexpectedVerifier
        case (.some, nil):
            throw .missingVerifier
        case (.some(let challenge), .some(let presented)):
            try challenge.verify(CodeVerifier(validating: presented), using: backend)
            return .verified
        }
    }
}
