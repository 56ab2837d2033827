import PKCE
import PKCEOpenSSL

// The client makes a secret verifier and sends its challenge with the authorization request.
let backend = SwiftBackend()  // or: try OpenSSLBackend(), SodiumBackend(), CryptoBackend()
let verifier = try CodeVerifier.generate(using: backend)
let challenge = CodeChallenge(verifier: verifier, using: backend)
print("code_challenge=\(challenge.value)&code_challenge_method=\(challenge.method.rawValue)")

// The server reads the request's two parameters and stores the challenge with the authorization
// code. By default PKCE is required and only S256 is accepted; PKCEPolicy relaxes that by name, and
// its supportedMethods are the code_challenge_methods_supported to publish.
let stored = try CodeChallenge.fromAuthorizationRequest(
    challenge: challenge.value, method: challenge.method.rawValue)

// At the token request it spends the authorization code first, whatever the outcome (RFC 6749
// §10.5), then checks the presented verifier against the stored challenge, in constant time.
var codeUsed = false
let outcome = try CodeChallenge.verify(presented: verifier.value, against: stored, using: try OpenSSLBackend()) {
    codeUsed = true  // mark the code as used in the server's storage
}
print(outcome, codeUsed)  // verified true

// A wrong, malformed or missing verifier throws a PKCEError: at the token endpoint,
// oauthErrorCode(at: .token) and description(at: .token) are the client's error and
// error_description (no code means the server failed: answer HTTP 500); logDescription is for the
// server's logs only.
do {
    _ = try CodeChallenge.verify(presented: verifier.value + "\n", against: stored, using: backend) {}
} catch let error as PKCEError {
    // invalid_request code_verifier has the forbidden character U+000A at position 43
    print(error.oauthErrorCode(at: .token) ?? "server error", error.description(at: .token))
}
