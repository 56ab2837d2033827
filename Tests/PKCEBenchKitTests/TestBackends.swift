import PKCE
import Synchronization

/// SwiftBackend with one bit of every digest flipped: plausible output, wrong answer.
struct WrongDigestBackend: PKCEBackend {
    var name: String { "wrong-digest" }

    func fillRandom(_ buffer: UnsafeMutableRawBufferPointer) throws {
        try SwiftBackend().fillRandom(buffer)
    }

    func sha256(_ message: UnsafeRawBufferPointer, into digest: UnsafeMutableRawBufferPointer) {
        SwiftBackend().sha256(message, into: digest)
        digest[31] ^= 1
    }
}

/// A random number generator that returns zeros without complaint: the all-zero-verifier bug.
struct ZeroRandomBackend: PKCEBackend {
    var name: String { "zero-random" }

    func fillRandom(_ buffer: UnsafeMutableRawBufferPointer) throws {
        buffer.initializeMemory(as: UInt8.self, repeating: 0)
    }

    func sha256(_ message: UnsafeRawBufferPointer, into digest: UnsafeMutableRawBufferPointer) {
        SwiftBackend().sha256(message, into: digest)
    }
}

/// A backend whose randomness starts failing after a number of calls, as a exhausted or
/// disconnected entropy source would in the middle of a run.
final class FailingLaterBackend: PKCEBackend {
    static let error = PKCEError.randomFailure(source: "test", code: 5)
    private let callsLeft: Atomic<Int>

    init(failingAfter calls: Int) {
        callsLeft = Atomic(calls)
    }

    var name: String { "failing-later" }

    func fillRandom(_ buffer: UnsafeMutableRawBufferPointer) throws {
        guard callsLeft.subtract(1, ordering: .relaxed).newValue >= 0 else { throw Self.error }
        try SwiftBackend().fillRandom(buffer)
    }

    func sha256(_ message: UnsafeRawBufferPointer, into digest: UnsafeMutableRawBufferPointer) {
        SwiftBackend().sha256(message, into: digest)
    }
}
