import PKCE

/// The check every backend passes before any of its cases is timed: RFC 7636 Appendix B, FIPS
/// 180-4 SHA-256 examples, batch against single derivation, agreement with the pure-Swift
/// SHA-256's portable path, and random bytes that are not constant. The article "Method"
/// ("Correctness first") lists the inputs.
public enum Correctness {
    /// RFC 7636 Appendix B.
    static let appendixBVerifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
    static let appendixBChallenge = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"

    /// FIPS 180-4 examples: one block, and a message whose padding needs a second block.
    static let fipsVectors: KeyValuePairs<String, String> = [
        "abc": "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
        "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq":
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
    ]

    /// Message lengths on both sides of the padding boundaries (55/56, 63/64, 119/120) and beyond.
    static let agreementLengths = [0, 1, 31, 32, 55, 56, 57, 63, 64, 65, 119, 120, 127, 128, 1000, 4096]

    /// Checks each of `backends` that one of `cases` uses, and refuses them all at the first that
    /// fails.
    ///
    /// - Throws: ``BenchError`` (`.backendFailed`) naming the first failing backend and why.
    package static func require(_ backends: [any PKCEBackend], usedBy cases: [BenchmarkCase]) throws(BenchError) {
        try require(backends, named: Set(cases.map(\.backend.name)))
    }

    /// Checks each of `backends` that `names` names, and refuses them all at the first that fails.
    ///
    /// - Throws: ``BenchError`` (`.backendFailed`) naming the first failing backend and why.
    package static func require(_ backends: [any PKCEBackend], named names: Set<String>) throws(BenchError) {
        // In order, stopping at the first failure: a later backend is not run once one failed.
        for backend in backends where names.contains(backend.name) {
            if let reason = check(backend) {
                throw BenchError(.backendFailed, "backend \(backend.name) failed its correctness check: \(reason)")
            }
        }
    }

    /// Checks `backend`.
    ///
    /// - Returns: Why the backend fails, or `nil` when it passes.
    public static func check(_ backend: any PKCEBackend) -> String? {
        for (message, expected) in fipsVectors {
            let digest = hex(backend.sha256(Array(message.utf8)))
            if digest != expected {
                return "SHA-256 of \"\(message)\" is \(digest), FIPS 180-4 gives \(expected)"
            }
        }

        let verifier: CodeVerifier
        do {
            verifier = try CodeVerifier(validating: appendixBVerifier)
        } catch {
            return "the RFC 7636 Appendix B verifier does not validate: \(logDescription(of: error))"
        }
        let challenge = CodeChallenge(verifier: verifier, using: backend)
        if challenge.value != appendixBChallenge {
            return "the RFC 7636 Appendix B challenge comes out as \(challenge.value), not \(appendixBChallenge)"
        }
        do {
            let stored = try CodeChallenge(validating: appendixBChallenge, method: .s256)
            _ = try CodeChallenge.verify(presented: appendixBVerifier, against: stored, using: backend)
        } catch {
            return "the RFC 7636 Appendix B verifier does not verify: \(logDescription(of: error))"
        }

        // Batches: lengths of one, two and three blocks mixed, in numbers that leave a lane
        // group short, against the one-at-a-time result.
        do {
            let batch = try (0..<21).map { index in
                try CodeVerifier.generate(length: [43, 55, 56, 119, 120, 128][index % 6], using: SwiftBackend())
            }
            for count in [1, 5, 21] {
                let verifiers = Array(batch.prefix(count))
                if backend.challenges(for: verifiers).map(\.value)
                    != verifiers.map({ CodeChallenge(verifier: $0, using: backend).value })
                {
                    return "challenges(for:) of \(count) verifiers differs from deriving them one at a time"
                }
            }
        } catch {
            return "cannot make verifiers for the batch check: \(logDescription(of: error))"
        }

        let reference = SwiftBackend.portable
        for length in agreementLengths {
            let message = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ length) }
            if backend.sha256(message) != reference.sha256(message) {
                return "SHA-256 of a \(length)-byte message differs from the pure-Swift reference (its portable path)"
            }
        }

        do {
            var first = [UInt8](repeating: 0, count: 64)
            var second = [UInt8](repeating: 0, count: 64)
            try first.withUnsafeMutableBytes { try backend.fillRandom($0) }
            try second.withUnsafeMutableBytes { try backend.fillRandom($0) }
            if Set(first).count == 1 || Set(second).count == 1 || first == second {
                return "fillRandom returns constant bytes"
            }
            let generated = try CodeVerifier.generate(length: 43, using: backend)
            _ = try CodeVerifier(validating: generated.value)
        } catch {
            // A backend that says its randomness cannot fail has broken its word as well.
            let promise = backend.randomnessCanFail ? "" : ", though the backend says its randomness cannot fail"
            return "randomness failed\(promise): \(logDescription(of: error))"
        }
        return nil
    }

    private static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String(format: "%02x", $0) }.joined()
    }
}

/// The former name of ``Correctness``.
@available(*, deprecated, renamed: "Correctness")
public typealias CorrectnessGate = Correctness
