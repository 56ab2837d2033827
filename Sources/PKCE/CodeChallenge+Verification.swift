/// What the token endpoint learned from its PKCE check, when the check did not fail.
public enum PKCEVerification: Hashable, Sendable {
    /// A challenge was stored with the authorization code, and the presented verifier matches it.
    case verified

    /// Neither a challenge was stored nor a verifier presented: the client did not use PKCE, and
    /// the server's ``PKCEPolicy`` allows that (``PKCEPolicy/requiresPKCE`` is `false`).
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
    ///   - policy: What the server accepts; `S256` only by default.
    /// - Throws: ``PKCEError/verifierMismatch`` when the verifier does not match;
    ///   ``PKCEError/challengeMethodNotAllowed(_:)`` for a `plain` challenge `policy` does not allow.
    public func verify(
        _ verifier: CodeVerifier, using backend: some PKCEBackend, policy: PKCEPolicy = PKCEPolicy()
    ) throws(PKCEError) {
        try policy.check(method)
        guard verifier.withUTF8({ matches($0, using: backend) }) else { throw .verifierMismatch }
    }

    /// Whether the verifier whose characters are `presented` matches this challenge: the
    /// challenge recomputed with this challenge's ``method`` and compared in constant time.
    private func matches(_ presented: UnsafeBufferPointer<UInt8>, using backend: some PKCEBackend) -> Bool {
        withUTF8 { expected in
            switch storage {
            case .s256:
                // The recomputed challenge, inline as a derived one is: no String, no allocation.
                Self.s256Characters(of: presented, using: backend).withUTF8 {
                    constantTimeEquals(UnsafeRawBufferPointer($0), UnsafeRawBufferPointer(expected))
                }
            case .plain:
                constantTimeEquals(UnsafeRawBufferPointer(presented), UnsafeRawBufferPointer(expected))
            }
        }
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
    /// | none | none | throws ``PKCEError/missingChallenge``; ``PKCEVerification/notUsed`` only when `policy` does not require PKCE |
    ///
    /// A stored `plain` challenge throws ``PKCEError/challengeMethodNotAllowed(_:)`` unless `policy`
    /// allows `plain`.
    ///
    /// This form leaves the authorization code to the caller, who must treat it as used on any
    /// error (RFC 6749 §10.5), so that one code cannot be tried against many guessed verifiers.
    /// The forms that take `consumingCode:` do that first, whatever the outcome.
    ///
    /// - Parameters:
    ///   - presentedVerifier: The token request's `code_verifier`, if it had one.
    ///   - storedChallenge: The challenge stored with the authorization code, if there was one.
    ///   - backend: The backend whose SHA-256 recomputes an `S256` challenge.
    ///   - policy: What the server accepts; by default PKCE is required, with `S256` only.
    /// - Returns: ``PKCEVerification/verified``, or ``PKCEVerification/notUsed`` where `policy`
    ///   lets a client go without PKCE and this one did.
    /// - Throws: ``PKCEError`` as the table says.
    public static func verify(
        presented presentedVerifier: String?,
        against storedChallenge: CodeChallenge?,
        using backend: some PKCEBackend,
        policy: PKCEPolicy = PKCEPolicy()
    ) throws(PKCEError) -> PKCEVerification {
        switch (storedChallenge, presentedVerifier) {
        case (nil, nil):
            guard !policy.requiresPKCE else { throw .missingChallenge }
            return .notUsed
        case (nil, .some):
            throw .unexpectedVerifier
        case (.some, nil):
            throw .missingVerifier
        case (.some(let challenge), .some(let presented)):
            try policy.check(challenge.method)
            // Validated as CodeVerifier(validating:) validates, then hashed where it lies: a
            // CodeVerifier would copy the characters first. A String whose UTF-8 is not contiguous
            // takes that copy.
            try validate(
                presented, as: .codeVerifier, lengths: CodeVerifier.allowedLengths, isAllowed: Unreserved.contains)
            let matches: Bool
            if let inPlace = presented.utf8.withContiguousStorageIfAvailable({ challenge.matches($0, using: backend) })
            {
                matches = inPlace
            } else {
                let verifier = try CodeVerifier(validating: presented)
                matches = verifier.withUTF8 { challenge.matches($0, using: backend) }
            }
            guard matches else { throw .verifierMismatch }
            return .verified
        }
    }

    /// The token endpoint's whole PKCE decision, after spending the authorization code.
    ///
    /// `consumeCode` runs first, before anything is checked, so that a code is spent by a failed
    /// attempt as by a successful one, as node-oauth2-server revokes a code before it checks
    /// PKCE: one code cannot be tried against guess after guess (RFC 6749 §10.5). Then the decision
    /// is that of ``verify(presented:against:using:policy:)``.
    ///
    /// - Parameters:
    ///   - presentedVerifier: The token request's `code_verifier`, if it had one.
    ///   - storedChallenge: The challenge stored with the authorization code, if there was one.
    ///   - backend: The backend whose SHA-256 recomputes an `S256` challenge.
    ///   - policy: What the server accepts; by default PKCE is required, with `S256` only.
    ///   - consumeCode: Marks the authorization code as used in the server's storage, atomically
    ///     (of two requests with one code, one gets past it), and throws when it was used already;
    ///     the server then revokes the tokens issued with that code (RFC 6749 §4.1.2). Checking that
    ///     the code belongs to the client, the redirect URI and expiry is the server's too.
    /// - Returns: As ``verify(presented:against:using:policy:)`` returns.
    /// - Throws: What `consumeCode` throws, and then nothing is checked (a code that could not be
    ///   spent must not be redeemed); otherwise a ``PKCEError`` as
    ///   ``verify(presented:against:using:policy:)`` throws.
    public static func verify(
        presented presentedVerifier: String?,
        against storedChallenge: CodeChallenge?,
        using backend: some PKCEBackend,
        policy: PKCEPolicy = PKCEPolicy(),
        consumingCode consumeCode: () throws -> Void
    ) throws -> PKCEVerification {
        try consumeCode()
        return try verify(presented: presentedVerifier, against: storedChallenge, using: backend, policy: policy)
    }

    /// The token endpoint's whole PKCE decision, after spending the authorization code with an
    /// asynchronous action, such as a database update.
    ///
    /// The same as the synchronous form, with `consumeCode` awaited before anything is checked.
    ///
    /// - Parameters:
    ///   - presentedVerifier: The token request's `code_verifier`, if it had one.
    ///   - storedChallenge: The challenge stored with the authorization code, if there was one.
    ///   - backend: The backend whose SHA-256 recomputes an `S256` challenge.
    ///   - policy: What the server accepts; by default PKCE is required, with `S256` only.
    ///   - consumeCode: Marks the authorization code as used, as the synchronous form's does:
    ///     atomically, throwing when it was used already.
    /// - Returns: As ``verify(presented:against:using:policy:)`` returns.
    /// - Throws: What `consumeCode` throws, and then nothing is checked; otherwise a ``PKCEError``.
    public static func verify(
        presented presentedVerifier: String?,
        against storedChallenge: CodeChallenge?,
        using backend: some PKCEBackend,
        policy: PKCEPolicy = PKCEPolicy(),
        consumingCode consumeCode: () async throws -> Void
    ) async throws -> PKCEVerification {
        try await consumeCode()
        return try verify(presented: presentedVerifier, against: storedChallenge, using: backend, policy: policy)
    }
}
