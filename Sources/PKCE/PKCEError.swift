/// Everything that can go wrong with PKCE: malformed input, a failed source of randomness, or a
/// verification that does not pass.
///
/// Each case carries what a caller needs to say precisely what was wrong: the actual length, the
/// offending character and where it was, or the code the operating system or crypto library gave.
public enum PKCEError: Error, Hashable, Sendable {
    /// The PKCE parameter a validation error refers to, by its name in RFC 7636.
    public enum Parameter: String, Hashable, Sendable {
        /// The `code_verifier` of RFC 7636 §4.1.
        case codeVerifier = "code_verifier"
        /// The `code_challenge` of RFC 7636 §4.2.
        case codeChallenge = "code_challenge"
    }

    /// The parameter has `length` characters, outside the range its method allows.
    ///
    /// `length` counts UTF-8 bytes, which are the characters when they are ASCII, as those of every
    /// valid parameter are: validation reads no more than one byte past the longest length
    /// allowed, so a longer parameter's characters beyond that are not examined.
    ///
    /// A `code_verifier` and a `plain` challenge have 43…128 characters (RFC 7636 §4.1); an `S256`
    /// challenge has exactly 43 (RFC 7636 §4.2). ``CodeVerifier/generate(length:using:)`` reports a
    /// requested length outside 43…128 this way too.
    case invalidLength(Parameter, length: Int)

    /// The parameter holds `character`, which its alphabet does not allow, at `position` (counted in
    /// Unicode scalars from 0).
    ///
    /// A `code_verifier` uses the unreserved characters `A–Z a–z 0–9 - . _ ~` (RFC 7636 §4.1); an
    /// `S256` challenge uses the base64url alphabet without padding (RFC 7636 §4.2, RFC 4648 §5), and
    /// its last character must be one that a 32-byte digest can end in.
    case invalidCharacter(Parameter, character: Unicode.Scalar, position: Int)

    /// The source of randomness failed, so no secret was produced.
    ///
    /// - `source`: the function that failed, such as `getentropy` or `RAND_bytes`.
    /// - `code`: what it reported: an `errno` value, or OpenSSL's `ERR_get_error()`; 0 when a
    ///   backend's `fillRandom` reported success but left every byte zero.
    case randomFailure(source: String, code: Int)

    /// A backend's crypto library could not be set up (`sodium_init` or `EVP_MD_fetch` failed).
    case backendUnavailable(backend: String, reason: String)

    /// The presented verifier does not match the stored challenge (RFC 7636 §4.6).
    case verifierMismatch

    /// A challenge was stored with the authorization code, but the token request presented no
    /// verifier (RFC 7636 §4.6).
    case missingVerifier

    /// The token request presented a verifier, but no challenge was stored with the authorization
    /// code: a PKCE downgrade attempt (RFC 9700 §4.8.2).
    case unexpectedVerifier

    /// The server's ``PKCEPolicy`` requires PKCE, and the authorization request carried no
    /// `code_challenge` (or the code being redeemed was issued without one).
    case missingChallenge

    /// The authorization request carried a `code_challenge` but no `code_challenge_method`, and the
    /// server's ``PKCEPolicy`` does not say which method that means (RFC 7636 §4.3 says `plain`).
    case missingChallengeMethod

    /// The `code_challenge_method` is not one the server's ``PKCEPolicy`` accepts: `plain` without
    /// ``PKCEPolicy/allowsPlain``, or a name this library does not know. The name is as the
    /// request spelled it, cut to 33 characters (one past ``echoedMethodLimit``).
    case challengeMethodNotAllowed(String)
}

/// The OAuth endpoint a server answers at (RFC 6749 §3): the codes and words of an error depend on it.
public enum OAuthEndpoint: Sendable, Hashable {
    /// The authorization endpoint, which reads `code_challenge` and `code_challenge_method`
    /// (RFC 7636 §4.3) and answers errors in the redirect (RFC 6749 §4.1.2.1).
    case authorization
    /// The token endpoint, which reads `code_verifier` and checks it against what was stored with
    /// the code (RFC 7636 §4.5, §4.6) and answers errors in its response (RFC 6749 §5.2).
    case token
}

extension PKCEError {
    /// The OAuth `error` code at `endpoint`, or `nil` where RFC 6749 has none to give.
    ///
    /// | error | at the authorization endpoint (§4.1.2.1) | at the token endpoint (§5.2) |
    /// |---|---|---|
    /// | ``missingChallenge``, ``missingChallengeMethod``, ``challengeMethodNotAllowed(_:)``, a malformed `code_challenge` | `invalid_request` (RFC 7636 §4.4.1) | `invalid_grant`: the code was issued without what this server's ``PKCEPolicy`` asks of it now |
    /// | ``missingVerifier``, a malformed `code_verifier` | `invalid_request` | `invalid_request`: a missing or malformed parameter |
    /// | ``verifierMismatch``, ``unexpectedVerifier`` | `invalid_request` | `invalid_grant` (RFC 7636 §4.6; RFC 9700 §4.8.2) |
    /// | ``randomFailure(source:code:)``, ``backendUnavailable(backend:reason:)`` | `server_error` | `nil`: §5.2 has no code for the server's own failure; answer HTTP 500 |
    ///
    /// A verifier error cannot happen at the authorization endpoint, and a challenge error at the
    /// token endpoint only with a code stored before the policy changed; each has the code its
    /// endpoint's rules give. ``oauthErrorCode`` is this at the authorization endpoint for the
    /// challenge's errors and at the token endpoint for the verifier's, and `server_error` for the
    /// server's: the mapping of the library's first release, kept as it was.
    ///
    /// - Parameter endpoint: Where the server answers.
    public func oauthErrorCode(at endpoint: OAuthEndpoint) -> String? {
        switch (self, endpoint) {
        case (.randomFailure, .token), (.backendUnavailable, .token):
            nil
        case (.randomFailure, .authorization), (.backendUnavailable, .authorization):
            "server_error"
        case (.missingChallenge, .token), (.missingChallengeMethod, .token), (.challengeMethodNotAllowed, .token),
            (.invalidLength(.codeChallenge, _), .token), (.invalidCharacter(.codeChallenge, _, _), .token),
            (.verifierMismatch, .token), (.unexpectedVerifier, .token):
            "invalid_grant"
        default:
            "invalid_request"
        }
    }

    /// The `error_description` at `endpoint`: ``description``, but for the errors that
    /// ``description`` words for the authorization request, ``missingChallenge``,
    /// ``missingChallengeMethod``, ``challengeMethodNotAllowed(_:)`` and a malformed
    /// `code_challenge`, which at the token endpoint say what is wrong with the code.
    ///
    /// - Parameter endpoint: Where the server answers.
    public func description(at endpoint: OAuthEndpoint) -> String {
        switch (self, endpoint) {
        case (.missingChallenge, .token):
            "the authorization code was issued without a code_challenge, and this server requires PKCE"
        case (.missingChallengeMethod, .token), (.challengeMethodNotAllowed, .token):
            "the authorization code was issued with a code_challenge_method this server does not accept"
        case (.invalidLength(.codeChallenge, _), .token), (.invalidCharacter(.codeChallenge, _, _), .token):
            "the authorization code was issued with a malformed code_challenge"
        default:
            description
        }
    }

    /// The OAuth `error` code a server answers with (RFC 6749 §4.1.2.1 and §5.2), whichever the
    /// endpoint; ``oauthErrorCode(at:)`` gives the exact one for each.
    ///
    /// | error | code | where |
    /// |---|---|---|
    /// | ``missingChallenge``, ``missingChallengeMethod``, ``challengeMethodNotAllowed(_:)``, a malformed `code_challenge` | `invalid_request` | authorization endpoint (RFC 7636 §4.4.1) |
    /// | ``missingVerifier``, a malformed `code_verifier` | `invalid_request` | token endpoint (RFC 6749 §5.2: a missing or malformed parameter) |
    /// | ``verifierMismatch``, ``unexpectedVerifier`` | `invalid_grant` | token endpoint (RFC 7636 §4.6; RFC 9700 §4.8.2: the code does not fit the request) |
    /// | ``randomFailure(source:code:)``, ``backendUnavailable(backend:reason:)`` | `server_error` | either: the server failed, not the client |
    ///
    /// Send it with ``description`` as the `error_description`, never ``logDescription``.
    /// At the token endpoint, ``oauthErrorCode(at:)`` and ``description(at:)`` answer an error of
    /// the stored challenge with `invalid_grant`, and a failure of the server with no OAuth code.
    public var oauthErrorCode: String {
        switch self {
        case .invalidLength, .invalidCharacter, .missingVerifier, .missingChallenge, .missingChallengeMethod,
            .challengeMethodNotAllowed:
            "invalid_request"
        case .verifierMismatch, .unexpectedVerifier:
            "invalid_grant"
        case .randomFailure, .backendUnavailable:
            "server_error"
        }
    }

    /// The most characters of a `code_challenge_method` that ``challengeMethodNotAllowed(_:)`` keeps
    /// and that ``description`` may echo.
    public static let echoedMethodLimit = 32

    /// `name`, cut to one character past ``echoedMethodLimit``: enough for ``description`` to tell
    /// an over-long name, and a bound on what an error holds of an attacker's input.
    static func boundedMethodName(_ name: String) -> String {
        String(String.UnicodeScalarView(name.unicodeScalars.prefix(echoedMethodLimit + 1)))
    }

    /// Whether ``description`` echoes a rejected `code_challenge_method`: 1 to 32 characters of
    /// `A–Z a–z 0–9 - . _ ~`, which need no encoding in a redirect's query or fragment.
    private static func isEchoable(_ method: String) -> Bool {
        let scalars = method.unicodeScalars
        return !scalars.isEmpty && scalars.count <= echoedMethodLimit
            && scalars.allSatisfy { $0.isASCII && Unreserved.contains(UInt8($0.value)) }
    }
}

extension PKCEError: CustomStringConvertible {
    /// A one-line explanation for the client, fit for an OAuth `error_description`.
    ///
    /// It holds only the characters RFC 6749 §5.2 allows there (printable ASCII except `"` and
    /// `\`); any other character, such as one from a rejected parameter, is written as its code
    /// point: `U+0022` for `"`, `U+005C` for `\`, `U+000A` for a line feed. A forbidden character
    /// of a parameter is quoted only when it is unreserved (`A–Z a–z 0–9 - . _ ~`, as a `.` in an
    /// `S256` challenge is), else written as its code point (`U+0026` for `&`); a rejected
    /// `code_challenge_method` is quoted only when it is 1 to 32 unreserved characters.
    ///
    /// A `server_error` (``oauthErrorCode``) says only that the server failed: nothing of the
    /// backend, its library, FIPS mode or an `errno` (CWE-209). ``logDescription`` has those.
    public var description: String {
        switch self {
        case .randomFailure, .backendUnavailable:
            "the server could not complete the request"
        case .challengeMethodNotAllowed(let method) where !Self.isEchoable(method):
            "the code_challenge_method is not a supported transform; use S256"
        default:
            logDescription
        }
    }

    /// A one-line explanation for the server's own logs: ``description``, except that a server
    /// error names its source and code (the failing function and its `errno`, or the backend and
    /// why it could not be set up), and a rejected method is quoted up to its 32nd character,
    /// with `...` when it was longer.
    ///
    /// Not for clients: it can describe the server's libraries and configuration. It holds only
    /// the characters RFC 6749 §5.2 allows, as ``description`` does.
    public var logDescription: String {
        switch self {
        case .invalidLength(let parameter, let length):
            let allowed = parameter == .codeVerifier ? "43 to 128" : "the length its method requires"
            return "\(parameter.rawValue) has \(length) characters; it must have \(allowed)"
        case .invalidCharacter(let parameter, let character, let position):
            // Quoted only when it is harmless wherever the description lands: in a redirect's query
            // or fragment, `&` or `#` would end it, and in a page `<` would open a tag.
            let shown =
                character.isASCII && Unreserved.contains(UInt8(character.value))
                ? "'\(character)'" : Self.codePoint(character)
            return "\(parameter.rawValue) has the forbidden character \(shown) at position \(position)"
        case .randomFailure(let source, let code):
            return Self.escaped("the random number generator failed: \(source) returned code \(code)")
        case .backendUnavailable(let backend, let reason):
            return Self.escaped("the \(backend) backend is unavailable: \(reason)")
        case .verifierMismatch:
            return "code_verifier does not match the stored code_challenge"
        case .missingVerifier:
            return "a code_challenge was stored but no code_verifier was presented"
        case .unexpectedVerifier:
            return "a code_verifier was presented but no code_challenge was stored"
        case .missingChallenge:
            return "code_challenge required: this server requires PKCE"
        case .missingChallengeMethod:
            return "code_challenge_method required: this server does not read a missing method as plain"
        case .challengeMethodNotAllowed(let method):
            let limit = Self.echoedMethodLimit
            let shown = Self.escaped(String(String.UnicodeScalarView(method.unicodeScalars.prefix(limit))))
            let cut = method.unicodeScalars.count > limit ? "..." : ""
            return "code_challenge_method '\(shown)\(cut)' is not accepted; use S256"
        }
    }

    /// Whether RFC 6749 §5.2 allows `scalar` in an `error_description`: `%x20-21 / %x23-5B / %x5D-7E`.
    private static func isAllowedInDescription(_ scalar: Unicode.Scalar) -> Bool {
        (0x20...0x7E).contains(scalar.value) && scalar != "\"" && scalar != "\\"
    }

    /// `U+000A`, `U+0022`: how a character not allowed in an `error_description` is shown.
    private static func codePoint(_ scalar: Unicode.Scalar) -> String {
        let digits = String(scalar.value, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }

    /// `text` with every character an `error_description` does not allow written as ``codePoint(_:)``.
    private static func escaped(_ text: String) -> String {
        var result = ""
        for scalar in text.unicodeScalars {
            if isAllowedInDescription(scalar) {
                result.unicodeScalars.append(scalar)
            } else {
                result += codePoint(scalar)
            }
        }
        return result
    }
}
