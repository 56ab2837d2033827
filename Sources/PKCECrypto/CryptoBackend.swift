internal import Crypto
import PKCE

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A backend on swift-crypto: `SHA256` and the standard library's `SystemRandomNumberGenerator`,
/// which is what a Vapor or Hummingbird server written today uses.
///
/// On Apple platforms swift-crypto compiles to nothing and re-exports CryptoKit, so there this
/// backend's `SHA256` is CryptoKit's: the hash the iOS tutorials on PKCE use. (For the verifier's
/// bytes they use `SecRandomCopyBytes`; this backend uses the standard library's
/// `SystemRandomNumberGenerator`, a CSPRNG on every platform Swift supports.)
public struct CryptoBackend: PKCEBackend {
    /// Creates the backend; it holds no state.
    public init() {}

    /// `crypto`.
    public var name: String { "crypto" }

    /// `swift-crypto` on Linux, `CryptoKit` on Apple platforms: neither has a version to read at
    /// run time. On Linux swift-crypto's BoringSSL reads OpenSSL's `OPENSSL_ia32cap` mask, which
    /// then follows: `swift-crypto (OPENSSL_ia32cap=~0x0:~0x20000000)`.
    public var library: String {
        #if canImport(CryptoKit)
        "CryptoKit"
        #else
        guard let mask = getenv("OPENSSL_ia32cap") else { return "swift-crypto" }
        return "swift-crypto (OPENSSL_ia32cap=\(String(cString: mask)))"
        #endif
    }

    /// `false`: `SystemRandomNumberGenerator` cannot return a failure.
    public var randomnessCanFail: Bool { false }

    /// Fills `buffer` from `SystemRandomNumberGenerator`, eight bytes at a time.
    ///
    /// Each word is stored into the buffer, the last one byte by byte, with no copy of it made in
    /// memory of its own: copied through its bytes instead, it was left on the stack, where nothing
    /// wipes it. (An unoptimised build may still keep the word in a stack slot.)
    ///
    /// The generator has no error return: the standard library stops the process rather than
    /// return bytes it could not make random, so this never throws.
    public func fillRandom(_ buffer: UnsafeMutableRawBufferPointer) throws {
        var generator = SystemRandomNumberGenerator()
        var offset = 0
        while buffer.count - offset >= 8 {
            buffer.storeBytes(of: generator.next(), toByteOffset: offset, as: UInt64.self)
            offset += 8
        }
        guard offset < buffer.count else { return }
        var word = generator.next()
        while offset < buffer.count {
            buffer[offset] = UInt8(truncatingIfNeeded: word)
            word >>= 8
            offset += 1
        }
    }

    /// Computes SHA-256 with swift-crypto's `SHA256.hash(data:)`.
    public func sha256(_ message: UnsafeRawBufferPointer, into digest: UnsafeMutableRawBufferPointer) {
        precondition(digest.count >= sha256ByteCount, "a SHA-256 digest needs 32 bytes")
        SHA256.hash(data: message).withUnsafeBytes { bytes in
            digest.copyMemory(from: bytes)
        }
    }
}
