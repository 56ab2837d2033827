internal import CPKCESystem
internal import PKCESHAAVX2
internal import PKCESHAExtensions

/// SHA-256 as FIPS 180-4 §6.2 defines it, over a message held in memory.
///
/// The compression function runs on the CPU's SHA instructions where it has them
/// (`PKCESHAExtensions`), else on AVX2 where it has that (`PKCESHAAVX2`), else on the portable path
/// (``Implementation``). Nothing is allocated on the heap: the state lives in locals; the padded
/// final blocks and, on the portable paths, a copy of the block being compressed and, except on
/// x86-64, the message schedule's last 16 words in a stack buffer, as is the AVX2 path's schedule
/// of two blocks, all wiped before returning. On x86-64 the portable schedule lives in vector
/// registers (`SHA256+VectorSchedule.swift`), as do the SHA instructions'.
enum SHA256 {
    /// The round constants K₀…K₆₃ (§4.2.2): the first 32 bits of the fractional parts of the cube
    /// roots of the first 64 primes.
    static let roundConstants:
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

    /// The working state: the eight 32-bit words H0…H7 of FIPS 180-4 §6.2. (This type, ``round``,
    /// ``bigSigma0(_:)`` and `UInt32.rotatedRight(_:)` are internal, not private, because
    /// `SHA256+VectorSchedule.swift` uses them.)
    struct State {
        // The first 32 bits of the fractional parts of the square roots of the first 8 primes (§5.3.3).
        var a: UInt32 = 0x6a09_e667, b: UInt32 = 0xbb67_ae85, c: UInt32 = 0x3c6e_f372, d: UInt32 = 0xa54f_f53a
        var e: UInt32 = 0x510e_527f, f: UInt32 = 0x9b05_688c, g: UInt32 = 0x1f83_d9ab, h: UInt32 = 0x5be0_cd19

        /// Adds a block's working variables a…h to the state (§6.2.2 step 4).
        @inline(__always)
        mutating func add(
            _ a: UInt32, _ b: UInt32, _ c: UInt32, _ d: UInt32, _ e: UInt32, _ f: UInt32, _ g: UInt32, _ h: UInt32
        ) {
            self.a &+= a
            self.b &+= b
            self.c &+= c
            self.d &+= d
            self.e &+= e
            self.f &+= f
            self.g &+= g
            self.h &+= h
        }
    }

    /// ``hash(_:into:on:)`` on a path that may not be available: what tests call to check each
    /// path this machine can run.
    ///
    /// - Precondition: `implementation.isAvailable`.
    static func hash(
        _ message: UnsafeRawBufferPointer, into digest: UnsafeMutableRawBufferPointer,
        using implementation: Implementation
    ) {
        precondition(implementation.isAvailable, "\(implementation.name) cannot run here")
        hash(message, into: digest, on: implementation)
    }

    /// Hashes `message` and writes the 32-byte digest to the start of `digest`, on
    /// `implementation`, which must be available (``Implementation/selected`` always is).
    @inline(__always)
    static func hash(
        _ message: UnsafeRawBufferPointer, into digest: UnsafeMutableRawBufferPointer, on implementation: Implementation
    ) {
        switch implementation {
        case .shaExtensions: hashOnSHAExtensions(message, into: digest)
        case .avx2: hashOnAVX2(message, into: digest)
        case .vectorSchedule: hashWithVectorSchedule(message, into: digest)
        case .scalarSchedule: hashWithScalarSchedule(message, into: digest)
        }
    }

    // One function per path, never inlined into the caller's: inlined together, the paths shared
    // one frame, and the portable one took up to 10% longer for short messages than it did alone.

    @inline(never)
    private static func hashOnSHAExtensions(
        _ message: UnsafeRawBufferPointer, into digest: UnsafeMutableRawBufferPointer
    ) {
        hash(message, into: digest, compression: .shaExtensions)
    }

    @inline(never)
    private static func hashOnAVX2(_ message: UnsafeRawBufferPointer, into digest: UnsafeMutableRawBufferPointer) {
        hash(message, into: digest, compression: .avx2)
    }

    @inline(never)
    private static func hashWithVectorSchedule(
        _ message: UnsafeRawBufferPointer, into digest: UnsafeMutableRawBufferPointer
    ) {
        hash(message, into: digest, compression: .vectorSchedule)
    }

    @inline(never)
    private static func hashWithScalarSchedule(
        _ message: UnsafeRawBufferPointer, into digest: UnsafeMutableRawBufferPointer
    ) {
        hash(message, into: digest, compression: .scalarSchedule)
    }

    /// The `count` bytes at `bytes`, fewer than 8, as a little-endian integer: one load of 4
    /// bytes, of 2 and of 1 at most, since the bytes after them may not be readable.
    @inline(__always)
    private static func littleEndianBytes(_ bytes: UnsafeRawPointer, count: Int) -> UInt64 {
        var value: UInt64 = 0
        var offset = 0
        if count & 4 != 0 {
            value = UInt64(UInt32(littleEndian: bytes.loadUnaligned(as: UInt32.self)))
            offset = 4
        }
        if count & 2 != 0 {
            let pair = UInt16(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt16.self))
            value |= UInt64(pair) &<< (8 &* UInt64(offset))
            offset &+= 2
        }
        if count & 1 != 0 {
            value |= UInt64(bytes.load(fromByteOffset: offset, as: UInt8.self)) &<< (8 &* UInt64(offset))
        }
        return value
    }

    /// Pads `message` and compresses its blocks. Always inlined, so that `kind` is a constant and
    /// the portable compression function is inlined into the loop over the blocks: passed as a
    /// closure instead, it was not, and was slower.
    @inline(__always)
    private static func hash(
        _ message: UnsafeRawBufferPointer,
        into digest: UnsafeMutableRawBufferPointer,
        compression kind: Implementation
    ) {
        precondition(digest.count >= sha256ByteCount, "a SHA-256 digest needs 32 bytes")
        var state = State()
        // One stack buffer: the scalar message schedule's last 16 words (unused by the vector
        // one), up to two padded blocks, then a copy of the message's current block.
        withUnsafeTemporaryAllocation(byteCount: 64 + 128 + 64, alignment: 16) { scratch in
            let scheduleWords = scratch.baseAddress!.bindMemory(to: UInt32.self, capacity: 16)
            let copy = scratch.baseAddress! + 64 + 128
            // Padding (§5.1.1): the bytes after the last whole block, a 1 bit, zeros, and the
            // message length in bits as a 64-bit big-endian integer, filling one block, or two
            // when fewer than 9 bytes are left in the first.
            let wholeBlocks = message.count / 64
            let remaining = message.count - wholeBlocks * 64
            let tailBlocks = remaining < 56 ? 1 : 2
            let tail = UnsafeMutableRawBufferPointer(rebasing: scratch[64..<(64 + tailBlocks * 64)])
            // The tail in 16-byte stores, each over 16 bytes that a load of the compression reads
            // (of 4 bytes or of 16) at once: zeros from the second 16 bytes on and the length in
            // the last 8, then over them the remaining bytes' whole 16s and their end with 0x80,
            // made in two 64-bit registers. A load of bytes that several narrower stores wrote
            // waits for them to reach the cache, and the AVX2 path took up to 75 ns longer
            // (Performance.md). Two ways to the same wait are avoided too: a vector's lane chosen
            // at run time (the compiler writes it to the stack and reads the vector back), and a
            // loop of zeros (it becomes a call to memset, whose stores are wider).
            let zeros = SIMD2<UInt64>(repeating: 0)
            tail.storeBytes(of: zeros, toByteOffset: 16, as: SIMD2<UInt64>.self)
            tail.storeBytes(of: zeros, toByteOffset: 32, as: SIMD2<UInt64>.self)
            if tailBlocks == 2 {
                for offset in stride(from: 48, to: 112, by: 16) {
                    tail.storeBytes(of: zeros, toByteOffset: offset, as: SIMD2<UInt64>.self)
                }
            }
            let lengthInBits = (UInt64(message.count) &* 8).bigEndian
            let last = tail.count &- 16
            tail.storeBytes(of: SIMD2(0, lengthInBits), toByteOffset: last, as: SIMD2<UInt64>.self)
            let rest = message.baseAddress.map { $0 + wholeBlocks &* 64 }
            var offset = 0
            while offset &+ 16 <= remaining {
                let bytes = rest.unsafelyUnwrapped.loadUnaligned(fromByteOffset: offset, as: SIMD16<UInt8>.self)
                tail.storeBytes(of: bytes, toByteOffset: offset, as: SIMD16<UInt8>.self)
                offset &+= 16
            }
            // The last 0 to 15 bytes, little-endian in `low` and `high`, then 0x80.
            let count = remaining &- offset
            let bytes = rest.map { $0 + offset }
            var low: UInt64 = 0
            var high: UInt64 = 0
            if count >= 8 {
                low = UInt64(littleEndian: bytes.unsafelyUnwrapped.loadUnaligned(as: UInt64.self))
                high = littleEndianBytes(bytes.unsafelyUnwrapped + 8, count: count &- 8)
                high |= 0x80 &<< (8 &* UInt64(count &- 8))
            } else {
                if count > 0 {
                    low = littleEndianBytes(bytes.unsafelyUnwrapped, count: count)
                }
                low |= 0x80 &<< (8 &* UInt64(count))
            }
            // In the last 16 bytes, the end fills 8 at most (the 56 above), and the length follows.
            var end = SIMD2(low.littleEndian, high.littleEndian)
            if offset == last {
                end[1] = lengthInBits
            }
            tail.storeBytes(of: end, toByteOffset: offset, as: SIMD2<UInt64>.self)

            if kind == .shaExtensions {
                // Two calls into the module compiled for the instructions, which read the
                // message's blocks where they are.
                var words = state.words
                if wholeBlocks > 0 {
                    SHA256Extensions.compress(&words, blocks: message.baseAddress!, count: wholeBlocks)
                }
                SHA256Extensions.compress(&words, blocks: tail.baseAddress!, count: tailBlocks)
                zeroize(tail)
                write(State(words), to: digest)
                return
            }
            if kind == .avx2 {
                // One call for the message's blocks and the tail's, so that the last of the one
                // and the first of the other are scheduled together; with a buffer for the
                // module's message schedule (`SHA256AVX2.scheduleByteCount`, 640 bytes, which the
                // module checks), aligned to 32 here: a temporary allocation aligned to more than
                // 16 is made on the heap, as is one whose size is not a constant (as a size from
                // the other module is not).
                withUnsafeTemporaryAllocation(byteCount: 640 + 16, alignment: 16) { buffer in
                    let offset = Int(bitPattern: buffer.baseAddress!) & 16
                    let schedule = UnsafeMutableRawBufferPointer(rebasing: buffer[offset...])
                    var words = state.words
                    SHA256AVX2.compress(
                        &words, blocks: message.baseAddress, count: wholeBlocks, then: tail.baseAddress!,
                        count: tailBlocks, schedule: schedule)
                    zeroize(buffer)
                    write(State(words), to: digest)
                }
                zeroize(tail)
                return
            }
            // One loop over the message's blocks and then the tail's, so that the compression
            // function, unrolled, is inlined once. Each of the message's blocks is copied to the
            // stack with `copyMemory` and compressed from there, and the tail is written 16 bytes at
            // a time. Both were measured, not derived: without them, some lengths took far longer
            // on an AMD EPYC (Zen 5). Performance.md has the figures and what is known of why.
            for block in 0..<(wholeBlocks + tailBlocks) {
                let start: UnsafeRawPointer
                if block < wholeBlocks {
                    copy.copyMemory(from: message.baseAddress! + block &* 64, byteCount: 64)
                    start = UnsafeRawPointer(copy)
                } else {
                    start = UnsafeRawPointer(tail.baseAddress!) + (block &- wholeBlocks) &* 64
                }
                #if arch(x86_64) && canImport(_Builtin_intrinsics.intel)
                if kind == .vectorSchedule {
                    compressWithVectorSchedule(&state, block: start)
                    continue
                }
                #endif
                compress(&state, block: start, schedule: scheduleWords)
            }
            // The buffer holds the message, or words made from it: a verifier is a secret.
            zeroize(UnsafeMutableRawBufferPointer(rebasing: scratch[..<(64 + tailBlocks * 64)]))
            if wholeBlocks > 0 {
                zeroize(UnsafeMutableRawBufferPointer(start: copy, count: 64))
            }
            write(state, to: digest)
        }
    }

    /// Writes `state`, H0…H7, to the first 32 bytes of `digest` as big-endian words (§6.2.2).
    ///
    /// In eight stores of four bytes, as OpenSSL writes a digest, for a reader that loads it a
    /// word at a time (the base64url of a challenge): the optimiser merged them into two 16-byte
    /// stores, and a challenge then took about 30 ns longer than its hash, on every path, where
    /// OpenSSL's took 16 ns longer (Performance.md). Each path calls this after wiping its
    /// buffers, with the words where its compression left them: called before the wipe, the SHA
    /// path took 1.4% longer with a two-block tail; called once after the buffers' closure, the
    /// words were kept in registers across the wipe and spilled.
    @inline(__always)
    private static func write(_ state: State, to digest: UnsafeMutableRawBufferPointer) {
        let digest = digest.baseAddress!
        CPKCESystem_storeWord(digest, state.a.bigEndian)
        CPKCESystem_storeWord(digest + 4, state.b.bigEndian)
        CPKCESystem_storeWord(digest + 8, state.c.bigEndian)
        CPKCESystem_storeWord(digest + 12, state.d.bigEndian)
        CPKCESystem_storeWord(digest + 16, state.e.bigEndian)
        CPKCESystem_storeWord(digest + 20, state.f.bigEndian)
        CPKCESystem_storeWord(digest + 24, state.g.bigEndian)
        CPKCESystem_storeWord(digest + 28, state.h.bigEndian)
    }

    /// Processes one 64-byte block (§6.2.2).
    ///
    /// Written for speed without leaving safe arithmetic's meaning: wrapping additions (`&+`),
    /// masking shifts, the schedule in a stack buffer without bounds checks in release builds, and
    /// the rounds unrolled so that the working variables change roles instead of being moved (as C
    /// implementations do with their round macros).
    ///
    /// The rounds form one long chain of dependent operations, which leaves most of a CPU's
    /// execution units idle; the message schedule does not depend on them. So each word of the
    /// schedule is computed 16 rounds before its use, beside a round, where the CPU overlaps the
    /// two: faster than a schedule computed up front, while computing it eight words at a time
    /// between groups of rounds gained nothing. The 64 rounds are written out with their
    /// constants (FIPS 180-4 §4.2.2: the first 32 bits of the fractional parts of the cube roots
    /// of the first 64 primes) as literals, as C implementations' macros expand them: no register
    /// then holds a round counter or a pointer to the constants, which x86-64's 16 registers
    /// cannot spare. A loop over eight rounds at a time was slower.
    @inline(__always)
    private static func compress(
        _ state: inout State,
        block: UnsafeRawPointer,
        schedule w: UnsafeMutablePointer<UInt32>
    ) {
        for t in 0..<16 {
            w[t] = UInt32(bigEndian: block.loadUnaligned(fromByteOffset: t &* 4, as: UInt32.self))
        }
        var (a, b, c, d, e, f, g, h) = (state.a, state.b, state.c, state.d, state.e, state.f, state.g, state.h)
        var bXorC = b ^ c
        let k = roundConstants
        // Round t with constant K_t and word W_t (in w[t % 16]); after each of rounds 0…47, word t + 16.
        round(a, b, c, &d, e, f, g, &h, k.0 &+ w[0], &bXorC)
        expand(w, 0)
        round(h, a, b, &c, d, e, f, &g, k.1 &+ w[1], &bXorC)
        expand(w, 1)
        round(g, h, a, &b, c, d, e, &f, k.2 &+ w[2], &bXorC)
        expand(w, 2)
        round(f, g, h, &a, b, c, d, &e, k.3 &+ w[3], &bXorC)
        expand(w, 3)
        round(e, f, g, &h, a, b, c, &d, k.4 &+ w[4], &bXorC)
        expand(w, 4)
        round(d, e, f, &g, h, a, b, &c, k.5 &+ w[5], &bXorC)
        expand(w, 5)
        round(c, d, e, &f, g, h, a, &b, k.6 &+ w[6], &bXorC)
        expand(w, 6)
        round(b, c, d, &e, f, g, h, &a, k.7 &+ w[7], &bXorC)
        expand(w, 7)
        round(a, b, c, &d, e, f, g, &h, k.8 &+ w[8], &bXorC)
        expand(w, 8)
        round(h, a, b, &c, d, e, f, &g, k.9 &+ w[9], &bXorC)
        expand(w, 9)
        round(g, h, a, &b, c, d, e, &f, k.10 &+ w[10], &bXorC)
        expand(w, 10)
        round(f, g, h, &a, b, c, d, &e, k.11 &+ w[11], &bXorC)
        expand(w, 11)
        round(e, f, g, &h, a, b, c, &d, k.12 &+ w[12], &bXorC)
        expand(w, 12)
        round(d, e, f, &g, h, a, b, &c, k.13 &+ w[13], &bXorC)
        expand(w, 13)
        round(c, d, e, &f, g, h, a, &b, k.14 &+ w[14], &bXorC)
        expand(w, 14)
        round(b, c, d, &e, f, g, h, &a, k.15 &+ w[15], &bXorC)
        expand(w, 15)
        round(a, b, c, &d, e, f, g, &h, k.16 &+ w[0], &bXorC)
        expand(w, 16)
        round(h, a, b, &c, d, e, f, &g, k.17 &+ w[1], &bXorC)
        expand(w, 17)
        round(g, h, a, &b, c, d, e, &f, k.18 &+ w[2], &bXorC)
        expand(w, 18)
        round(f, g, h, &a, b, c, d, &e, k.19 &+ w[3], &bXorC)
        expand(w, 19)
        round(e, f, g, &h, a, b, c, &d, k.20 &+ w[4], &bXorC)
        expand(w, 20)
        round(d, e, f, &g, h, a, b, &c, k.21 &+ w[5], &bXorC)
        expand(w, 21)
        round(c, d, e, &f, g, h, a, &b, k.22 &+ w[6], &bXorC)
        expand(w, 22)
        round(b, c, d, &e, f, g, h, &a, k.23 &+ w[7], &bXorC)
        expand(w, 23)
        round(a, b, c, &d, e, f, g, &h, k.24 &+ w[8], &bXorC)
        expand(w, 24)
        round(h, a, b, &c, d, e, f, &g, k.25 &+ w[9], &bXorC)
        expand(w, 25)
        round(g, h, a, &b, c, d, e, &f, k.26 &+ w[10], &bXorC)
        expand(w, 26)
        round(f, g, h, &a, b, c, d, &e, k.27 &+ w[11], &bXorC)
        expand(w, 27)
        round(e, f, g, &h, a, b, c, &d, k.28 &+ w[12], &bXorC)
        expand(w, 28)
        round(d, e, f, &g, h, a, b, &c, k.29 &+ w[13], &bXorC)
        expand(w, 29)
        round(c, d, e, &f, g, h, a, &b, k.30 &+ w[14], &bXorC)
        expand(w, 30)
        round(b, c, d, &e, f, g, h, &a, k.31 &+ w[15], &bXorC)
        expand(w, 31)
        round(a, b, c, &d, e, f, g, &h, k.32 &+ w[0], &bXorC)
        expand(w, 32)
        round(h, a, b, &c, d, e, f, &g, k.33 &+ w[1], &bXorC)
        expand(w, 33)
        round(g, h, a, &b, c, d, e, &f, k.34 &+ w[2], &bXorC)
        expand(w, 34)
        round(f, g, h, &a, b, c, d, &e, k.35 &+ w[3], &bXorC)
        expand(w, 35)
        round(e, f, g, &h, a, b, c, &d, k.36 &+ w[4], &bXorC)
        expand(w, 36)
        round(d, e, f, &g, h, a, b, &c, k.37 &+ w[5], &bXorC)
        expand(w, 37)
        round(c, d, e, &f, g, h, a, &b, k.38 &+ w[6], &bXorC)
        expand(w, 38)
        round(b, c, d, &e, f, g, h, &a, k.39 &+ w[7], &bXorC)
        expand(w, 39)
        round(a, b, c, &d, e, f, g, &h, k.40 &+ w[8], &bXorC)
        expand(w, 40)
        round(h, a, b, &c, d, e, f, &g, k.41 &+ w[9], &bXorC)
        expand(w, 41)
        round(g, h, a, &b, c, d, e, &f, k.42 &+ w[10], &bXorC)
        expand(w, 42)
        round(f, g, h, &a, b, c, d, &e, k.43 &+ w[11], &bXorC)
        expand(w, 43)
        round(e, f, g, &h, a, b, c, &d, k.44 &+ w[12], &bXorC)
        expand(w, 44)
        round(d, e, f, &g, h, a, b, &c, k.45 &+ w[13], &bXorC)
        expand(w, 45)
        round(c, d, e, &f, g, h, a, &b, k.46 &+ w[14], &bXorC)
        expand(w, 46)
        round(b, c, d, &e, f, g, h, &a, k.47 &+ w[15], &bXorC)
        expand(w, 47)
        round(a, b, c, &d, e, f, g, &h, k.48 &+ w[0], &bXorC)
        round(h, a, b, &c, d, e, f, &g, k.49 &+ w[1], &bXorC)
        round(g, h, a, &b, c, d, e, &f, k.50 &+ w[2], &bXorC)
        round(f, g, h, &a, b, c, d, &e, k.51 &+ w[3], &bXorC)
        round(e, f, g, &h, a, b, c, &d, k.52 &+ w[4], &bXorC)
        round(d, e, f, &g, h, a, b, &c, k.53 &+ w[5], &bXorC)
        round(c, d, e, &f, g, h, a, &b, k.54 &+ w[6], &bXorC)
        round(b, c, d, &e, f, g, h, &a, k.55 &+ w[7], &bXorC)
        round(a, b, c, &d, e, f, g, &h, k.56 &+ w[8], &bXorC)
        round(h, a, b, &c, d, e, f, &g, k.57 &+ w[9], &bXorC)
        round(g, h, a, &b, c, d, e, &f, k.58 &+ w[10], &bXorC)
        round(f, g, h, &a, b, c, d, &e, k.59 &+ w[11], &bXorC)
        round(e, f, g, &h, a, b, c, &d, k.60 &+ w[12], &bXorC)
        round(d, e, f, &g, h, a, b, &c, k.61 &+ w[13], &bXorC)
        round(c, d, e, &f, g, h, a, &b, k.62 &+ w[14], &bXorC)
        round(b, c, d, &e, f, g, h, &a, k.63 &+ w[15], &bXorC)
        state.add(a, b, c, d, e, f, g, h)
    }

    /// Word t + 16 of the message schedule (§6.2.2 step 1), in the place of word t, which round t
    /// has used: `w` holds the last 16 words, word t in `w[t % 16]`.
    @inline(__always)
    private static func expand(_ w: UnsafeMutablePointer<UInt32>, _ t: Int) {
        let x = w[(t &+ 1) & 15], y = w[(t &+ 14) & 15]
        let s0 = x.rotatedRight(7) ^ x.rotatedRight(18) ^ (x &>> 3)
        let s1 = y.rotatedRight(17) ^ y.rotatedRight(19) ^ (y &>> 10)
        w[t & 15] = w[t & 15] &+ s0 &+ w[(t &+ 9) & 15] &+ s1
    }

    /// One round of §6.2.2 step 3, with the variables in the roles of a…h: instead of shifting
    /// every variable down, the caller rotates which variable plays which role, and only the two
    /// that change (d becomes the new e, h the new a) are written.
    ///
    /// `bXorC` carries b ⊕ c from round to round: Maj(a, b, c) = b ⊕ ((a ⊕ b) ∧ (b ⊕ c)), and this
    /// round's a ⊕ b is the next round's b ⊕ c, so the majority costs three operations, not five.
    /// The sums are grouped so that the terms ready first are added first: h and the round's
    /// constant and word do not depend on the previous round, Σ1 comes last (faster than the
    /// order of the standard's formula). Σ1 keeps its three independent rotations: nesting them
    /// saves register copies but lengthens the chain from e to the next e, and was slower.
    ///
    /// `sigma0` computes Σ0: three independent rotations (``bigSigma0(_:)``) unless the caller
    /// measured a nested form faster.
    @inline(__always)
    static func round(
        _ a: UInt32, _ b: UInt32, _ c: UInt32, _ d: inout UInt32,
        _ e: UInt32, _ f: UInt32, _ g: UInt32, _ h: inout UInt32,
        _ constantPlusWord: UInt32, _ bXorC: inout UInt32,
        sigma0 computeSigma0: (UInt32) -> UInt32 = SHA256.bigSigma0
    ) {
        let sigma1 = e.rotatedRight(6) ^ e.rotatedRight(11) ^ e.rotatedRight(25)
        let choose = g ^ (e & (f ^ g))  // (e ∧ f) ⊕ (¬e ∧ g)
        let t1 = (h &+ constantPlusWord &+ choose) &+ sigma1
        let sigma0 = computeSigma0(a)
        let aXorB = a ^ b
        let majority = b ^ (aXorB & bXorC)  // (a ∧ b) ⊕ (a ∧ c) ⊕ (b ∧ c)
        bXorC = aXorB
        d = d &+ t1
        h = t1 &+ (sigma0 &+ majority)
    }

    /// Σ0 of §4.1.2, as three independent rotations.
    @inline(__always)
    static func bigSigma0(_ x: UInt32) -> UInt32 {
        x.rotatedRight(2) ^ x.rotatedRight(13) ^ x.rotatedRight(22)
    }
}

extension UInt32 {
    /// ROTR^n(x) of FIPS 180-4 §3.2.
    @inline(__always)
    func rotatedRight(_ count: UInt32) -> UInt32 {
        self &>> count | self &<< (32 &- count)
    }
}
