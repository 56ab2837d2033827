@_exported import PKCE
import Foundation
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

/// The names of the backends ``allBackends()`` returns, in the same order, known without setting
/// any of them up: for validating a command line before anything runs.
public let allBackendNames = ["openssl", "sodium", "swift", "crypto"]

/// The versions of the C libraries this process loaded, by backend name: what a benchmark report
/// records so that results from different library versions are not compared unawares.
///
/// OpenSSL's carries the `OPENSSL_ia32cap` mask when the environment sets one: the mask hides CPU
/// features from OpenSSL's assembly (`~0x0:~0x20000000` hides the SHA extensions), so the same
/// library then runs other code, and a report says which. (swift-crypto's BoringSSL reads the
/// same variable, which changes the `crypto` backend's SHA-256 too.)
///
/// - Returns: `["openssl": "OpenSSL 3.0.19 27 Jan 2026", "sodium": "1.0.18"]`, for example, or with
///   `OPENSSL_ia32cap` set, `"OpenSSL 3.0.19 27 Jan 2026 (OPENSSL_ia32cap=~0x0:~0x20000000)"`.
public func loadedLibraryVersions() -> [String: String] {
    var openssl = OpenSSLBackend.libraryVersion
    if let mask = ProcessInfo.processInfo.environment["OPENSSL_ia32cap"] {
        openssl += " (OPENSSL_ia32cap=\(mask))"
    }
    return ["openssl": openssl, "sodium": SodiumBackend.libraryVersion]
}
