/// The default backend: SHA-256 written in Swift, randomness from the kernel through `getentropy(3)`.
///
/// It needs no C library beyond the system's C library, so it is the backend to use when the
/// others are not installed; on its portable path, it is the reference the benchmark's
/// correctness check compares every backend against.
public struct SwiftBackend: PKCEBackend {
    /// The path of the hash: read once per process, and kept here, so that a hash asks no more
    /// than a field which it takes.
    private let implementation: SHA256.Implementation

    /// Creates the backend.
    public init() {
        implementation = .selected
    }

    private init(implementation: SHA256.Implementation) {
        self.implementation = implementation
    }

    /// The backend on its portable path, whatever the CPU has: the reference that the benchmark's
    /// correctness check and the fuzzers check every backend against, this one's path on the SHA
    /// instructions included.
    package static var portable: SwiftBackend { SwiftBackend(implementation: .portable) }

    /// The backend on each path this build can run on this CPU, the selected one included: for
    /// checking the paths against each other.
    package static var everyPath: [SwiftBackend] {
        SHA256.Implementation.allCases.filter(\.isAvailable).map(SwiftBackend.init(implementation:))
    }

    /// `swift`.
    public var name: String { "swift" }

    /// This module's own SHA-256, versioned with the package, and the path its compression
    /// function takes in this process: `PKCE (pure Swift, SHA extensions)` on a CPU with SHA
    /// instructions, `PKCE (pure Swift, AVX2 schedule)` on other x86-64 CPUs with AVX2, BMI1 and
    /// BMI2, `PKCE (pure Swift, SSE2 schedule)` on the rest, `PKCE (pure Swift, scalar)` elsewhere.
    /// When `PKCE_SWIFT_SHA256` is set, the variable and its value follow the path (`PKCE (pure
    /// Swift, SSE2 schedule, PKCE_SWIFT_SHA256=portable)`), and then `ignored` when the value names
    /// no path this CPU can run.
    public var library: String { "PKCE (pure Swift, \(implementation.recordedName))" }

    /// Fills `buffer` from the kernel's CSPRNG with `getentropy(3)`, which Linux and Apple
    /// platforms both have.
    ///
    /// The buffer is requested 256 bytes at a time, `getentropy`'s limit (a verifier needs at most
    /// 96); a call interrupted by a signal (`EINTR`) is made again.
    ///
    /// - Throws: ``PKCEError/randomFailure(source:code:)`` with `source` `getentropy` and the `errno`.
    public func fillRandom(_ buffer: UnsafeMutableRawBufferPointer) throws {
        try SystemRandom.fill(buffer)
    }

    /// Derives the `S256` challenges of `verifiers` with a SHA-256 that hashes several verifiers at
    /// once: two on a CPU's SHA instructions; else one per lane of a SIMD vector, 4 on baseline
    /// x86-64, 16 when built with `-Xswiftc -target-cpu -Xswiftc native` on a CPU with AVX-512.
    ///
    /// - Parameter verifiers: The verifiers, in any number.
    /// - Returns: One challenge per verifier, in order: the same as ``CodeChallenge/init(verifier:method:using:)``
    ///   gives one at a time.
    public func challenges(for verifiers: [CodeVerifier]) -> [CodeChallenge] {
        switch implementation {
        case .shaExtensions: SHA256Pairs.challenges(for: verifiers)
        case .avx2, .vectorSchedule, .scalarSchedule: SHA256Lanes.challenges(for: verifiers)
        }
    }

    /// Computes SHA-256 in Swift (FIPS 180-4), with no heap allocation.
    public func sha256(_ message: UnsafeRawBufferPointer, into digest: UnsafeMutableRawBufferPointer) {
        SHA256.hash(message, into: digest, on: implementation)
    }
}
