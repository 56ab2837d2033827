import PKCE
import PKCEOpenSSL

// The client makes a secret verifier and sends its challenge with the authorization request.
let backend = SwiftBackend()  // or: try OpenSSLBackend(), SodiumBackend(), CryptoBackend()
let verifier = try CodeVerifier.generate(using: backend)
let challenge = CodeChallenge(verifier: verifier, using: backend)
print("code_challenge=\(challenge.value)&code_challenge_method=\(challenge.method.rawValue)")

// The server reads the request's two parameters and stores the challenge with the authorization
// code. By default PKCE is required and only S256 is accepted; PKCEPolicy relaxes that by name.
let stored = try CodeChallenge.fromAuthorizationRequest(
    challenge: challenge.value, method: challenge.method.rawValue)

// At the token request it checks the presented verifier against the stored challenge, in constant
// time. Whatever the outcome, the authorization code is then spent (RFC 6749 §10.5).
let outcome = try CodeChallenge.verify(presented: verifier.value, against: stored, using: try OpenSSLBackend())
print(outcome)  // verified

// A wrong, malformed or missing verifier throws a PKCEError whose description says what was wrong
// in words fit for the OAuth error_description.
do {
    _ = try CodeChallenge.verify(presented: verifier.value + "\n", against: stored, using: backend)
} catch {
    print(error)  // code_verifier has the forbidden character U+000A at position 43
}
