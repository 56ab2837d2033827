/// SHA-256 as FIPS 180-4 §6.2 defines it, over a message held in memory.
///
/// Nothing is allocated on the heap: the state lives in locals, the message schedule and the padded
/// final blocks in stack buffers.
enum SHA256 {
    /// The first 32 bits of the fractional parts of the cube roots of the first 64 primes
    /// (FIPS 180-4 §4.2.2).
    private static let roundConstants:
        (
            UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32,
            UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32,
            UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32,
            UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32,
            UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32,
            UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32,
            UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32,
            UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32
        ) = (
            0x428a_2f98, 0x7137_4491, 0xb5c0_fbcf, 0xe9b5_dba5, 0x3956_c25b, 0x59f1_11f1, 0x923f_82a4, 0xab1c_5ed5,
            0xd807_aa98, 0x1283_5b01, 0x2431_85be, 0x550c_7dc3, 0x72be_5d74, 0x80de_b1fe, 0x9bdc_06a7, 0xc19b_f174,
            0xe49b_69c1, 0xefbe_4786, 0x0fc1_9dc6, 0x240c_a1cc, 0x2de9_2c6f, 0x4a74_84aa, 0x5cb0_a9dc, 0x76f9_88da,
            0x983e_5152, 0xa831_c66d, 0xb003_27c8, 0xbf59_7fc7, 0xc6e0_0bf3, 0xd5a7_9147, 0x06ca_6351, 0x1429_2967,
            0x27b7_0a85, 0x2e1b_2138, 0x4d2c_6dfc, 0x5338_0d13, 0x650a_7354, 0x766a_0abb, 0x81c2_c92e, 0x9272_2c85,
            0xa2bf_e8a1, 0xa81a_664b, 0xc24b_8b70, 0xc76c_51a3, 0xd192_e819, 0xd699_0624, 0xf40e_3585, 0x106a_a070,
            0x19a4_c116, 0x1e37_6c08, 0x2748_774c, 0x34b0_bcb5, 0x391c_0cb3, 0x4ed8_aa4a, 0x5b9c_ca4f, 0x682e_6ff3,
            0x748f_82ee, 0x78a5_636f, 0x84c8_7814, 0x8cc7_0208, 0x90be_fffa, 0xa450_6ceb, 0xbef9_a3f7, 0xc671_78f2
        )

    /// The working state: the eight 32-bit words H0…H7 of FIPS 180-4 §6.2.
    private struct State {
        // The first 32 bits of the fractional parts of the square roots of the first 8 primes (§5.3.3).
        var a: UInt32 = 0x6a09_e667, b: UInt32 = 0xbb67_ae85, c: UInt32 = 0x3c6e_f372, d: UInt32 = 0xa54f_f53a
        var e: UInt32 = 0x510e_527f, f: UInt32 = 0x9b05_688c, g: UInt32 = 0x1f83_d9ab, h: UInt32 = 0x5be0_cd19
    }

    /// Hashes `message` and writes the 32-byte digest to the start of `digest`.
    static func hash(_ message: UnsafeRawBufferPointer, into digest: UnsafeMutableRawBufferPointer) {
        precondition(digest.count >= sha256ByteCount, "a SHA-256 digest needs 32 bytes")
        var state = State()
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { schedule in
            withUnsafeTemporaryAllocation(byteCount: 128, alignment: 8) { tail in
                withUnsafeBytes(of: roundConstants) { constants in
                    let constants = constants.assumingMemoryBound(to: UInt32.self)

                    let wholeBlocks = message.count / 64
                    for block in 0..<wholeBlocks {
                        compress(
                            &state, block: UnsafeRawBufferPointer(rebasing: message[block * 64..<block * 64 + 64]),
                            schedule: schedule, constants: constants)
                    }

                    // Padding (§5.1.1): the remaining bytes, a 1 bit, zeros, and the message length in bits
                    // as a 64-bit big-endian integer, filling one block, or two when fewer than 9 bytes remain.
                    let remaining = message.count - wholeBlocks * 64
                    let tailBlocks = remaining < 56 ? 1 : 2
                    let tail = UnsafeMutableRawBufferPointer(rebasing: tail[..<(tailBlocks * 64)])
                    tail.initializeMemory(as: UInt8.self, repeating: 0)
                    if remaining > 0 {
                        tail.copyMemory(from: UnsafeRawBufferPointer(rebasing: message[(wholeBlocks * 64)...]))
                    }
                    tail[remaining] = 0x80
                    tail.storeBytes(
                        of: (UInt64(message.count) &* 8).bigEndian, toByteOffset: tail.count - 8, as: UInt64.self)
                    for block in 0..<tailBlocks {
                        compress(
                            &state, block: UnsafeRawBufferPointer(rebasing: tail[block * 64..<block * 64 + 64]),
                            schedule: schedule, constants: constants)
                    }
                }
            }
        }
        digest.storeBytes(of: state.a.bigEndian, toByteOffset: 0, as: UInt32.self)
        digest.storeBytes(of: state.b.bigEndian, toByteOffset: 4, as: UInt32.self)
        digest.storeBytes(of: state.c.bigEndian, toByteOffset: 8, as: UInt32.self)
        digest.storeBytes(of: state.d.bigEndian, toByteOffset: 12, as: UInt32.self)
        digest.storeBytes(of: state.e.bigEndian, toByteOffset: 16, as: UInt32.self)
        digest.storeBytes(of: state.f.bigEndian, toByteOffset: 20, as: UInt32.self)
        digest.storeBytes(of: state.g.bigEndian, toByteOffset: 24, as: UInt32.self)
        digest.storeBytes(of: state.h.bigEndian, toByteOffset: 28, as: UInt32.self)
    }

    /// Processes one 64-byte block (§6.2.2).
    ///
    /// Written for speed without leaving safe arithmetic's meaning: wrapping additions (`&+`),
    /// masking shifts, the schedule in a stack buffer without bounds checks in release builds, and
    /// the rounds unrolled eight at a time so that the working variables change roles instead of
    /// being moved (as C implementations do with their round macros).
    @inline(__always)
    private static func compress(
        _ state: inout State,
        block: UnsafeRawBufferPointer,
        schedule w: UnsafeMutableBufferPointer<UInt32>,
        constants k: UnsafeBufferPointer<UInt32>
    ) {
        for t in 0..<16 {
            w[t] = UInt32(bigEndian: block.loadUnaligned(fromByteOffset: t &* 4, as: UInt32.self))
        }
        for t in 16..<64 {
            let x = w[t &- 15], y = w[t &- 2]
            let s0 = x.rotatedRight(7) ^ x.rotatedRight(18) ^ (x &>> 3)
            let s1 = y.rotatedRight(17) ^ y.rotatedRight(19) ^ (y &>> 10)
            w[t] = w[t &- 16] &+ s0 &+ w[t &- 7] &+ s1
        }

        var (a, b, c, d, e, f, g, h) = (state.a, state.b, state.c, state.d, state.e, state.f, state.g, state.h)
        for t in stride(from: 0, to: 64, by: 8) {
            round(a, b, c, &d, e, f, g, &h, k[t] &+ w[t])
            round(h, a, b, &c, d, e, f, &g, k[t &+ 1] &+ w[t &+ 1])
            round(g, h, a, &b, c, d, e, &f, k[t &+ 2] &+ w[t &+ 2])
            round(f, g, h, &a, b, c, d, &e, k[t &+ 3] &+ w[t &+ 3])
            round(e, f, g, &h, a, b, c, &d, k[t &+ 4] &+ w[t &+ 4])
            round(d, e, f, &g, h, a, b, &c, k[t &+ 5] &+ w[t &+ 5])
            round(c, d, e, &f, g, h, a, &b, k[t &+ 6] &+ w[t &+ 6])
            round(b, c, d, &e, f, g, h, &a, k[t &+ 7] &+ w[t &+ 7])
        }
        state.a &+= a
        state.b &+= b
        state.c &+= c
        state.d &+= d
        state.e &+= e
        state.f &+= f
        state.g &+= g
        state.h &+= h
    }

    /// One round of §6.2.2 step 3, with the variables in the roles of a…h: instead of shifting
    /// every variable down, the caller rotates which variable plays which role, and only the two
    /// that change (d becomes the new e, h the new a) are written.
    @inline(__always)
    private static func round(
        _ a: UInt32, _ b: UInt32, _ c: UInt32, _ d: inout UInt32,
        _ e: UInt32, _ f: UInt32, _ g: UInt32, _ h: inout UInt32,
        _ constantPlusWord: UInt32
    ) {
        let sigma1 = e.rotatedRight(6) ^ e.rotatedRight(11) ^ e.rotatedRight(25)
        let choose = g ^ (e & (f ^ g))  // (e ∧ f) ⊕ (¬e ∧ g)
        let t1 = h &+ sigma1 &+ choose &+ constantPlusWord
        let sigma0 = a.rotatedRight(2) ^ a.rotatedRight(13) ^ a.rotatedRight(22)
        let majority = (a & b) | (c & (a | b))  // (a ∧ b) ⊕ (a ∧ c) ⊕ (b ∧ c)
        d = d &+ t1
        h = t1 &+ sigma0 &+ majority
    }
}

extension UInt32 {
    /// ROTR^n(x) of FIPS 180-4 §3.2.
    @inline(__always)
    fileprivate func rotatedRight(_ count: UInt32) -> UInt32 {
        self &>> count | self &<< (32 &- count)
    }
}
