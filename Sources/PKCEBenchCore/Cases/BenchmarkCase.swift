import PKCE

/// One thing to measure: an operation of one backend at one size, on some threads at once.
public struct BenchmarkCase: Sendable, CustomStringConvertible {
    /// The backend under test.
    public let backend: any PKCEBackend
    package let operation: BenchmarkOperation
    /// The verifier length in characters, or the message size in bytes.
    package let size: Int
    /// How many threads run the operation at once; throughput is their aggregate.
    package let threads: Int

    /// `size` must be one the operation allows, and `threads` at least 1; the command line checks
    /// them first.
    package init(backend: any PKCEBackend, operation: BenchmarkOperation, size: Int, threads: Int = 1) {
        precondition(operation.allowedSizes.contains(size), "size \(size) is invalid for \(operation)")
        precondition(threads >= 1, "a case needs at least one thread")
        self.backend = backend
        self.operation = operation
        self.size = size
        self.threads = threads
    }

    package var key: CaseKey {
        CaseKey(backend: backend.name, operation: operation, size: size, threads: threads)
    }

    /// The case's name, as every report gives it: `operation/backend/size` (`challenge/sodium/43`),
    /// with `×threads` when it runs on more than one.
    public var description: String { key.description }

    /// The cases `bench` measures by default, in report order: every operation at its default
    /// sizes, for each of `backends`, on one thread.
    ///
    /// - Throws: An error that names the backend when names are not valid and distinct
    ///   (`PKCEBackend/name`), as `bench` refuses them.
    public static func defaultSuite(of backends: [any PKCEBackend]) throws -> [BenchmarkCase] {
        try BackendNames.check(backends.map(\.name))
        return try Selection().cases(from: backends)
    }

    /// Prepares the inputs one thread needs to run this case; throws the backend's error when that
    /// needs randomness and it fails.
    func makeWorkload() throws -> any Workload {
        switch operation {
        case .verifier: VerifierWorkload(backend: backend, length: size, makesString: false)
        case .verifierString: VerifierWorkload(backend: backend, length: size, makesString: true)
        case .challenge: try ChallengeWorkload(backend: backend, length: size, makesString: false)
        case .challengeString: try ChallengeWorkload(backend: backend, length: size, makesString: true)
        case .challengeBatch: try ChallengeBatchWorkload(backend: backend, length: size)
        case .verify: try VerifyWorkload(backend: backend, length: size)
        case .sha256: SHA256Workload(backend: backend, size: size)
        case .random: RandomWorkload(backend: backend, size: size)
        }
    }
}

/// A case's timed loop with its inputs prepared for one thread, for a harness other than
/// `bench`'s sampler to run: the package-benchmark suite in `Benchmarks/` runs these same loops, so the
/// two harnesses measure the same work.
public final class CaseLoop {
    private let workload: any Workload

    /// Prepares the inputs `benchmark` needs on one thread.
    ///
    /// - Throws: The backend's error when it fails to give randomness the inputs need.
    public init(_ benchmark: BenchmarkCase) throws {
        self.workload = try benchmark.makeWorkload()
    }

    /// Runs the operation `iterations` times, each on another of the prepared inputs.
    ///
    /// - Returns: A checksum of the results, for the caller to consume so that the optimiser
    ///   cannot remove the work.
    /// - Throws: The first error an operation throws.
    public func run(iterations: Int) throws -> UInt64 {
        try workload.run(iterations: iterations)
    }
}
