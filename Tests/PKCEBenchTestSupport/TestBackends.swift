import PKCE
import Synchronization

/// SwiftBackend with one bit of every digest flipped: plausible output, wrong answer.
public struct WrongDigestBackend: PKCEBackend {
    /// Creates the backend.
    public init() {}

    /// Its name in reports.
    public var name: String { "wrong-digest" }

    /// Fills the buffer as the type's summary says.
    public func fillRandom(_ buffer: UnsafeMutableRawBufferPointer) throws {
        try SwiftBackend().fillRandom(buffer)
    }

    /// Hashes as the type's summary says.
    public func sha256(_ message: UnsafeRawBufferPointer, into digest: UnsafeMutableRawBufferPointer) {
        SwiftBackend().sha256(message, into: digest)
        digest[31] ^= 1
    }
}

/// A random number generator that returns zeros without complaint: the all-zero-verifier bug.
public struct ZeroRandomBackend: PKCEBackend {
    /// Creates the backend.
    public init() {}

    /// Its name in reports.
    public var name: String { "zero-random" }

    /// Fills the buffer as the type's summary says.
    public func fillRandom(_ buffer: UnsafeMutableRawBufferPointer) throws {
        buffer.initializeMemory(as: UInt8.self, repeating: 0)
    }

    /// Hashes as the type's summary says.
    public func sha256(_ message: UnsafeRawBufferPointer, into digest: UnsafeMutableRawBufferPointer) {
        SwiftBackend().sha256(message, into: digest)
    }
}

/// A backend whose randomness starts failing after a number of calls, as an exhausted or
/// disconnected entropy source would in the middle of a run.
public final class FailingLaterBackend: PKCEBackend {
    /// What the randomness throws once it fails.
    public static let error = PKCEError.randomFailure(source: "test", code: 5)
    private let callsLeft: Atomic<Int>

    /// Creates a backend whose randomness fails after `calls` calls.
    public init(failingAfter calls: Int = .max) {
        callsLeft = Atomic(calls)
    }

    /// Makes every call from now on fail.
    public func failFromNow() {
        callsLeft.store(0, ordering: .relaxed)
    }

    /// Its name in reports.
    public var name: String { "failing-later" }

    /// Fills the buffer as the type's summary says.
    public func fillRandom(_ buffer: UnsafeMutableRawBufferPointer) throws {
        guard callsLeft.subtract(1, ordering: .relaxed).newValue >= 0 else { throw Self.error }
        try SwiftBackend().fillRandom(buffer)
    }

    /// Hashes as the type's summary says.
    public func sha256(_ message: UnsafeRawBufferPointer, into digest: UnsafeMutableRawBufferPointer) {
        SwiftBackend().sha256(message, into: digest)
    }
}
