internal import PKCESHAExtensions

/// The S256 challenges of many verifiers on the CPU's SHA instructions, two at a time: the batch
/// of ``SwiftBackend`` where ``SHA256/Implementation/selected`` is the SHA extensions.
///
/// On those instructions one message's rounds wait for each other, and a second message's fill
/// the waits: two messages take little longer than one. Each is padded in a stack buffer as
/// ``SHA256Lanes`` pads its lanes, which is wiped at the end.
enum SHA256Pairs {
    /// The most bytes a padded verifier takes: three blocks.
    private static let messageBytes = (CodeVerifier.allowedLengths.upperBound + 9 + 63) / 64 * 64

    /// The S256 challenges of `verifiers`, in order.
    ///
    /// - Precondition: ``SHA256/Implementation/shaExtensions`` is available.
    static func challenges(for verifiers: [CodeVerifier]) -> [CodeChallenge] {
        [CodeChallenge](unsafeUninitializedCapacity: verifiers.count) { challenges, initialized in
            withUnsafeTemporaryAllocation(byteCount: 2 * messageBytes, alignment: 16) { blocks in
                let first = blocks.baseAddress!
                let second = first + messageBytes
                verifiers.withUnsafeBufferPointer { verifiers in
                    for index in stride(from: 0, to: verifiers.count, by: 2) {
                        var firstState = SHA256.State().words
                        let firstCount = SHA256Lanes.pad(
                            VerifierCharacters.bytes(of: verifiers.baseAddress! + index), into: first)
                        if index + 1 < verifiers.count {
                            var secondState = SHA256.State().words
                            let secondCount = SHA256Lanes.pad(
                                VerifierCharacters.bytes(of: verifiers.baseAddress! + index + 1), into: second)
                            // Together as far as both go; the longer one's last blocks alone.
                            let common = min(firstCount, secondCount)
                            SHA256Extensions.compressPair(
                                &firstState, blocks: first, &secondState, blocks: second, count: common)
                            SHA256Extensions.compress(
                                &firstState, blocks: first + common * 64, count: firstCount - common)
                            SHA256Extensions.compress(
                                &secondState, blocks: second + common * 64, count: secondCount - common)
                            (challenges.baseAddress! + index + 1).initialize(to: challenge(of: secondState))
                        } else {
                            SHA256Extensions.compress(&firstState, blocks: first, count: firstCount)
                        }
                        (challenges.baseAddress! + index).initialize(to: challenge(of: firstState))
                    }
                }
                zeroize(blocks)
            }
            initialized = verifiers.count
        }
    }

    @inline(__always)
    private static func challenge(of state: SIMD8<UInt32>) -> CodeChallenge {
        CodeChallenge(s256: S256Characters { state[$0] })
    }
}
