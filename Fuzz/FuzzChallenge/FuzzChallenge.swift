import PKCE

/// libFuzzer's entry point: `CodeChallenge(validating:method:policy:)` on arbitrary bytes; the
/// first byte picks the method and whether the policy allows `plain`.
///
/// Beyond "does not crash", an `S256` challenge must be accepted exactly when it is 43 base64url
/// characters that a 32-byte digest can end in, and a `plain` one exactly when the policy allows
/// `plain` and it is a valid verifier; an accepted challenge must reject a verifier that does not
/// match it.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzChallenge(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let method: ChallengeMethod = data[0] & 1 == 0 ? .s256 : .plain
    let policy = PKCEPolicy(allowsPlain: data[0] & 2 != 0)
    let value = String(decoding: UnsafeBufferPointer(start: data + 1, count: size - 1), as: UTF8.self)
    let scalars = Array(value.unicodeScalars)
    let expectedValid: Bool
    switch method {
    case .s256:
        let alphabet = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".unicodeScalars)
        expectedValid =
            scalars.count == 43 && scalars.allSatisfy(alphabet.contains)
            && "AEIMQUYcgkosw048".unicodeScalars.contains(scalars[42])
    case .plain:
        let unreserved = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~".unicodeScalars)
        expectedValid =
            policy.allowsPlain && (43...128).contains(scalars.count) && scalars.allSatisfy(unreserved.contains)
    }
    do {
        let challenge = try CodeChallenge(validating: value, method: method, policy: policy)
        precondition(expectedValid, "accepted an invalid \(method.rawValue) challenge")
        let stranger = try CodeVerifier(validating: String(repeating: "~", count: 128))
        do {
            try challenge.verify(stranger, using: SwiftBackend(), policy: policy)
            precondition(method == .plain && value == stranger.value, "an unrelated verifier matched")
        } catch .verifierMismatch {}
    } catch .challengeMethodNotAllowed(let name) {
        precondition(method == .plain && !policy.allowsPlain && name == "plain", "refused an allowed method")
    } catch .invalidCharacter(.codeChallenge, let character, let position) {
        precondition(!expectedValid, "rejected a valid challenge")
        precondition(position < scalars.count && scalars[position] == character, "wrong character or position")
    } catch .invalidLength(.codeChallenge, let length) {
        precondition(!expectedValid && length == value.utf8.count, "wrong length reported")
    } catch {
        preconditionFailure("unexpected error \(error)")
    }
    return 0
}
