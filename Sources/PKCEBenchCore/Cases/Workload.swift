import PKCE

/// The timed loop of a case on one thread, with the inputs prepared before timing starts.
///
/// Every iteration takes a different input (the workloads rotate through ``inputCount`` of
/// them), and every result feeds a checksum that the caller consumes, so the optimiser cannot
/// remove the work and no layer can answer from a cache.
///
/// Each loop takes the backend as a generic parameter, so that the `any PKCEBackend` existential
/// is opened once per sample rather than copied out of its box on every iteration, a copy that
/// can cost more than the operation measured.
protocol Workload: AnyObject {
    /// Returns a checksum of the results, for the caller to consume. The first error an operation
    /// throws ends the run and voids the sample.
    func run(iterations: Int) throws -> UInt64
}

/// How many different inputs a workload rotates through: a power of two, so picking one is a mask.
let inputCount = 16

/// `CodeVerifier.generate`, and with `makesString` its `value` too: its input is fresh randomness
/// on every call.
final class VerifierWorkload: Workload {
    let backend: any PKCEBackend
    let length: Int
    let makesString: Bool

    init(backend: any PKCEBackend, length: Int, makesString: Bool) {
        self.backend = backend
        self.length = length
        self.makesString = makesString
    }

    func run(iterations: Int) throws -> UInt64 {
        makesString
            ? try generate(with: backend, iterations: iterations) { UInt64($0.value.utf8.last ?? 0) }
            : try generate(with: backend, iterations: iterations) { verifier in
                verifier.withUTF8 { characters in UInt64(characters.baseAddress![characters.count - 1]) }
            }
    }

    @inline(__always)
    private func generate(
        with backend: some PKCEBackend, iterations: Int, _ check: (CodeVerifier) -> UInt64
    ) throws -> UInt64 {
        var checksum: UInt64 = 0
        for _ in 0..<iterations {
            checksum &+= check(try CodeVerifier.generate(length: length, using: backend))
        }
        return checksum
    }
}

/// `CodeChallenge(verifier:using:)` with S256, over 16 different verifiers, and with
/// `makesString` its `value` too.
final class ChallengeWorkload: Workload {
    let backend: any PKCEBackend
    let verifiers: [CodeVerifier]
    let makesString: Bool

    init(backend: any PKCEBackend, length: Int, makesString: Bool) throws {
        self.backend = backend
        self.verifiers = try (0..<inputCount).map { try fixedVerifier($0, length: length) }
        self.makesString = makesString
    }

    func run(iterations: Int) throws -> UInt64 {
        makesString
            ? derive(with: backend, iterations: iterations) { UInt64($0.value.utf8.last ?? 0) }
            : derive(with: backend, iterations: iterations, characterSum)
    }

    @inline(__always)
    private func derive(
        with backend: some PKCEBackend, iterations: Int, _ check: (CodeChallenge) -> UInt64
    ) -> UInt64 {
        // Each verifier is read where it lies, as a caller reads its own: a copy out of the array
        // would be the harness's work, not the derivation's.
        verifiers.withUnsafeBufferPointer { verifiers in
            let first = verifiers.baseAddress!
            var checksum: UInt64 = 0
            for iteration in 0..<iterations {
                let challenge = CodeChallenge(verifier: first[iteration & (inputCount - 1)], using: backend)
                checksum &+= check(challenge)
            }
            return checksum
        }
    }
}

/// `challenges(for:)` over batches of 64 verifiers, 16 different batches in turn. One operation is
/// one verifier: `run(iterations:)` derives `iterations` challenges, in whole batches and, at the
/// end, one shorter batch prepared beforehand, so that no call allocates an input array.
final class ChallengeBatchWorkload: Workload {
    let backend: any PKCEBackend
    let batches: [[CodeVerifier]]
    /// `shortBatches[n]`: the first `n` verifiers of the first batch, for the end of a run.
    let shortBatches: [[CodeVerifier]]

    init(backend: any PKCEBackend, length: Int) throws {
        let size = BenchmarkOperation.challengeBatchSize
        self.backend = backend
        let batches = try (0..<inputCount).map { batch in
            try (0..<size).map { try fixedVerifier(batch * size + $0, length: length) }
        }
        self.batches = batches
        self.shortBatches = (0..<size).map { Array(batches[0].prefix($0)) }
    }

    func run(iterations: Int) throws -> UInt64 {
        derive(with: backend, iterations: iterations)
    }

    private func derive(with backend: some PKCEBackend, iterations: Int) -> UInt64 {
        let size = BenchmarkOperation.challengeBatchSize
        var checksum: UInt64 = 0
        var done = 0
        var batch = 0
        while done < iterations {
            let count = min(size, iterations - done)
            let verifiers = count == size ? batches[batch & (inputCount - 1)] : shortBatches[count]
            for challenge in backend.challenges(for: verifiers) {
                checksum &+= characterSum(of: challenge)
            }
            done += count
            batch += 1
        }
        return checksum
    }
}

/// The token endpoint's check of a presented verifier string against a stored S256 challenge.
///
/// Every check is expected to pass; one that does not is a wrong result, which voids the sample.
final class VerifyWorkload: Workload {
    let backend: any PKCEBackend
    let presented: [String]
    let stored: [CodeChallenge]

    init(backend: any PKCEBackend, length: Int) throws {
        let reference = SwiftBackend()
        let verifiers = try (0..<inputCount).map { try fixedVerifier($0, length: length) }
        self.backend = backend
        self.presented = verifiers.map(\.value)
        self.stored = verifiers.map { CodeChallenge(verifier: $0, using: reference) }
    }

    func run(iterations: Int) throws -> UInt64 {
        try verify(with: backend, iterations: iterations)
    }

    private func verify(with backend: some PKCEBackend, iterations: Int) throws -> UInt64 {
        // Inputs read in place, as in the challenge case.
        try presented.withUnsafeBufferPointer { presented in
            try stored.withUnsafeBufferPointer { stored in
                let (firstPresented, firstStored) = (presented.baseAddress!, stored.baseAddress!)
                var checksum: UInt64 = 0
                for iteration in 0..<iterations {
                    let input = iteration & (inputCount - 1)
                    let outcome = try CodeChallenge.verify(
                        presented: firstPresented[input], against: firstStored[input], using: backend)
                    checksum &+= outcome == .verified ? 1 : 0
                }
                return checksum
            }
        }
    }
}

/// `sha256(_:into:)` over 16 different messages of `size` bytes, into one digest buffer.
final class SHA256Workload: Workload {
    let backend: any PKCEBackend
    let size: Int
    let messages: UnsafeMutableRawBufferPointer
    let digest: UnsafeMutableRawBufferPointer

    init(backend: any PKCEBackend, size: Int) {
        self.backend = backend
        self.size = size
        self.messages = .allocate(byteCount: max(1, size * inputCount), alignment: 64)
        self.digest = .allocate(byteCount: sha256ByteCount, alignment: 64)
        for index in messages.indices {
            messages[index] = UInt8(truncatingIfNeeded: index &* 131 &+ index >> 8)
        }
    }

    deinit {
        messages.deallocate()
        digest.deallocate()
    }

    func run(iterations: Int) throws -> UInt64 {
        hash(with: backend, iterations: iterations)
    }

    private func hash(with backend: some PKCEBackend, iterations: Int) -> UInt64 {
        let (messages, digest, size) = (UnsafeRawPointer(messages.baseAddress!), self.digest, self.size)
        var checksum: UInt64 = 0
        for iteration in 0..<iterations {
            let message = UnsafeRawBufferPointer(start: messages + (iteration & (inputCount - 1)) &* size, count: size)
            backend.sha256(message, into: digest)
            checksum &+= UInt64(digest[0])
        }
        return checksum
    }
}

/// `fillRandom(_:)` of `size` bytes: its output is its input.
final class RandomWorkload: Workload {
    let backend: any PKCEBackend
    let buffer: UnsafeMutableRawBufferPointer

    init(backend: any PKCEBackend, size: Int) {
        self.backend = backend
        self.buffer = .allocate(byteCount: size, alignment: 64)
        buffer.initializeMemory(as: UInt8.self, repeating: 0)
    }

    deinit {
        buffer.deallocate()
    }

    func run(iterations: Int) throws -> UInt64 {
        try fill(with: backend, iterations: iterations)
    }

    private func fill(with backend: some PKCEBackend, iterations: Int) throws -> UInt64 {
        let buffer = self.buffer
        var checksum: UInt64 = 0
        for _ in 0..<iterations {
            try backend.fillRandom(buffer)
            checksum &+= UInt64(buffer[0])
        }
        return checksum
    }
}

/// Every character of `challenge` folded into one word, for a checksum, read without making a
/// `String`.
///
/// Every character, not only the last: the derivation is inlined into the loop, and the optimiser
/// computes no character that nothing reads. The batch case, whose challenges come from a call,
/// reads them the same way, so that the two stay comparable. Eight characters at a time, as the
/// challenge holds them, then one at a time: a load across two of its words would wait for both
/// stores.
///
/// Through the buffer's base address: a debug build's `UnsafeBufferPointer` subscript is a
/// coroutine that allocates its frame, which would count in the case's allocations.
@inline(__always)
private func characterSum(of challenge: CodeChallenge) -> UInt64 {
    challenge.withUTF8 { characters in
        let (first, count) = (UnsafeRawPointer(characters.baseAddress!), characters.count)
        var sum: UInt64 = 0
        var offset = 0
        while offset + 8 <= count {
            sum ^= first.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
            offset += 8
        }
        while offset < count {
            sum &+= UInt64(first.load(fromByteOffset: offset, as: UInt8.self))
            offset += 1
        }
        return sum
    }
}

/// The `index`th verifier of the cases' inputs: base64url characters as a generated verifier has
/// them, but the same in every process and run. Validating a verifier branches on its characters,
/// so random inputs would move instruction counts from one run to the next.
func fixedVerifier(_ index: Int, length: Int) throws -> CodeVerifier {
    let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
    // SplitMix64, seeded by the index.
    var state = UInt64(index) &* splitMix64Increment
    let characters = (0..<length).map { _ -> UInt8 in
        state &+= splitMix64Increment
        return alphabet[Int(splitMix64Finalized(state) >> 58)]
    }
    return try CodeVerifier(validating: String(decoding: characters, as: UTF8.self))
}
