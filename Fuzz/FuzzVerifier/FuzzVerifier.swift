import PKCE

/// libFuzzer's entry point: `CodeVerifier(validating:)` on arbitrary bytes.
///
/// Beyond "does not crash", it checks the validator against an independent statement of
/// RFC 7636 §4.1: valid exactly when every scalar is unreserved and there are 43 to 128 of them,
/// and every error names a character and position that are really there.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzVerifier(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let value = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let scalars = Array(value.unicodeScalars)
    let unreserved = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~".unicodeScalars)
    let expectedValid = scalars.allSatisfy(unreserved.contains) && (43...128).contains(scalars.count)
    do {
        let verifier = try CodeVerifier(validating: value)
        precondition(expectedValid, "accepted an invalid verifier")
        precondition(verifier.value == value, "the verifier changed its value")
        let backend = SwiftBackend()
        let challenge = CodeChallenge(verifier: verifier, using: backend)
        let outcome = try CodeChallenge.verify(presented: value, against: challenge, using: backend)
        precondition(outcome == .verified, "a verifier does not verify against its own challenge")
    } catch .invalidCharacter(.codeVerifier, let character, let position) {
        precondition(!expectedValid, "rejected a valid verifier")
        precondition(position < scalars.count && scalars[position] == character, "wrong character or position")
        precondition(scalars[..<position].allSatisfy(unreserved.contains), "not the first forbidden character")
    } catch .invalidLength(.codeVerifier, let length) {
        precondition(!expectedValid && length == value.utf8.count, "wrong length reported")
    } catch {
        preconditionFailure("unexpected error \(error)")
    }
    return 0
}
