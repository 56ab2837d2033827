import Foundation
import PKCEBenchKit

/// A backend of this package's own: random bytes read from `/dev/urandom`, and the pure-Swift
/// SHA-256.
///
/// With `OWNBENCH_WRONG_SHA256=1` in the environment its SHA-256 flips a bit of every digest, as a
/// backend with a bug would: the harness must then refuse it before timing anything. With
/// `OWNBENCH_NAME` it takes that name instead of `urandom`, for the test of names the harness
/// refuses.
struct URandomBackend: PKCEBackend {
    /// The device, opened once and shared: reads of it are safe from many threads.
    private let device: Int32
    private let wrong = ProcessInfo.processInfo.environment["OWNBENCH_WRONG_SHA256"] == "1"

    init() throws {
        device = open("/dev/urandom", O_RDONLY | O_CLOEXEC)
        guard device >= 0 else {
            throw PKCEError.backendUnavailable(backend: "urandom", reason: "cannot open /dev/urandom: errno \(errno)")
        }
    }

    var name: String { ProcessInfo.processInfo.environment["OWNBENCH_NAME"] ?? "urandom" }

    var library: String { "/dev/urandom with PKCE's SHA-256" }

    func fillRandom(_ buffer: UnsafeMutableRawBufferPointer) throws {
        var filled = 0
        while filled < buffer.count {
            let count = read(device, buffer.baseAddress! + filled, buffer.count - filled)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else {
                throw PKCEError.randomFailure(source: "/dev/urandom", code: count == 0 ? 0 : Int(errno))
            }
            filled += count
        }
    }

    func sha256(_ message: UnsafeRawBufferPointer, into digest: UnsafeMutableRawBufferPointer) {
        SwiftBackend().sha256(message, into: digest)
        if wrong { digest[0] ^= 1 }
    }
}
