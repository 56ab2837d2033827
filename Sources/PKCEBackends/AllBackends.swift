@_exported import PKCE
import PKCECrypto
import PKCEOpenSSL
import PKCESodium

/// Every backend this package ships, in a fixed order: `openssl`, `sodium`, `swift`, `crypto`.
///
/// The benchmark and the tests iterate this list, so a new backend added here is measured and
/// checked against every test vector without further changes.
///
/// - Returns: One instance of each backend.
/// - Throws: `PKCEError.backendUnavailable(backend:reason:)` when a C library cannot be set up.
public func allBackends() throws -> [any PKCEBackend] {
    [try OpenSSLBackend(), try SodiumBackend(), SwiftBackend(), CryptoBackend()]
}
