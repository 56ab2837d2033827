internal import CPKCEOpenSSL
import PKCE

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A backend on OpenSSL's libcrypto: `RAND_bytes` and the EVP SHA-256 digest.
///
/// OpenSSL 3 looks the algorithm up in its provider tables on every `SHA256()` or
/// `EVP_Digest(…, EVP_sha256(), …)` call, which costs more than hashing a verifier. This backend
/// fetches the digest once per process (`EVP_MD_fetch`) and gives each thread a digest context of
/// its own, reused from call to call, so the hot path takes no lock and allocates nothing.
public struct OpenSSLBackend: PKCEBackend {
    private let digest: SHA256Digest

    /// Prepares the backend, fetching OpenSSL's SHA-256 implementation on first use.
    ///
    /// - Throws: ``PKCEError/backendUnavailable(backend:reason:)`` when OpenSSL has no SHA-256
    ///   (as under a FIPS configuration without the FIPS provider).
    public init() throws {
        self.digest = try SHA256Digest.shared.get()
    }

    /// `openssl`.
    public var name: String { "openssl" }

    /// The version of the libcrypto this process loaded, as `OpenSSL_version(OPENSSL_VERSION)`
    /// gives it, such as `OpenSSL 3.0.19 27 Jan 2026`.
    public static var libraryVersion: String {
        String(cString: OpenSSL_version(OPENSSL_VERSION))
    }

    /// Fills `buffer` with `RAND_bytes`.
    ///
    /// - Throws: ``PKCEError/randomFailure(source:code:)`` with `source` `RAND_bytes` and
    ///   `ERR_get_error()` when it does not return 1.
    public func fillRandom(_ buffer: UnsafeMutableRawBufferPointer) throws {
        guard let base = buffer.baseAddress else { return }
        // RAND_bytes takes an int count: ask in pieces no larger than Int32.max.
        var offset = 0
        while offset < buffer.count {
            let count = min(buffer.count - offset, Int(Int32.max))
            guard RAND_bytes(base.advanced(by: offset).assumingMemoryBound(to: UInt8.self), Int32(count)) == 1 else {
                throw PKCEError.randomFailure(source: "RAND_bytes", code: Int(truncatingIfNeeded: ERR_get_error()))
            }
            offset += count
        }
    }

    /// Computes SHA-256 with OpenSSL's EVP interface and a context reused on this thread.
    public func sha256(_ message: UnsafeRawBufferPointer, into digest: UnsafeMutableRawBufferPointer) {
        precondition(digest.count >= sha256ByteCount, "a SHA-256 digest needs 32 bytes")
        self.digest.hash(message, into: digest)
    }
}

/// OpenSSL's SHA-256, fetched once, with one `EVP_MD_CTX` per thread.
///
/// `@unchecked Sendable`: the fetched `EVP_MD` is immutable and OpenSSL documents it as safe to
/// share between threads; each context is reachable from its own thread only, through a
/// thread-specific key.
private final class SHA256Digest: @unchecked Sendable {
    /// The process's one instance, or why OpenSSL could not provide it.
    static let shared: Result<SHA256Digest, PKCEError> = Result { () throws(PKCEError) in try SHA256Digest() }

    private let algorithm: OpaquePointer
    private var contextKey = pthread_key_t()

    private init() throws(PKCEError) {
        guard let algorithm = EVP_MD_fetch(nil, "SHA256", nil) else {
            throw .backendUnavailable(
                backend: "openssl", reason: "EVP_MD_fetch(SHA256) failed with error \(ERR_get_error())")
        }
        self.algorithm = algorithm
        // Each thread's context is freed when the thread exits.
        let status = pthread_key_create(&contextKey) { context in
            EVP_MD_CTX_free(OpaquePointer(context))
        }
        guard status == 0 else {
            EVP_MD_free(algorithm)
            throw .backendUnavailable(backend: "openssl", reason: "pthread_key_create failed with error \(status)")
        }
    }

    /// The calling thread's digest context, created on its first use.
    private func context() -> OpaquePointer {
        if let context = pthread_getspecific(contextKey) {
            return OpaquePointer(context)
        }
        guard let context = EVP_MD_CTX_new() else {
            // Out of memory for a few hundred bytes: nothing sensible can continue.
            fatalError("EVP_MD_CTX_new failed: out of memory")
        }
        pthread_setspecific(contextKey, UnsafeRawPointer(context))
        return context
    }

    func hash(_ message: UnsafeRawBufferPointer, into digest: UnsafeMutableRawBufferPointer) {
        let context = context()
        var length: UInt32 = 0
        // With a context already set up for this algorithm, these fail only on programming errors
        // (a null algorithm or output), which the preconditions above rule out.
        let ok =
            EVP_DigestInit_ex2(context, algorithm, nil) == 1
            && EVP_DigestUpdate(context, message.baseAddress, message.count) == 1
            && EVP_DigestFinal_ex(context, digest.baseAddress?.assumingMemoryBound(to: UInt8.self), &length) == 1
        precondition(ok && length == UInt32(sha256ByteCount), "OpenSSL's SHA-256 failed: error \(ERR_get_error())")
    }
}
