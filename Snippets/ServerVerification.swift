import PKCE

/// What the server's storage throws when an authorization code has already been redeemed.
struct CodeAlreadyUsed: Error {}

// The default policy is strict: PKCE required, S256 only, code_challenge_method required. Its
// supportedMethods are the code_challenge_methods_supported of the server's metadata.
let policy = PKCEPolicy()
print(policy.supportedMethods.map(\.rawValue))  // ["S256"]

// The authorization endpoint reads the request's two parameters (here RFC 7636 Appendix B's
// example) and stores the challenge with the authorization code it issues.
let code = "SplxlOBeZQQYbYS6WxSbIA"
let stored = try CodeChallenge.fromAuthorizationRequest(
    challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM", method: "S256", policy: policy)
var unusedCodes: Set = [code]

// A challenge without a method is refused, not read as plain (RFC 7636 §4.3's default).
do throws(PKCEError) {
    _ = try CodeChallenge.fromAuthorizationRequest(challenge: stored?.value, method: nil, policy: policy)
} catch {
    // invalid_request code_challenge_method required: this server does not read a missing method as plain
    print(error.oauthErrorCode(at: .authorization) ?? "", error.description(at: .authorization))
}

// The token endpoint spends the code before it checks the verifier, whatever the outcome: a wrong
// guess uses the code up, and the right verifier, presented next with the same code, is not checked.
let guess = try CodeVerifier.generate(using: SwiftBackend()).value
for presented in [guess, "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"] {
    do {
        let outcome = try CodeChallenge.verify(
            presented: presented, against: stored, using: SwiftBackend(), policy: policy
        ) {
            guard unusedCodes.remove(code) != nil else { throw CodeAlreadyUsed() }
        }
        print(outcome)
    } catch let error as PKCEError {
        // RFC 6749 §5.2 has no code for the server's own failure: answer HTTP 500 then.
        guard let oauthError = error.oauthErrorCode(at: .token) else { throw error }
        // invalid_grant code_verifier does not match the stored code_challenge
        print(oauthError, error.description(at: .token))
    } catch {
        print(error)  // CodeAlreadyUsed()
    }
}
