import Foundation
import PKCEBackends
import Testing

@Suite("Every backend from many threads at once")
struct ConcurrencyTests {
    static let threadCount = 8

    /// What the threads return. `@unchecked Sendable`: `values` is only touched with `lock` held
    /// (an `NSLock`, whose ordering ThreadSanitizer sees, unlike that of `Synchronization.Mutex`).
    final class Results<T: Sendable>: @unchecked Sendable {
        let lock = NSLock()
        var values: [Result<T, any Error>] = []
    }

    /// Runs `body` on `threadCount` threads started together, and returns what each returned.
    static func onThreads<T: Sendable>(_ body: @escaping @Sendable () throws -> T) throws -> [T] {
        let results = Results<T>()
        let start = DispatchSemaphore(value: 0)
        let done = DispatchGroup()
        for _ in 0..<threadCount {
            done.enter()
            Thread {
                start.wait()
                let result = Result { try body() }
                results.lock.withLock { results.values.append(result) }
                done.leave()
            }.start()
        }
        for _ in 0..<threadCount { start.signal() }
        done.wait()
        return try results.lock.withLock { results.values }.map { try $0.get() }
    }

    /// Digests of messages across the padding boundaries, and challenges of fixed verifiers.
    static func answers(of backend: any PKCEBackend) throws -> [String] {
        var answers: [String] = []
        for round in 0..<20 {
            for length in [0, 1, 55, 56, 63, 64, 119, 120, 1000] {
                let input = (0..<length).map { UInt8(truncatingIfNeeded: $0 &+ round) }
                answers.append(hex(backend.sha256(input)))
            }
            let verifier = try CodeVerifier(
                validating: String(repeating: "abcdefghijklmnopqrstuvwxyz"[round], count: 43 + round))
            answers.append(CodeChallenge(verifier: verifier, using: backend).value)
        }
        return answers
    }

    @Test("SHA-256 and challenges on 8 threads equal those of one thread", arguments: backends)
    func hashing(backend: any PKCEBackend) throws {
        let expected = try Self.answers(of: backend)
        let concurrent = try Self.onThreads { try Self.answers(of: backend) }
        #expect(concurrent.count == Self.threadCount)
        #expect(concurrent.allSatisfy { $0 == expected })
    }

    @Test("Verifiers generated on 8 threads are all valid and all different", arguments: backends)
    func randomness(backend: any PKCEBackend) throws {
        let perThread = try Self.onThreads {
            try (0..<200).map { _ in try CodeVerifier.generate(length: 64, using: backend).value }
        }
        let all = perThread.flatMap { $0 }
        #expect(all.count == Self.threadCount * 200)
        #expect(Set(all).count == all.count)
        for value in all {
            #expect(throws: Never.self) { try CodeVerifier(validating: value) }
        }
    }
}

extension String {
    fileprivate subscript(offset: Int) -> Character {
        self[index(startIndex, offsetBy: offset % count)]
    }
}
