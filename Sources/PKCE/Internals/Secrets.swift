internal import CPKCESystem

/// Compares two byte sequences in time that depends on their lengths only.
///
/// Lengths are compared first: they are public (a verifier's length is not a secret, and an S256
/// challenge always has 43 characters). Then every byte is XORed and the differences ORed
/// together, with no early exit, as swift-crypto's `safeCompare` does.
func constantTimeEquals(_ lhs: UnsafeRawBufferPointer, _ rhs: UnsafeRawBufferPointer) -> Bool {
    guard lhs.count == rhs.count else { return false }
    var difference: UInt8 = 0
    for index in 0..<lhs.count {
        difference |= lhs[index] ^ rhs[index]
    }
    return difference == 0
}

/// Overwrites `buffer` with zeros, in a way the optimiser may not remove as a dead store.
func zeroize(_ buffer: UnsafeMutableRawBufferPointer) {
    guard let base = buffer.baseAddress else { return }
    CPKCESystem_zeroize(base, buffer.count)
}
