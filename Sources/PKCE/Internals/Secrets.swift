internal import CPKCESystem

/// Compares two byte sequences in time that depends on their lengths only.
///
/// Lengths are compared first: they are public (a verifier's length is not a secret, and an S256
/// challenge always has 43 characters). Then the sequences are XORed eight bytes at a time, then
/// byte by byte, and the differences ORed together with no early exit, as BoringSSL's
/// `CRYPTO_memcmp` does (which swift-crypto's `safeCompare` calls on Linux). The accumulator
/// passes through an optimisation barrier at every step, so that the compiler cannot stop the
/// loop once it knows the answer.
func constantTimeEquals(_ lhs: UnsafeRawBufferPointer, _ rhs: UnsafeRawBufferPointer) -> Bool {
    guard lhs.count == rhs.count, let left = lhs.baseAddress, let right = rhs.baseAddress else {
        return lhs.count == rhs.count
    }
    var difference: UInt64 = 0
    var offset = 0
    while offset &+ 8 <= lhs.count {
        let word =
            left.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
            ^ right.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
        difference = CPKCESystem_valueBarrier(difference | word)
        offset &+= 8
    }
    while offset < lhs.count {
        let byte =
            left.load(fromByteOffset: offset, as: UInt8.self) ^ right.load(fromByteOffset: offset, as: UInt8.self)
        difference = CPKCESystem_valueBarrier(difference | UInt64(byte))
        offset &+= 1
    }
    return difference == 0
}

/// Whether every byte of `buffer` is zero, read in full whatever the bytes are: eight at a time,
/// then the rest.
@inline(__always)
func isAllZero(_ buffer: UnsafeRawBufferPointer) -> Bool {
    guard let base = buffer.baseAddress else { return true }
    var bits: UInt64 = 0
    var offset = 0
    while offset &+ 8 <= buffer.count {
        bits |= base.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
        offset &+= 8
    }
    while offset < buffer.count {
        bits |= UInt64(base.load(fromByteOffset: offset, as: UInt8.self))
        offset &+= 1
    }
    return bits == 0
}

/// Overwrites `buffer` with zeros, in a way the optimiser may not remove as a dead store.
func zeroize(_ buffer: UnsafeMutableRawBufferPointer) {
    guard let base = buffer.baseAddress else { return }
    CPKCESystem_zeroize(base, buffer.count)
}
