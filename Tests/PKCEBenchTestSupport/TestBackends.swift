import PKCE
import Synchronization

/// SwiftBackend with one bit of every digest flipped: plausible output, wrong answer.
public struct WrongDigestBackend: PKCEBackend {
    public init() {}

    public var name: String { "wrong-digest" }

    public func fillRandom(_ buffer: UnsafeMutableRawBufferPointer) throws {
        try SwiftBackend().fillRandom(buffer)
    }

    public func sha256(_ message: UnsafeRawBufferPointer, into digest: UnsafeMutableRawBufferPointer) {
        SwiftBackend().sha256(message, into: digest)
        digest[31] ^= 1
    }
}

/// A random number generator that returns zeros without complaint: the all-zero-verifier bug.
public struct ZeroRandomBackend: PKCEBackend {
    public init() {}

    public var name: String { "zero-random" }

    public func fillRandom(_ buffer: UnsafeMutableRawBufferPointer) throws {
        buffer.initializeMemory(as: UInt8.self, repeating: 0)
    }

    public func sha256(_ message: UnsafeRawBufferPointer, into digest: UnsafeMutableRawBufferPointer) {
        SwiftBackend().sha256(message, into: digest)
    }
}

/// A backend whose randomness starts failing after a number of calls, as an exhausted or
/// disconnected entropy source would in the middle of a run.
public final class FailingLaterBackend: PKCEBackend {
    public static let error = PKCEError.randomFailure(source: "test", code: 5)
    private let callsLeft: Atomic<Int>

    public init(failingAfter calls: Int) {
        callsLeft = Atomic(calls)
    }

    public var name: String { "failing-later" }

    public func fillRandom(_ buffer: UnsafeMutableRawBufferPointer) throws {
        guard callsLeft.subtract(1, ordering: .relaxed).newValue >= 0 else { throw Self.error }
        try SwiftBackend().fillRandom(buffer)
    }

    public func sha256(_ message: UnsafeRawBufferPointer, into digest: UnsafeMutableRawBufferPointer) {
        SwiftBackend().sha256(message, into: digest)
    }
}
