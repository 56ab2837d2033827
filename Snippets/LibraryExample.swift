import PKCE
import PKCEOpenSSL

// The client makes a secret verifier and sends its challenge with the authorization request.
let backend = SwiftBackend()  // or: try OpenSSLBackend(), SodiumBackend(), CryptoBackend()
let verifier = try CodeVerifier.generate(using: backend)
let challenge = CodeChallenge(verifier: verifier, using: backend)
print("code_challenge=\(challenge.value)&code_challenge_method=\(challenge.method.rawValue)")

// The server validates and stores the challenge with the authorization code...
let stored = try CodeChallenge(validating: challenge.value, method: .s256)

// ...and at the token request checks the presented verifier against it, in constant time.
let outcome = try CodeChallenge.verify(presented: verifier.value, against: stored, using: try OpenSSLBackend())
print(outcome)  // verified

// A wrong, malformed or missing verifier throws a PKCEError that says what was wrong.
do {
    _ = try CodeChallenge.verify(presented: verifier.value + "\n", against: stored, using: backend)
} catch {
    print(error)  // code_verifier has the forbidden character U+A at position 43
}
