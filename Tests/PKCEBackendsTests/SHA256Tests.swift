@testable import PKCE
import PKCEBackends
import Testing

@Suite("SHA-256 of every backend")
struct SHA256Tests {
    @Test("FIPS 180-4 vectors", arguments: backends, Vectors.fips180)
    func fips180(backend: any PKCEBackend, vector: Vectors.SHA256Vector) {
        #expect(hex(backend.sha256(vector.message)) == vector.digest)
    }

    /// Hand-written SHA-256 breaks at the padding boundaries (55/56, 63/64, 119/120 bytes), so every
    /// length up to 300 is checked, plus a few lengths of 1 KiB to 64 KiB and one off them.
    static let lengths = Array(0...300) + [1023, 1024, 1025, 4096, 16_383, 16_384, 65_535, 65_536]

    @Test("Every backend agrees with every other, byte for byte", arguments: lengths)
    func agreement(length: Int) throws {
        let input = message(ofLength: length)
        let digests = backends.map { $0.sha256(input) }
        for (backend, digest) in zip(backends, digests) {
            #expect(digest == digests[0], "\(backend.name) differs from \(backends[0].name) at \(length) bytes")
        }
        #expect(digests[0].count == 32)
    }

    /// Each path of the pure-Swift hash that this machine runs: the SHA instructions and AVX2 where
    /// the CPU has them, and the portable paths, whichever the backend selected.
    static let swiftPaths = SHA256.Implementation.allCases.filter(\.isAvailable)

    /// Every SHA-256 under test: each backend's, and each path of the pure-Swift hash.
    static let underTest =
        backends.map { backend in SHA256UnderTest(testDescription: backend.name) { backend.sha256($0) } }
        + swiftPaths.map { path in
            SHA256UnderTest(testDescription: "swift on \(path.name)") { digest(of: $0, on: path) }
        }

    @Test("The NIST CAVS files read whole: 65 short messages, 64 long ones, 100 Monte Carlo checkpoints")
    func cavsFiles() {
        #expect(Vectors.cavs.count == 129)
        #expect(Vectors.cavs.prefix(65).map(\.message.count) == Array(0...64))
        #expect(Vectors.cavsMonte.seed.count == 32)
        #expect(Vectors.cavsMonte.checkpoints.count == 100)
    }

    @Test("NIST CAVS vectors: every message length to 64 bytes, and long messages", arguments: underTest)
    func cavs(sha256: SHA256UnderTest) {
        for vector in Vectors.cavs {
            #expect(hex(sha256.hash(vector.message)) == vector.digest, "\(vector.message.count) bytes")
        }
    }

    /// SHAVS §6.4: each checkpoint's digest is the seed of the next 1,000 hashes, each of the last
    /// three digests concatenated.
    @Test("NIST CAVS Monte Carlo test: 100,000 chained hashes", arguments: underTest)
    func cavsMonte(sha256: SHA256UnderTest) {
        var seed = Vectors.cavsMonte.seed
        for checkpoint in Vectors.cavsMonte.checkpoints {
            var (first, second, third) = (seed, seed, seed)
            for _ in 0..<1000 {
                (first, second, third) = (second, third, sha256.hash(first + second + third))
            }
            seed = third
            #expect(hex(seed) == checkpoint)
        }
    }

    @Test("Each path of the pure-Swift hash: FIPS 180-4 vectors", arguments: swiftPaths, Vectors.fips180)
    func pathVectors(path: SHA256.Implementation, vector: Vectors.SHA256Vector) {
        #expect(hex(Self.digest(of: vector.message, on: path)) == vector.digest)
    }

    @Test("Each path of the pure-Swift hash: an empty message with no address", arguments: swiftPaths)
    func emptyWithoutAddress(path: SHA256.Implementation) {
        var digest = [UInt8](repeating: 0, count: 32)
        digest.withUnsafeMutableBytes {
            SHA256.hash(UnsafeRawBufferPointer(start: nil, count: 0), into: $0, using: path)
        }
        #expect(hex(digest) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }

    @Test("Each path of the pure-Swift hash agrees with the scalar one", arguments: lengths)
    func pathsAgree(length: Int) {
        let input = message(ofLength: length)
        let scalar = Self.digest(of: input, on: .scalarSchedule)
        for path in Self.swiftPaths {
            #expect(Self.digest(of: input, on: path) == scalar, "\(path.name)")
        }
    }

    #if os(Linux) && arch(x86_64)
    /// Each path runs exactly where the kernel reports its instructions (a kernel that does not
    /// save the AVX registers does not report AVX2), so that the tests above do not pass on a build
    /// that lost a path, nor take one on a CPU without it.
    @Test("The pure-Swift hash runs on the fastest path the CPU has, unless told otherwise")
    func selectsByCPU() {
        #expect(SHA256.Implementation.shaExtensions.isAvailable == Self.kernelReports("sha_ni", "ssse3"))
        #expect(SHA256.Implementation.avx2.isAvailable == Self.kernelReports("avx2", "bmi1", "bmi2"))
        #expect(SHA256.Implementation.vectorSchedule.isAvailable)
        let fastest = SHA256.Implementation.allCases.first(where: \.isAvailable)
        if SHA256.Implementation.requested == nil {
            #expect(SHA256.Implementation.selected == fastest)
        }
    }
    #endif

    /// Whether `/proc/cpuinfo` lists each of `flags` (`false` where there is no such file).
    static func kernelReports(_ flags: String...) -> Bool {
        guard let cpuinfo = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8),
            let line = cpuinfo.split(separator: "\n").first(where: { $0.hasPrefix("flags") })
        else { return false }
        let reported = Set(line.split(separator: " ").map(String.init))
        return flags.allSatisfy(reported.contains)
    }

    @Test("PKCE_SWIFT_SHA256 chooses the path it names where it can run, and nothing else does")
    func choice() {
        typealias Path = SHA256.Implementation
        let everywhere: (Path) -> Bool = { _ in true }
        let noSHA: (Path) -> Bool = { $0 != .shaExtensions }
        let baseline: (Path) -> Bool = { $0 == .vectorSchedule || $0 == .scalarSchedule }
        func request(_ value: String) -> (value: String, path: Path?) { (value, Path(environmentValue: value)) }
        // Unset: the first path that can run.
        #expect(Path.choose(requesting: nil, isAvailable: everywhere) == .shaExtensions)
        #expect(Path.choose(requesting: nil, isAvailable: noSHA) == .avx2)
        #expect(Path.choose(requesting: nil, isAvailable: baseline) == .vectorSchedule)
        // Every path's value forces it where it can run, and is ignored where it cannot.
        for path in Path.allCases {
            #expect(Path(environmentValue: path.environmentValue) == path)
            #expect(Path.choose(requesting: request(path.environmentValue), isAvailable: everywhere) == path)
        }
        #expect(Path.choose(requesting: request("sha-extensions"), isAvailable: noSHA) == .avx2)
        #expect(Path.choose(requesting: request("avx2"), isAvailable: baseline) == .vectorSchedule)
        // `portable` is the architecture's baseline path; other values name nothing.
        #expect(Path.choose(requesting: request("portable"), isAvailable: everywhere) == Path.portable)
        for value in ["", "AVX2", "sse", "native", "portable "] {
            #expect(Path(environmentValue: value) == nil, "\(value)")
            #expect(Path.choose(requesting: request(value), isAvailable: noSHA) == .avx2)
        }
    }

    private static func digest(of message: [UInt8], on path: SHA256.Implementation) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 32)
        message.withUnsafeBytes { message in
            digest.withUnsafeMutableBytes { SHA256.hash(message, into: $0, using: path) }
        }
        return digest
    }

    @Test("The digest lands in the caller's buffer, and only in its first 32 bytes", arguments: backends)
    func callerBuffer(backend: any PKCEBackend) {
        let input = Array("abc".utf8)
        var digest = [UInt8](repeating: 0xAA, count: 40)
        input.withUnsafeBytes { message in
            digest.withUnsafeMutableBytes { backend.sha256(message, into: $0) }
        }
        #expect(hex(Array(digest[..<32])) == Vectors.fips180[1].digest)
        #expect(digest[32...].allSatisfy { $0 == 0xAA })
    }
}

/// A SHA-256 function under test, named for the test's arguments.
struct SHA256UnderTest: CustomTestStringConvertible, Sendable {
    let testDescription: String
    let hash: @Sendable ([UInt8]) -> [UInt8]
}
