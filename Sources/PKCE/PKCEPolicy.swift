/// What an authorization server accepts from clients, where RFC 7636 leaves the choice to it.
///
/// The default is the strict policy RFC 9700 §2.1.1 and OAuth 2.1 ask for: PKCE is required,
/// `S256` is the only method, and an authorization request with a `code_challenge` but no
/// `code_challenge_method` is rejected rather than read as `plain` (RFC 7636 §4.3's default,
/// which a server that writes `method ?? "plain"` turns into accepting `plain`). Each relaxation
/// is a property a server sets by name:
///
/// ```swift
/// var policy = PKCEPolicy()
/// policy.allowsPlain = true          // accept plain challenges (clients that cannot hash)
/// policy.methodWhenMissing = .s256   // read a missing method as S256 instead of rejecting it
/// policy.requiresPKCE = false        // let clients that do not use PKCE redeem their codes
/// ```
public struct PKCEPolicy: Hashable, Sendable {
    /// Whether `plain` challenges are accepted, when validated and when verified. `false` by default.
    public var allowsPlain: Bool

    /// The method an authorization request with no `code_challenge_method` is taken to use, or
    /// `nil` (the default) to reject such a request with ``PKCEError/missingChallengeMethod``.
    ///
    /// `.plain` is RFC 7636 §4.3's reading; it still needs ``allowsPlain``.
    public var methodWhenMissing: ChallengeMethod?

    /// Whether every authorization request must carry a `code_challenge`, and so every token request
    /// a `code_verifier`. `true` by default.
    public var requiresPKCE: Bool

    /// A policy; with no arguments, the strict default: `S256` only, the method required, PKCE
    /// required.
    ///
    /// - Parameters:
    ///   - allowsPlain: Whether `plain` challenges are accepted.
    ///   - methodWhenMissing: The method a request without `code_challenge_method` uses, or `nil`
    ///     to reject such a request.
    ///   - requiresPKCE: Whether every authorization code must be bound to a challenge.
    public init(allowsPlain: Bool = false, methodWhenMissing: ChallengeMethod? = nil, requiresPKCE: Bool = true) {
        self.allowsPlain = allowsPlain
        self.methodWhenMissing = methodWhenMissing
        self.requiresPKCE = requiresPKCE
    }

    /// The methods the policy accepts, `S256` first: the `code_challenge_methods_supported` array
    /// of the server's metadata (RFC 8414 §2), which RFC 9700 §2.1.1 recommends publishing.
    ///
    /// `[.s256]`, and `[.s256, .plain]` when ``allowsPlain`` is set; their `rawValue`s are the
    /// names to publish. Unlike `ChallengeMethod.allCases`, it never lists `plain` unasked.
    public var supportedMethods: [ChallengeMethod] {
        allowsPlain ? [.s256, .plain] : [.s256]
    }

    /// Throws unless the policy accepts `method`.
    func check(_ method: ChallengeMethod) throws(PKCEError) {
        if method == .plain && !allowsPlain {
            throw .challengeMethodNotAllowed(method.rawValue)
        }
    }
}

extension ChallengeMethod {
    /// Reads the `code_challenge_method` parameter of an authorization request (RFC 7636 §4.3)
    /// under a server's policy.
    ///
    /// Use this rather than `ChallengeMethod(rawValue: parameter ?? "plain")`, which accepts
    /// `plain` from any client that leaves the parameter out.
    ///
    /// - Parameters:
    ///   - parameter: The parameter's value as the request carried it, or `nil` when it had none.
    ///   - policy: What the server accepts; ``PKCEPolicy/init(allowsPlain:methodWhenMissing:requiresPKCE:)``
    ///     by default: `S256` only, and the parameter required.
    /// - Throws: ``PKCEError/missingChallengeMethod`` when the parameter is missing and the policy
    ///   names no method for that case; ``PKCEError/challengeMethodNotAllowed(_:)`` for a method
    ///   this library does not know (names are case-sensitive: `s256` is not `S256`; the error
    ///   keeps at most 33 of its characters) or one the policy does not accept.
    public init(requestParameter parameter: String?, policy: PKCEPolicy = PKCEPolicy()) throws(PKCEError) {
        guard let parameter else {
            guard let method = policy.methodWhenMissing else { throw .missingChallengeMethod }
            try policy.check(method)
            self = method
            return
        }
        guard let method = ChallengeMethod(rawValue: parameter) else {
            throw .challengeMethodNotAllowed(PKCEError.boundedMethodName(parameter))
        }
        try policy.check(method)
        self = method
    }
}

extension CodeChallenge {
    /// Reads the PKCE parameters of an authorization request (RFC 7636 §4.3) under a server's
    /// policy: the challenge to store with the authorization code, or `nil` when the request used
    /// no PKCE and the policy allows that.
    ///
    /// - Parameters:
    ///   - challenge: The request's `code_challenge`, or `nil` when it had none.
    ///   - method: The request's `code_challenge_method`, or `nil` when it had none.
    ///   - policy: What the server accepts; strict by default.
    /// - Returns: The validated challenge, or `nil` when neither parameter was sent and the policy
    ///   does not require PKCE.
    /// - Throws: ``PKCEError/missingChallenge`` when PKCE is required and no challenge was sent, or
    ///   when a method came without a challenge; the errors of
    ///   ``ChallengeMethod/init(requestParameter:policy:)`` and ``init(validating:method:policy:)``.
    public static func fromAuthorizationRequest(
        challenge: String?, method: String?, policy: PKCEPolicy = PKCEPolicy()
    ) throws(PKCEError) -> CodeChallenge? {
        guard let challenge else {
            // A method alone is a malformed request, not a request without PKCE.
            guard method == nil && !policy.requiresPKCE else { throw .missingChallenge }
            return nil
        }
        let method = try ChallengeMethod(requestParameter: method, policy: policy)
        return try CodeChallenge(validating: challenge, method: method, policy: policy)
    }
}
