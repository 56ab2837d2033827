import PKCE

/// A backend whose random number generator always fails, as a broken `getentropy` or an
/// unseeded OpenSSL would.
struct FailingRandomBackend: PKCEBackend {
    static let error = PKCEError.randomFailure(source: "test", code: 5)

    var name: String { "failing" }

    func fillRandom(_ buffer: UnsafeMutableRawBufferPointer) throws {
        throw Self.error
    }

    func sha256(_ message: UnsafeRawBufferPointer, into digest: UnsafeMutableRawBufferPointer) {
        SwiftBackend().sha256(message, into: digest)
    }
}

/// The RFC 7636 Appendix B verifier and its S256 challenge.
enum AppendixB {
    static let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
    static let challenge = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
}

/// `value` as every way of printing shows it: interpolation, `String(reflecting:)` (which
/// `debugPrint` and a debugger's `po` use), and `dump` (which reads the mirror).
func printedEverywhere<T>(_ value: T) -> [String] {
    var dumped = ""
    dump(value, to: &dumped)
    return ["\(value)", String(describing: value), String(reflecting: value), dumped]
}
