import PKCE

// The client: a secret verifier, and its challenge for the authorization request.
let backend = SwiftBackend()
let verifier = try CodeVerifier.generate(using: backend)
let challenge = CodeChallenge(verifier: verifier, using: backend)

// The server: store the request's challenge (S256 only, by default), then check the verifier.
let stored = try CodeChallenge.fromAuthorizationRequest(challenge: challenge.value, method: "S256")
let outcome = try CodeChallenge.verify(presented: verifier.value, against: stored, using: backend) {
    // Spend the authorization code here, before the check, whatever its outcome.
}
print(outcome)  // verified
