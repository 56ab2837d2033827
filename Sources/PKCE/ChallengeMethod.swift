/// How a `code_challenge` is derived from the verifier (RFC 7636 §4.2).
public enum ChallengeMethod: String, Hashable, Sendable, CaseIterable {
    /// `BASE64URL(SHA256(ASCII(code_verifier)))`: the method every client should use.
    case s256 = "S256"

    /// The challenge is the verifier itself. RFC 7636 §4.2 allows it only for clients that cannot
    /// compute SHA-256; this library uses it only when a caller names it, never as a fallback.
    case plain = "plain"
}
