import PKCEBackends
import Testing

@Suite("Randomness and generated verifiers of every backend")
struct RandomTests {
    @Test("Two fills differ and neither is constant", arguments: backends)
    func fillsDiffer(backend: any PKCEBackend) throws {
        var first = [UInt8](repeating: 0, count: 64)
        var second = [UInt8](repeating: 0, count: 64)
        try first.withUnsafeMutableBytes { try backend.fillRandom($0) }
        try second.withUnsafeMutableBytes { try backend.fillRandom($0) }
        #expect(first != second)
        #expect(Set(first).count > 1)
        #expect(Set(second).count > 1)
    }

    @Test("Odd sizes are filled to the last byte", arguments: backends, [1, 7, 9, 33, 1000])
    func oddSizes(backend: any PKCEBackend, size: Int) throws {
        // The chance that a random byte equals the sentinel in 8 tries in a row is 2^-64.
        var lastByteChanged = false
        for _ in 0..<8 where !lastByteChanged {
            var buffer = [UInt8](repeating: 0xA5, count: size)
            try buffer.withUnsafeMutableBytes { try backend.fillRandom($0) }
            lastByteChanged = buffer[size - 1] != 0xA5
        }
        #expect(lastByteChanged)
    }

    @Test("Generated verifiers have the asked length and only unreserved characters", arguments: backends)
    func generatedVerifiers(backend: any PKCEBackend) throws {
        let unreserved = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~".utf8)
        for length in CodeVerifier.allowedLengths {
            let verifier = try CodeVerifier.generate(length: length, using: backend)
            #expect(verifier.value.utf8.count == length)
            #expect(verifier.value.utf8.allSatisfy(unreserved.contains))
            #expect(throws: Never.self) { try CodeVerifier(validating: verifier.value) }
        }
    }

    @Test("Two generated verifiers differ", arguments: backends)
    func verifiersDiffer(backend: any PKCEBackend) throws {
        let first = try CodeVerifier.generate(using: backend)
        let second = try CodeVerifier.generate(using: backend)
        #expect(first.value != second.value)
    }

    @Test("Lengths outside 43…128 throw", arguments: backends, [-1, 0, 42, 129, 1000])
    func badLengths(backend: any PKCEBackend, length: Int) {
        #expect(throws: PKCEError.invalidLength(.codeVerifier, length: length)) {
            try CodeVerifier.generate(length: length, using: backend)
        }
    }
}
