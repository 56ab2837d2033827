import Foundation
import PKCE
import PKCEBenchCore
import Synchronization

/// SwiftBackend with one bit of every digest flipped: plausible output, wrong answer.
package struct WrongDigestBackend: PKCEBackend {
    /// Creates the backend.
    package init() {}

    /// Its name in reports.
    package var name: String { "wrong-digest" }

    /// Fills the buffer as the type's summary says.
    package func fillRandom(_ buffer: UnsafeMutableRawBufferPointer) throws {
        try SwiftBackend().fillRandom(buffer)
    }

    /// Hashes as the type's summary says.
    package func sha256(_ message: UnsafeRawBufferPointer, into digest: UnsafeMutableRawBufferPointer) {
        SwiftBackend().sha256(message, into: digest)
        digest[31] ^= 1
    }
}

/// A random number generator that returns zeros without complaint: the all-zero-verifier bug.
package struct ZeroRandomBackend: PKCEBackend {
    /// Creates the backend.
    package init() {}

    /// Its name in reports.
    package var name: String { "zero-random" }

    /// Fills the buffer as the type's summary says.
    package func fillRandom(_ buffer: UnsafeMutableRawBufferPointer) throws {
        buffer.initializeMemory(as: UInt8.self, repeating: 0)
    }

    /// Hashes as the type's summary says.
    package func sha256(_ message: UnsafeRawBufferPointer, into digest: UnsafeMutableRawBufferPointer) {
        SwiftBackend().sha256(message, into: digest)
    }
}

/// A backend whose randomness starts failing after a number of calls, as an exhausted or
/// disconnected entropy source would in the middle of a run.
package final class FailingLaterBackend: PKCEBackend {
    /// What the randomness throws once it fails.
    package static let error = PKCEError.randomFailure(source: "test", code: 5)
    private let callsLeft: Atomic<Int>

    /// Creates a backend whose randomness fails after `calls` calls.
    package init(failingAfter calls: Int = .max) {
        callsLeft = Atomic(calls)
    }

    /// Makes every call from now on fail.
    package func failFromNow() {
        callsLeft.store(0, ordering: .relaxed)
    }

    /// Its name in reports.
    package var name: String { "failing-later" }

    /// Fills the buffer as the type's summary says.
    package func fillRandom(_ buffer: UnsafeMutableRawBufferPointer) throws {
        guard callsLeft.subtract(1, ordering: .relaxed).newValue >= 0 else { throw Self.error }
        try SwiftBackend().fillRandom(buffer)
    }

    /// Hashes as the type's summary says.
    package func sha256(_ message: UnsafeRawBufferPointer, into digest: UnsafeMutableRawBufferPointer) {
        SwiftBackend().sha256(message, into: digest)
    }
}

/// SwiftBackend that counts its `sha256` calls on each thread, with an ``AllocationCounter`` that
/// reads that count: tests use it to check that the harness brackets exactly the timed loop, on
/// the thread that runs it, and adds up every thread's count.
package struct CallCountingBackend: PKCEBackend {
    private static let key = "PKCEBenchTestSupport.CallCountingBackend.calls"

    /// Creates the backend.
    package init() {}

    /// Its name in reports.
    package var name: String { "call-counting" }

    /// A counter that reports the calling thread's `sha256` calls as its allocations.
    package static let counter = AllocationCounter { callsOnThisThread }

    private static var callsOnThisThread: UInt64 {
        get { Thread.current.threadDictionary[key] as? UInt64 ?? 0 }
        set { Thread.current.threadDictionary[key] = newValue }
    }

    /// Fills the buffer as the type's summary says.
    package func fillRandom(_ buffer: UnsafeMutableRawBufferPointer) throws {
        try SwiftBackend().fillRandom(buffer)
    }

    /// Hashes as the type's summary says.
    package func sha256(_ message: UnsafeRawBufferPointer, into digest: UnsafeMutableRawBufferPointer) {
        Self.callsOnThisThread += 1
        SwiftBackend().sha256(message, into: digest)
    }
}

/// Whether this process runs under AddressSanitizer or ThreadSanitizer, whose allocators the
/// `bench` binary's allocation counter steps aside for.
package let processIsSanitized: Bool = ["__asan_init", "__tsan_init"].contains { (symbol: String) in
    dlsym(UnsafeMutableRawPointer(bitPattern: 0), symbol) != nil
}
