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

    /// On x86-64 the pure-Swift hash computes its message schedule in vector registers; the
    /// scalar schedule, which other machines use, is checked here too, against the same vectors
    /// and against the path this machine uses.
    @Test("The pure-Swift hash's scalar schedule: FIPS 180-4 vectors", arguments: Vectors.fips180)
    func scalarSchedule(vector: Vectors.SHA256Vector) {
        #expect(hex(Self.digest(of: vector.message, scalar: true)) == vector.digest)
    }

    #if arch(x86_64) && canImport(_Builtin_intrinsics.intel)
    @Test("The pure-Swift hash's two schedules agree", arguments: lengths)
    func schedulesAgree(length: Int) {
        let input = message(ofLength: length)
        #expect(Self.digest(of: input, scalar: true) == Self.digest(of: input, scalar: false))
    }
    #endif

    private static func digest(of message: [UInt8], scalar: Bool) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 32)
        message.withUnsafeBytes { message in
            digest.withUnsafeMutableBytes {
                if scalar {
                    SHA256.hashWithScalarSchedule(message, into: $0)
                } else {
                    SHA256.hash(message, into: $0)
                }
            }
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
