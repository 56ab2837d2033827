internal import CPKCEOpenSSL
import PKCE

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A backend on OpenSSL's libcrypto: `RAND_bytes` and SHA-256.
///
/// SHA-256 goes through the low-level `SHA256_Init`/`SHA256_Update`/`SHA256_Final` with the
/// context on the stack. OpenSSL 3's one-shot `SHA256()` and `EVP_Digest(…, EVP_sha256(), …)` look
/// the algorithm up in the provider tables on every call, and even with the algorithm fetched once
/// and a context reused, OpenSSL 3.0's `EVP_DigestInit_ex2` allocates the digest's state on every
/// call. The low-level functions run the same assembly (SHA-NI where the CPU has it) with no
/// lookup, no lock and no allocation, which for a message as short as a verifier are a large
/// part of what a hash through EVP costs.
///
/// Those functions run outside OpenSSL's providers, so the backend refuses to start where that
/// matters: when OpenSSL has no SHA-256 to fetch, or its default properties ask for FIPS, whose
/// provider the low-level functions would bypass. (An OpenSSL built with `no-deprecated` lacks
/// them altogether, and this module does not build against it.)
public struct OpenSSLBackend: PKCEBackend {
    /// Prepares the backend, checking once per process that OpenSSL may be used as it is.
    ///
    /// - Throws: `PKCEError.backendUnavailable(backend:reason:)` when OpenSSL cannot fetch
    ///   SHA-256, runs in FIPS mode, or is older than 3.0.
    public init() throws {
        try Self.availability.get()
    }

    /// Whether this process's OpenSSL may be used, decided on first use.
    private static let availability = Result { () throws(PKCEError) in
        // The headers were 3.x (the shim checks); the library loaded at run time must be too.
        guard OpenSSL_version_num() >= 0x3000_0000 else {
            throw .backendUnavailable(
                backend: "openssl", reason: "OpenSSL 3.0 or later is needed; this process loaded \(libraryVersion)")
        }
        guard let digest = EVP_MD_fetch(nil, "SHA256", nil) else {
            throw .backendUnavailable(
                backend: "openssl", reason: "EVP_MD_fetch(SHA256) failed with error \(CPKCEOpenSSL_takeError())")
        }
        EVP_MD_free(digest)
        guard EVP_default_properties_is_fips_enabled(nil) == 0 else {
            throw .backendUnavailable(
                backend: "openssl",
                reason: "OpenSSL is in FIPS mode, and this backend's SHA-256 runs outside the FIPS provider")
        }
    }

    /// `openssl`.
    public var name: String { "openssl" }

    /// The version of the libcrypto this process loaded, as `OpenSSL_version(OPENSSL_VERSION)`
    /// gives it, such as `OpenSSL 3.0.19 27 Jan 2026`.
    public static var libraryVersion: String {
        String(cString: OpenSSL_version(OPENSSL_VERSION))
    }

    /// The loaded libcrypto's version, with the `OPENSSL_ia32cap` mask when the environment sets
    /// one: `OpenSSL 3.0.22 25 Aug 2026 (OPENSSL_ia32cap=~0x0:~0x20000000)`.
    ///
    /// The mask hides CPU features from OpenSSL's assembly (`~0x0:~0x20000000` hides the SHA
    /// extensions), so the same library then runs other code, and a report says which.
    /// (swift-crypto's BoringSSL reads the same variable, which changes `CryptoBackend` too.)
    public var library: String {
        guard let mask = getenv("OPENSSL_ia32cap") else { return Self.libraryVersion }
        return "\(Self.libraryVersion) (OPENSSL_ia32cap=\(String(cString: mask)))"
    }

    /// Fills `buffer` with `RAND_bytes`.
    ///
    /// - Throws: `PKCEError.randomFailure(source:code:)` with `source` `RAND_bytes` and
    ///   `ERR_get_error()` when it does not return 1; the thread's error queue is then cleared.
    public func fillRandom(_ buffer: UnsafeMutableRawBufferPointer) throws {
        guard let base = buffer.baseAddress else { return }
        // RAND_bytes takes an int count: ask in pieces no larger than Int32.max.
        var offset = 0
        while offset < buffer.count {
            let count = min(buffer.count - offset, Int(Int32.max))
            guard RAND_bytes(base.advanced(by: offset).assumingMemoryBound(to: UInt8.self), Int32(count)) == 1 else {
                throw PKCEError.randomFailure(
                    source: "RAND_bytes", code: Int(truncatingIfNeeded: CPKCEOpenSSL_takeError()))
            }
            offset += count
        }
    }

    /// Computes SHA-256 with OpenSSL's low-level SHA-256 functions and a context on the stack,
    /// wiped afterwards.
    public func sha256(_ message: UnsafeRawBufferPointer, into digest: UnsafeMutableRawBufferPointer) {
        precondition(digest.count >= sha256ByteCount, "a SHA-256 digest needs 32 bytes")
        // They fail only on a null context or output, which cannot happen here.
        let ok = CPKCEOpenSSL_sha256(
            message.baseAddress, message.count, digest.baseAddress!.assumingMemoryBound(to: UInt8.self))
        precondition(ok == 1, "OpenSSL's SHA256_Init, SHA256_Update or SHA256_Final failed")
    }
}
