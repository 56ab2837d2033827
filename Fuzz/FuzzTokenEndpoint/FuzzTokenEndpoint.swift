import PKCE

/// libFuzzer's entry point: the token endpoint's PKCE decision,
/// `CodeChallenge.verify(presented:against:using:policy:consumingCode:)`, on arbitrary inputs.
///
/// The first byte sets the policy (bit 0 `allowsPlain`, bit 1 `requiresPKCE`), whether a challenge
/// was stored (bit 2) and with which method (bit 3 `plain`), whether a verifier was presented
/// (bit 4), and whether the stored challenge is the presented verifier's own (bit 5, so that the
/// matching row is reached); the rest is the stored challenge, a zero byte, and the presented
/// verifier. The outcome is checked against the decision table, stated here again; the code is
/// consumed exactly once, before any hash; every error's OAuth code is the one its case maps to,
/// and its client and log descriptions hold only what RFC 6749 §5.2 allows.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTokenEndpoint(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let flags = data[0]
    let policy = PKCEPolicy(allowsPlain: flags & 1 != 0, requiresPKCE: flags & 2 != 0)
    let method: ChallengeMethod = flags & 8 != 0 ? .plain : .s256
    let rest = UnsafeBufferPointer(start: data + 1, count: size - 1)
    let parts = rest.split(separator: 0, maxSplits: 1, omittingEmptySubsequences: false)
    let storedText = parts.first.map { String(decoding: $0, as: UTF8.self) } ?? ""
    let presentedText = parts.count > 1 ? String(decoding: parts[1], as: UTF8.self) : ""
    let presented: String? = flags & 16 != 0 ? presentedText : nil

    let backend = SwiftBackend()
    let stored: CodeChallenge?
    if flags & 4 == 0 {
        stored = nil
    } else if flags & 32 != 0, let presented, let verifier = try? CodeVerifier(validating: presented) {
        stored = CodeChallenge(verifier: verifier, method: method, using: backend)
    } else if let challenge = try? CodeChallenge(
        validating: storedText, method: method, policy: PKCEPolicy(allowsPlain: true))
    {
        stored = challenge
    } else {
        return 0
    }

    // The decision table of `verify(presented:against:using:policy:)`, stated independently.
    let expected: Result<PKCEVerification, PKCEError>
    switch (stored, presented) {
    case (nil, nil):
        expected = policy.requiresPKCE ? .failure(.missingChallenge) : .success(.notUsed)
    case (nil, .some):
        expected = .failure(.unexpectedVerifier)
    case (.some, nil):
        expected = .failure(.missingVerifier)
    case (.some(let challenge), .some(let presented)):
        if challenge.method == .plain && !policy.allowsPlain {
            expected = .failure(.challengeMethodNotAllowed("plain"))
        } else if let error = verifierError(presented) {
            expected = .failure(error)
        } else {
            let verifier = try? CodeVerifier(validating: presented)
            let recomputed = verifier.map { CodeChallenge(verifier: $0, method: challenge.method, using: backend) }
            expected = recomputed?.value == challenge.value ? .success(.verified) : .failure(.verifierMismatch)
        }
    }

    var consumed = 0
    let outcome: Result<PKCEVerification, PKCEError>
    do {
        outcome = .success(
            try CodeChallenge.verify(presented: presented, against: stored, using: backend, policy: policy) {
                consumed += 1
            })
    } catch let error as PKCEError {
        outcome = .failure(error)
    } catch {
        preconditionFailure("an error that is not a PKCEError: \(error)")
    }
    precondition(consumed == 1, "the code was consumed \(consumed) times")
    precondition(outcome == expected, "got \(outcome), expected \(expected)")

    if case .failure(let error) = outcome {
        // The token endpoint's answer (RFC 6749 §5.2): a code that does not fit the request, or
        // whose stored challenge this policy no longer takes, is invalid_grant; a missing or
        // malformed parameter invalid_request; the server's own failure has no code (HTTP 500).
        let code: String?
        switch error {
        case .verifierMismatch, .unexpectedVerifier, .missingChallenge, .missingChallengeMethod,
            .challengeMethodNotAllowed, .invalidLength(.codeChallenge, _), .invalidCharacter(.codeChallenge, _, _):
            code = "invalid_grant"
        case .randomFailure, .backendUnavailable: code = nil
        default: code = "invalid_request"
        }
        precondition(
            error.oauthErrorCode(at: .token) == code,
            "\(error.logDescription): \(error.oauthErrorCode(at: .token) ?? "no code")")
        for text in [error.description(at: .token), error.description, error.logDescription] {
            precondition(
                text.unicodeScalars.allSatisfy { (0x20...0x7E).contains($0.value) && $0 != "\"" && $0 != "\\" },
                "a character RFC 6749 §5.2 does not allow: \(text.unicodeScalars.map(\.value))")
        }
    }
    return 0
}

/// The error validating `value` as a `code_verifier` must give (RFC 7636 §4.1), or `nil` when it is
/// valid: the first forbidden character within the first 129 bytes, else a length outside 43…128.
private func verifierError(_ value: String) -> PKCEError? {
    let bytes = Array(value.utf8)
    let unreserved = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~".utf8)
    if let position = bytes.prefix(129).firstIndex(where: { !unreserved.contains($0) }) {
        let scalar = value.unicodeScalars[value.utf8.index(value.utf8.startIndex, offsetBy: position)]
        return .invalidCharacter(.codeVerifier, character: scalar, position: position)
    }
    return (43...128).contains(bytes.count) ? nil : .invalidLength(.codeVerifier, length: bytes.count)
}
