import PKCE
import Testing

@Suite("Code challenges (RFC 7636 §4.2) and server-side verification (§4.6)")
struct CodeChallengeTests {
    let backend = SwiftBackend()
    let allowingPlain = PKCEPolicy(allowsPlain: true)

    @Test("S256 is the default method and plain is used only when named")
    func methods() throws {
        let verifier = try CodeVerifier(validating: AppendixB.verifier)
        let s256 = CodeChallenge(verifier: verifier, using: backend)
        #expect(s256.method == .s256)
        #expect(s256.value == AppendixB.challenge)

        let plain = CodeChallenge(verifier: verifier, method: .plain, using: backend)
        #expect(plain.method == .plain)
        #expect(plain.value == AppendixB.verifier)
        #expect(ChallengeMethod.s256.rawValue == "S256")
        #expect(ChallengeMethod.plain.rawValue == "plain")
    }

    @Test("An S256 challenge lends the characters its value has, derived or validated, and they compare and hash alike")
    func inlineCharacters() throws {
        let derived = CodeChallenge(verifier: try CodeVerifier(validating: AppendixB.verifier), using: backend)
        let validated = try CodeChallenge(validating: AppendixB.challenge, method: .s256)
        for challenge in [derived, validated] {
            #expect(challenge.value == AppendixB.challenge)
            #expect(challenge.withUTF8 { Array($0) } == Array(AppendixB.challenge.utf8))
        }
        #expect(derived == validated)
        #expect(derived.hashValue == validated.hashValue)
        #expect(Set([derived, validated]).count == 1)

        // Another challenge differs, and a plain challenge is never equal to an S256 one.
        let other = CodeChallenge(verifier: try CodeVerifier.generate(using: backend), using: backend)
        #expect(other != derived)
        let plain = try CodeChallenge(
            validating: AppendixB.challenge, method: .plain, policy: PKCEPolicy(allowsPlain: true))
        #expect(plain.withUTF8 { Array($0) } == Array(AppendixB.challenge.utf8))
        #expect(plain != validated)
        #expect(plain.method == .plain && validated.method == .s256)
    }

    @Test("A valid S256 challenge is accepted")
    func s256Accepted() throws {
        let challenge = try CodeChallenge(validating: AppendixB.challenge, method: .s256)
        #expect(challenge.value == AppendixB.challenge)
        #expect(challenge.method == .s256)
    }

    @Test("S256 challenges of the wrong length are rejected", arguments: [0, 42, 44, 64, 128])
    func s256BadLength(length: Int) {
        #expect(throws: PKCEError.invalidLength(.codeChallenge, length: length)) {
            try CodeChallenge(validating: String(repeating: "A", count: length), method: .s256)
        }
    }

    @Test("A padded S256 challenge is rejected at the padding")
    func s256PaddingRejected() {
        #expect(throws: PKCEError.invalidCharacter(.codeChallenge, character: "=", position: 43)) {
            try CodeChallenge(validating: AppendixB.challenge + "=", method: .s256)
        }
    }

    @Test(
        "Standard base64 and unreserved-but-not-base64url characters are rejected",
        arguments: ["+", "/", ".", "~", " ", "\n", "é"])
    func s256ForeignCharacters(character: String) throws {
        var scalars = Array(AppendixB.challenge.unicodeScalars)
        scalars[10] = try #require(character.unicodeScalars.first)
        #expect(throws: PKCEError.invalidCharacter(.codeChallenge, character: scalars[10], position: 10)) {
            try CodeChallenge(validating: String(String.UnicodeScalarView(scalars)), method: .s256)
        }
    }

    @Test("An S256 challenge ending in a character no 32-byte digest ends in is rejected")
    func s256NonCanonicalEnding() {
        // 'M' (index 12) can end a digest's encoding; 'N' (index 13) cannot.
        let valid = String(AppendixB.challenge.dropLast()) + "M"
        let invalid = String(AppendixB.challenge.dropLast()) + "N"
        #expect(throws: Never.self) { try CodeChallenge(validating: valid, method: .s256) }
        #expect(throws: PKCEError.invalidCharacter(.codeChallenge, character: "N", position: 42)) {
            try CodeChallenge(validating: invalid, method: .s256)
        }
    }

    @Test("A plain challenge, where the policy allows it, follows the verifier's rules")
    func plainValidation() {
        #expect(throws: Never.self) {
            try CodeChallenge(validating: AppendixB.verifier, method: .plain, policy: allowingPlain)
        }
        #expect(throws: PKCEError.invalidLength(.codeChallenge, length: 42)) {
            try CodeChallenge(validating: String(repeating: "a", count: 42), method: .plain, policy: allowingPlain)
        }
        #expect(throws: PKCEError.invalidCharacter(.codeChallenge, character: "\n", position: 43)) {
            try CodeChallenge(validating: AppendixB.verifier + "\n", method: .plain, policy: allowingPlain)
        }
    }

    @Test("The right verifier passes and a wrong one fails, for both methods", arguments: ChallengeMethod.allCases)
    func verification(method: ChallengeMethod) throws {
        let verifier = try CodeVerifier.generate(using: backend)
        let other = try CodeVerifier.generate(using: backend)
        let challenge = CodeChallenge(verifier: verifier, method: method, using: backend)
        #expect(throws: Never.self) { try challenge.verify(verifier, using: backend, policy: allowingPlain) }
        #expect(throws: PKCEError.verifierMismatch) {
            try challenge.verify(other, using: backend, policy: allowingPlain)
        }

        // One character off at either end, and a verifier of another length.
        for tampered in [flipFirst(verifier.value), flipLast(verifier.value), verifier.value + "a"] {
            #expect(throws: PKCEError.verifierMismatch) {
                try challenge.verify(CodeVerifier(validating: tampered), using: backend, policy: allowingPlain)
            }
        }
    }

    @Test("A plain challenge is never checked as S256, nor the other way round")
    func noMethodConfusion() throws {
        let verifier = try CodeVerifier(validating: AppendixB.verifier)
        // A plain challenge holding the S256 value, and an S256 challenge checked against a verifier
        // equal to it, must both fail.
        let plainHoldingS256 = try CodeChallenge(
            validating: String(repeating: "a", count: 43), method: .plain, policy: allowingPlain)
        #expect(throws: PKCEError.verifierMismatch) {
            try plainHoldingS256.verify(verifier, using: backend, policy: allowingPlain)
        }
        let s256 = try CodeChallenge(validating: AppendixB.challenge, method: .s256)
        let verifierEqualToChallenge = try CodeVerifier(validating: AppendixB.challenge)
        #expect(throws: PKCEError.verifierMismatch) { try s256.verify(verifierEqualToChallenge, using: backend) }
    }

    @Test("The token endpoint's decision covers every combination of stored and presented")
    func tokenEndpointDecision() throws {
        let challenge = try CodeChallenge(validating: AppendixB.challenge, method: .s256)
        let verify = { (presented: String?, stored: CodeChallenge?) throws(PKCEError) in
            try CodeChallenge.verify(presented: presented, against: stored, using: backend)
        }
        #expect(try verify(AppendixB.verifier, challenge) == .verified)
        #expect(throws: PKCEError.missingChallenge) { try verify(nil, nil) }
        #expect(throws: PKCEError.verifierMismatch) { try verify(flipLast(AppendixB.verifier), challenge) }
        #expect(throws: PKCEError.missingVerifier) { try verify(nil, challenge) }
        #expect(throws: PKCEError.unexpectedVerifier) { try verify(AppendixB.verifier, nil) }
        #expect(throws: PKCEError.invalidCharacter(.codeVerifier, character: "\n", position: 43)) {
            try verify(AppendixB.verifier + "\n", challenge)
        }
        #expect(throws: PKCEError.invalidLength(.codeVerifier, length: 3)) { try verify("abc", challenge) }
    }

    // MARK: - The server's policy

    @Test("Without an opt-in, plain is refused wherever a server meets it, before anything else is checked")
    func plainNeedsOptIn() throws {
        let verifier = try CodeVerifier(validating: AppendixB.verifier)
        let plain = CodeChallenge(verifier: verifier, method: .plain, using: backend)
        let refused = PKCEError.challengeMethodNotAllowed("plain")
        #expect(throws: refused) { try CodeChallenge(validating: AppendixB.verifier, method: .plain) }
        #expect(throws: refused) { try CodeChallenge(validating: "bad", method: .plain) }
        #expect(throws: refused) { try plain.verify(verifier, using: backend) }
        #expect(throws: refused) { try CodeChallenge.verify(presented: verifier.value, against: plain, using: backend) }
        #expect(throws: refused) { try CodeChallenge.verify(presented: "bad", against: plain, using: backend) }
        #expect(throws: refused) { try ChallengeMethod(requestParameter: "plain") }

        #expect(try plain.verify(verifier, using: backend, policy: allowingPlain) == ())
        #expect(
            try CodeChallenge.verify(presented: verifier.value, against: plain, using: backend, policy: allowingPlain)
                == .verified)
        #expect(try ChallengeMethod(requestParameter: "plain", policy: allowingPlain) == .plain)
    }

    @Test("A missing code_challenge_method is rejected, or read as the policy says; never silently as plain")
    func missingMethod() throws {
        #expect(throws: PKCEError.missingChallengeMethod) { try ChallengeMethod(requestParameter: nil) }
        #expect(throws: PKCEError.missingChallengeMethod) {
            try ChallengeMethod(requestParameter: nil, policy: allowingPlain)
        }
        #expect(try ChallengeMethod(requestParameter: nil, policy: PKCEPolicy(methodWhenMissing: .s256)) == .s256)
        // RFC 7636 §4.3's own reading still needs plain allowed.
        #expect(throws: PKCEError.challengeMethodNotAllowed("plain")) {
            try ChallengeMethod(requestParameter: nil, policy: PKCEPolicy(methodWhenMissing: .plain))
        }
        #expect(
            try ChallengeMethod(requestParameter: nil, policy: PKCEPolicy(allowsPlain: true, methodWhenMissing: .plain))
                == .plain)
        #expect(try ChallengeMethod(requestParameter: "S256") == .s256)
        for unknown in ["s256", "SHA256", "", "S256 "] {
            #expect(throws: PKCEError.challengeMethodNotAllowed(unknown)) {
                try ChallengeMethod(requestParameter: unknown)
            }
        }
    }

    @Test("An authorization request's PKCE parameters, read under the policy")
    func authorizationRequest() throws {
        let read = { (challenge: String?, method: String?, policy: PKCEPolicy) throws(PKCEError) in
            try CodeChallenge.fromAuthorizationRequest(challenge: challenge, method: method, policy: policy)
        }
        let strict = PKCEPolicy()
        let optional = PKCEPolicy(requiresPKCE: false)
        #expect(
            try read(AppendixB.challenge, "S256", strict)
                == CodeChallenge(validating: AppendixB.challenge, method: .s256))
        #expect(throws: PKCEError.missingChallenge) { try read(nil, nil, strict) }
        #expect(try read(nil, nil, optional) == nil)
        #expect(throws: PKCEError.missingChallenge) { try read(nil, "S256", optional) }
        #expect(throws: PKCEError.missingChallengeMethod) { try read(AppendixB.challenge, nil, strict) }
        #expect(throws: PKCEError.challengeMethodNotAllowed("plain")) { try read(AppendixB.verifier, "plain", strict) }
        #expect(throws: PKCEError.invalidLength(.codeChallenge, length: 44)) {
            try read(AppendixB.challenge + "A", "S256", strict)
        }
    }

    @Test("A server may let clients go without PKCE, but only by saying so")
    func pkceOptional() throws {
        let challenge = try CodeChallenge(validating: AppendixB.challenge, method: .s256)
        let optional = PKCEPolicy(requiresPKCE: false)
        #expect(try CodeChallenge.verify(presented: nil, against: nil, using: backend, policy: optional) == .notUsed)
        // Opting out of PKCE does not open the downgrade or the missing verifier.
        #expect(throws: PKCEError.unexpectedVerifier) {
            try CodeChallenge.verify(presented: AppendixB.verifier, against: nil, using: backend, policy: optional)
        }
        #expect(throws: PKCEError.missingVerifier) {
            try CodeChallenge.verify(presented: nil, against: challenge, using: backend, policy: optional)
        }
    }

    // MARK: - Printing

    @Test("An S256 challenge prints whole; a plain one, being the verifier, never prints its value")
    func printing() throws {
        let verifier = try CodeVerifier(validating: AppendixB.verifier)
        let s256 = CodeChallenge(verifier: verifier, using: backend)
        #expect("\(s256)" == "CodeChallenge(S256, \(AppendixB.challenge))")
        #expect(printedEverywhere(s256).allSatisfy { $0.contains(AppendixB.challenge) })

        let plain = CodeChallenge(verifier: verifier, method: .plain, using: backend)
        #expect("\(plain)" == "CodeChallenge(plain, 43 characters)")
        for printed in printedEverywhere(plain) {
            #expect(!printed.contains(AppendixB.verifier), "\(printed)")
            #expect(printed.contains("43"), "\(printed)")
        }
    }

    private func flipFirst(_ value: String) -> String {
        (value.first == "a" ? "b" : "a") + value.dropFirst()
    }

    private func flipLast(_ value: String) -> String {
        value.dropLast() + (value.last == "a" ? "b" : "a")
    }
}
