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
    /// - `source`: the function that failed, such as `getrandom` or `RAND_bytes`.
    /// - `code`: what it reported: an `errno` value, or OpenSSL's `ERR_get_error()`.
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
}

extension PKCEError: CustomStringConvertible {
    /// A one-line explanation, fit for a log line or an OAuth `error_description`.
    public var description: String {
        switch self {
        case .invalidLength(let parameter, let length):
            let allowed = parameter == .codeVerifier ? "43 to 128" : "the length its method requires"
            return "\(parameter.rawValue) has \(length) characters; it must have \(allowed)"
        case .invalidCharacter(let parameter, let character, let position):
            let shown =
                character.isASCII && character.value >= 0x20 && character.value < 0x7F
                ? "'\(character)'" : "U+\(String(character.value, radix: 16, uppercase: true))"
            return "\(parameter.rawValue) has the forbidden character \(shown) at position \(position)"
        case .randomFailure(let source, let code):
            return "the random number generator failed: \(source) returned code \(code)"
        case .backendUnavailable(let backend, let reason):
            return "the \(backend) backend is unavailable: \(reason)"
        case .verifierMismatch:
            return "code_verifier does not match the stored code_challenge"
        case .missingVerifier:
            return "a code_challenge was stored but no code_verifier was presented"
        case .unexpectedVerifier:
            return "a code_verifier was presented but no code_challenge was stored"
        }
    }
}
