internal import CPKCESodium
import PKCE

/// A backend on libsodium: `randombytes_buf` and `crypto_hash_sha256`.
public struct SodiumBackend: PKCEBackend {
    /// The result of the process's one call to `sodium_init`.
    private static let initialization: Result<Void, PKCEError> = {
        // sodium_init returns 0 on success, 1 when already initialised, -1 on failure.
        let status = sodium_init()
        guard status >= 0 else {
            return .failure(.backendUnavailable(backend: "sodium", reason: "sodium_init returned \(status)"))
        }
        return .success(())
    }()

    /// Prepares the backend, initialising libsodium once per process.
    ///
    /// - Throws: `PKCEError.backendUnavailable(backend:reason:)` when `sodium_init` fails, which
    ///   happens when the system's random source cannot be opened.
    public init() throws {
        try Self.initialization.get()
    }

    /// `sodium`.
    public var name: String { "sodium" }

    /// The version of the libsodium this process loaded, from `sodium_version_string()`.
    public static var libraryVersion: String {
        String(cString: sodium_version_string())
    }

    /// `libsodium` and the loaded library's version: `libsodium 1.0.18`.
    public var library: String { "libsodium \(Self.libraryVersion)" }

    /// `false`: `randombytes_buf` cannot return a failure.
    public var randomnessCanFail: Bool { false }

    /// Fills `buffer` with `randombytes_buf`.
    ///
    /// `randombytes_buf` has no error return: libsodium aborts the process rather than return
    /// bytes it could not make random, so this never throws.
    public func fillRandom(_ buffer: UnsafeMutableRawBufferPointer) throws {
        guard let base = buffer.baseAddress else { return }
        randombytes_buf(base, buffer.count)
    }

    /// Computes SHA-256 with `crypto_hash_sha256`.
    public func sha256(_ message: UnsafeRawBufferPointer, into digest: UnsafeMutableRawBufferPointer) {
        precondition(digest.count >= sha256ByteCount, "a SHA-256 digest needs 32 bytes")
        // crypto_hash_sha256 returns 0 in every libsodium so far; a non-zero status would leave the
        // digest unwritten.
        let status = crypto_hash_sha256(
            digest.baseAddress!.assumingMemoryBound(to: UInt8.self),
            message.baseAddress?.assumingMemoryBound(to: UInt8.self),
            UInt64(message.count))
        precondition(status == 0, "libsodium's crypto_hash_sha256 failed")
    }
}
