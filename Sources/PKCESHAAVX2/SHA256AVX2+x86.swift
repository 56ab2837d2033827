#if arch(x86_64) && canImport(CPKCESystem.AVX2)
// The compiler's own declarations of the instructions: no library is linked.
internal import CPKCESystem
internal import _Builtin_intrinsics.intel

// The path of OpenSSL's `sha256_block_data_order_avx2` (Guilford, Yap and Gopal, "Fast SHA-256
// Implementations on Intel Architecture Processors", 2012, and OpenSSL's sha256-x86_64.pl): the
// message schedule of two consecutive blocks at once, the first block's words in the lower
// 128-bit half of each 256-bit register and the second's in the upper, since AVX2's shuffles and
// shifts work within each half. Each group of four words, plus its round constants, is stored to
// the caller's buffer, from which the rounds add it a word at a time: the first block's rounds
// run while the schedule is computed, the second block's then need no schedule work at all. The
// rounds run in the integer units, with BMI2's `rorx`, which rotates without first copying its
// operand, and BMI1's `andn`.
extension SHA256AVX2 {
    static func compressOnAVX2(
        _ state: inout SIMD8<UInt32>, blocks: UnsafeRawPointer?, count: Int, then tail: UnsafeRawPointer,
        count tailCount: Int, schedule: UnsafeMutableRawPointer
    ) {
        var working = Working(state)
        // Block `index` of the message's blocks followed by the tail's.
        @inline(__always)
        func block(_ index: Int) -> UnsafeRawPointer {
            index < count ? blocks.unsafelyUnwrapped + index &* 64 : tail + (index &- count) &* 64
        }
        // One loop, and one copy of each compression in it: a lone last block is scheduled as a
        // pair with itself, its second half unused. Two copies (the pair's, and a lone block's with
        // its schedule in registers) made the code twice the size and the path slower from 512
        // bytes on. Each pair is first copied beside the schedule, as the portable path copies its
        // block: read where they are, some lengths took 60 to 75 ns longer on an AMD Zen 5, a
        // different set of lengths with each small change to this loop, which is written in the
        // form that was measured (Performance.md).
        let copy = schedule + 512
        let total = count &+ tailCount
        var index = 0
        while index < total {
            let paired = total &- index >= 2
            let first = block(index)
            copyBlock(first, to: copy)
            if paired {
                copyBlock(block(index &+ 1), to: copy + 64)
            } else {
                copyBlock(first, to: copy + 64)
            }
            compressPair(&working, first: copy, second: copy + 64, schedule: schedule)
            if paired {
                compressScheduled(&working, schedule: schedule + 16)
            }
            index &+= 2
        }
        // H0…H7 in eight stores of four bytes, since the caller reads them a word at a time (to
        // write the digest the same way): they were made into a vector, stored as two halves.
        withUnsafeMutableBytes(of: &state) { words in
            let (a, b, c, d, e, f, g, h) = working.variables
            let words = words.baseAddress!
            CPKCESystem_storeWord(words, a)
            CPKCESystem_storeWord(words + 4, b)
            CPKCESystem_storeWord(words + 8, c)
            CPKCESystem_storeWord(words + 12, d)
            CPKCESystem_storeWord(words + 16, e)
            CPKCESystem_storeWord(words + 20, f)
            CPKCESystem_storeWord(words + 24, g)
            CPKCESystem_storeWord(words + 28, h)
        }
    }

    /// Copies the 64 bytes at `block` to `copy`, 16 bytes at a time, as the schedule loads them.
    @inline(__always)
    private static func copyBlock(_ block: UnsafeRawPointer, to copy: UnsafeMutableRawPointer) {
        for offset in stride(from: 0, to: 64, by: 16) {
            let words = block.loadUnaligned(fromByteOffset: offset, as: SIMD4<UInt32>.self)
            copy.storeBytes(of: words, toByteOffset: offset, as: SIMD4<UInt32>.self)
        }
    }

    /// Schedules blocks `first` and `second` into `schedule`, and compresses `first` as it goes.
    @inline(__always)
    private static func compressPair(
        _ working: inout Working, first: UnsafeRawPointer, second: UnsafeRawPointer, schedule: UnsafeMutableRawPointer
    ) {
        var (w0, w1, w2, w3) = (
            loadWords(first, second, 0), loadWords(first, second, 1),
            loadWords(first, second, 2), loadWords(first, second, 3)
        )
        var (a, b, c, d, e, f, g, h) = working.variables
        var bXorC = b ^ c
        var lateSigma0: UInt32 = 0
        // K + W_4g…W_4g+3 of both blocks is stored at 32·g four groups before the first block's
        // rounds read it (groups 12 to 15 one to four groups after the last store, groups 0 to
        // 3 right after theirs): read at once, it would be read before the store had reached the
        // cache, where a CPU may not forward part of a 32-byte store to a 4-byte load without a
        // stall. The roles of a…h come back to where they started every eight rounds.
        @inline(__always)
        func store(_ group: Int, _ words: Lanes) {
            let k = constants(group)
            schedule.storeBytes(of: words &+ Lanes(lowHalf: k, highHalf: k), toByteOffset: group &* 32, as: Lanes.self)
        }
        store(0, w0)
        store(1, w1)
        store(2, w2)
        store(3, w3)
        w0 = nextWords(w0, w1, w2, w3)
        store(4, w0)
        fourRounds(&a, &b, &c, &d, &e, &f, &g, &h, schedule, &bXorC, &lateSigma0)
        w1 = nextWords(w1, w2, w3, w0)
        store(5, w1)
        fourRounds(&e, &f, &g, &h, &a, &b, &c, &d, schedule + 32, &bXorC, &lateSigma0)
        w2 = nextWords(w2, w3, w0, w1)
        store(6, w2)
        fourRounds(&a, &b, &c, &d, &e, &f, &g, &h, schedule + 64, &bXorC, &lateSigma0)
        w3 = nextWords(w3, w0, w1, w2)
        store(7, w3)
        fourRounds(&e, &f, &g, &h, &a, &b, &c, &d, schedule + 96, &bXorC, &lateSigma0)
        w0 = nextWords(w0, w1, w2, w3)
        store(8, w0)
        fourRounds(&a, &b, &c, &d, &e, &f, &g, &h, schedule + 128, &bXorC, &lateSigma0)
        w1 = nextWords(w1, w2, w3, w0)
        store(9, w1)
        fourRounds(&e, &f, &g, &h, &a, &b, &c, &d, schedule + 160, &bXorC, &lateSigma0)
        w2 = nextWords(w2, w3, w0, w1)
        store(10, w2)
        fourRounds(&a, &b, &c, &d, &e, &f, &g, &h, schedule + 192, &bXorC, &lateSigma0)
        w3 = nextWords(w3, w0, w1, w2)
        store(11, w3)
        fourRounds(&e, &f, &g, &h, &a, &b, &c, &d, schedule + 224, &bXorC, &lateSigma0)
        w0 = nextWords(w0, w1, w2, w3)
        store(12, w0)
        fourRounds(&a, &b, &c, &d, &e, &f, &g, &h, schedule + 256, &bXorC, &lateSigma0)
        w1 = nextWords(w1, w2, w3, w0)
        store(13, w1)
        fourRounds(&e, &f, &g, &h, &a, &b, &c, &d, schedule + 288, &bXorC, &lateSigma0)
        w2 = nextWords(w2, w3, w0, w1)
        store(14, w2)
        fourRounds(&a, &b, &c, &d, &e, &f, &g, &h, schedule + 320, &bXorC, &lateSigma0)
        w3 = nextWords(w3, w0, w1, w2)
        store(15, w3)
        fourRounds(&e, &f, &g, &h, &a, &b, &c, &d, schedule + 352, &bXorC, &lateSigma0)
        fourRounds(&a, &b, &c, &d, &e, &f, &g, &h, schedule + 384, &bXorC, &lateSigma0)
        fourRounds(&e, &f, &g, &h, &a, &b, &c, &d, schedule + 416, &bXorC, &lateSigma0)
        fourRounds(&a, &b, &c, &d, &e, &f, &g, &h, schedule + 448, &bXorC, &lateSigma0)
        fourRounds(&e, &f, &g, &h, &a, &b, &c, &d, schedule + 480, &bXorC, &lateSigma0)
        working.add(a &+ lateSigma0, b, c, d, e, f, g, h)
    }

    /// Compresses the block whose schedule, plus the round constants, is in `schedule`, four words
    /// at every 32 bytes.
    @inline(__always)
    private static func compressScheduled(_ working: inout Working, schedule: UnsafeMutableRawPointer) {
        var (a, b, c, d, e, f, g, h) = working.variables
        var bXorC = b ^ c
        var lateSigma0: UInt32 = 0
        for eight in stride(from: 0, to: 512, by: 64) {
            fourRounds(&a, &b, &c, &d, &e, &f, &g, &h, schedule + eight, &bXorC, &lateSigma0)
            fourRounds(&e, &f, &g, &h, &a, &b, &c, &d, schedule + (eight &+ 32), &bXorC, &lateSigma0)
        }
        working.add(a &+ lateSigma0, b, c, d, e, f, g, h)
    }

    /// Words 4·`index`…4·`index`+3 of `first` in the lower half and of `second` in the upper, read
    /// as big-endian integers (§3.1).
    @inline(__always)
    private static func loadWords(_ first: UnsafeRawPointer, _ second: UnsafeRawPointer, _ index: Int) -> Lanes {
        let low = first.loadUnaligned(fromByteOffset: index &* 16, as: SIMD4<UInt32>.self)
        let high = second.loadUnaligned(fromByteOffset: index &* 16, as: SIMD4<UInt32>.self)
        let reversed = SIMD32<UInt8>(
            3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8, 15, 14, 13, 12,
            3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8, 15, 14, 13, 12)
        return lanes(_mm256_shuffle_epi8(vector(Lanes(lowHalf: low, highHalf: high)), vector(reversed)))
    }

    /// W_t+16…W_t+19 (§6.2.2 step 1) of both blocks, from W_t…W_t+15 in `w0`…`w3`.
    ///
    /// W_t+18 and W_t+19 take σ1 of W_t+16 and W_t+17, so σ1 is computed twice, for two words
    /// each time, and each time added with zeros in the other two lanes of each half, as OpenSSL
    /// does. The result is then a sum: when it was a blend of two sums, the compiler merged the
    /// next calls' shuffles of it into that blend, and a group of four words took 39 vector
    /// instructions, its store included, where it now takes 30 (OpenSSL's takes 31).
    @inline(__always)
    private static func nextWords(_ w0: Lanes, _ w1: Lanes, _ w2: Lanes, _ w3: Lanes) -> Lanes {
        let fromW1 = Lanes(w0[1], w0[2], w0[3], w1[0], w0[5], w0[6], w0[7], w1[4])  // W_t+1…W_t+4
        let fromW9 = Lanes(w2[1], w2[2], w2[3], w3[0], w2[5], w2[6], w2[7], w3[4])  // W_t+9…W_t+12
        let partial = w0 &+ smallSigma0(fromW1) &+ fromW9
        let first = smallSigma1(ofEvenLanes: Lanes(w3[2], w3[2], w3[3], w3[3], w3[6], w3[6], w3[7], w3[7]))
        let low = partial &+ Lanes(first[0], first[2], 0, 0, first[4], first[6], 0, 0)  // W_t+16, W_t+17
        let second = smallSigma1(ofEvenLanes: Lanes(low[0], low[0], low[1], low[1], low[4], low[4], low[5], low[5]))
        return low &+ Lanes(0, 0, second[0], second[2], 0, 0, second[4], second[6])
    }

    /// σ0 of §4.1.2 in every lane: ROTR⁷ ⊕ ROTR¹⁸ ⊕ SHR³.
    @inline(__always)
    private static func smallSigma0(_ words: Lanes) -> Lanes {
        let x = vector(words)
        let rotated7 = _mm256_or_si256(_mm256_srli_epi32(x, 7), _mm256_slli_epi32(x, 25))
        let rotated18 = _mm256_or_si256(_mm256_srli_epi32(x, 18), _mm256_slli_epi32(x, 14))
        return lanes(_mm256_xor_si256(_mm256_xor_si256(rotated7, rotated18), _mm256_srli_epi32(x, 3)))
    }

    /// σ1 of §4.1.2 (ROTR¹⁷ ⊕ ROTR¹⁹ ⊕ SHR¹⁰) of the even lanes, each of which the next lane must
    /// equal, in the even lanes. Each 64-bit quarter then holds a word twice, so a 64-bit shift
    /// right rotates it in the lower lane.
    @inline(__always)
    private static func smallSigma1(ofEvenLanes words: Lanes) -> Lanes {
        let x = vector(words)
        let rotated = _mm256_xor_si256(_mm256_srli_epi64(x, 17), _mm256_srli_epi64(x, 19))
        return lanes(_mm256_xor_si256(rotated, _mm256_srli_epi32(x, 10)))
    }

    /// Rounds t…t+3, given K_t…K_t+3 plus W_t…W_t+3 in the four words at `constantsPlusWords`.
    @inline(__always)
    private static func fourRounds(
        _ a: inout UInt32, _ b: inout UInt32, _ c: inout UInt32, _ d: inout UInt32,
        _ e: inout UInt32, _ f: inout UInt32, _ g: inout UInt32, _ h: inout UInt32,
        _ constantsPlusWords: UnsafeMutableRawPointer, _ bXorC: inout UInt32, _ lateSigma0: inout UInt32
    ) {
        func word(_ index: Int) -> UInt32 { constantsPlusWords.load(fromByteOffset: index &* 4, as: UInt32.self) }
        round(&a, b, c, &d, e, f, g, &h, word(0), &bXorC, &lateSigma0)
        round(&h, a, b, &c, d, e, f, &g, word(1), &bXorC, &lateSigma0)
        round(&g, h, a, &b, c, d, e, &f, word(2), &bXorC, &lateSigma0)
        round(&f, g, h, &a, b, c, d, &e, word(3), &bXorC, &lateSigma0)
    }

    /// One round of §6.2.2 step 3, with the variables in the roles of a…h: the caller rotates
    /// which variable plays which role, and only the two that change (d becomes the new e, h the
    /// new a) are written. Ch(e, f, g) is (e ∧ f) + (¬e ∧ g), the two terms having no bit in
    /// common: BMI1's `andn` computes the second. Maj(a, b, c) is b ⊕ ((a ⊕ b) ∧ (b ⊕ c)), and this
    /// round's a ⊕ b is the next round's b ⊕ c (`bXorC`).
    ///
    /// The new a is left without its Σ0(a), `lateSigma0`, which the next round adds first (and
    /// the caller after the last): so the next round's T1, which does not need a, starts before
    /// Σ0 is done. The statements are in the order of OpenSSL's `bodyx_00_15`, and the module is
    /// compiled without LLVM's machine scheduler (Package.swift), which keeps it. On an AMD Zen 3,
    /// in `SHA256.round`'s form the path took 2% to 7% longer at most lengths; in this order with
    /// the scheduler on, it gained 1.4% at most (Performance.md). It is that function of the PKCE
    /// module, which this module cannot call (PKCE imports it), with Ch in the form `andn`
    /// computes; compiled here, for BMI2, its rotations are `rorx`.
    @inline(__always)
    private static func round(
        _ a: inout UInt32, _ b: UInt32, _ c: UInt32, _ d: inout UInt32,
        _ e: UInt32, _ f: UInt32, _ g: UInt32, _ h: inout UInt32,
        _ constantPlusWord: UInt32, _ bXorC: inout UInt32, _ lateSigma0: inout UInt32
    ) {
        var t1 = h &+ constantPlusWord
        let eAndF = f & e
        var sigma1 = e.rotatedRight(25) ^ e.rotatedRight(11)
        a = a &+ lateSigma0
        t1 = t1 &+ eAndF
        let notEAndG = ~e & g
        sigma1 ^= e.rotatedRight(6)
        t1 = t1 &+ notEAndG
        let aXorB = a ^ b
        t1 = t1 &+ sigma1
        lateSigma0 = a.rotatedRight(22) ^ a.rotatedRight(13) ^ a.rotatedRight(2)
        d = d &+ t1
        let majority = (bXorC & aXorB) ^ b
        h = t1 &+ majority
        bXorC = aXorB
    }

    /// K_4·group…K_4·group+3 (§4.2.2). `group` is a constant at every call, so the switch folds
    /// away.
    @inline(__always)
    private static func constants(_ group: Int) -> SIMD4<UInt32> {
        switch group {
        case 0: SIMD4(0x428a_2f98, 0x7137_4491, 0xb5c0_fbcf, 0xe9b5_dba5)
        case 1: SIMD4(0x3956_c25b, 0x59f1_11f1, 0x923f_82a4, 0xab1c_5ed5)
        case 2: SIMD4(0xd807_aa98, 0x1283_5b01, 0x2431_85be, 0x550c_7dc3)
        case 3: SIMD4(0x72be_5d74, 0x80de_b1fe, 0x9bdc_06a7, 0xc19b_f174)
        case 4: SIMD4(0xe49b_69c1, 0xefbe_4786, 0x0fc1_9dc6, 0x240c_a1cc)
        case 5: SIMD4(0x2de9_2c6f, 0x4a74_84aa, 0x5cb0_a9dc, 0x76f9_88da)
        case 6: SIMD4(0x983e_5152, 0xa831_c66d, 0xb003_27c8, 0xbf59_7fc7)
        case 7: SIMD4(0xc6e0_0bf3, 0xd5a7_9147, 0x06ca_6351, 0x1429_2967)
        case 8: SIMD4(0x27b7_0a85, 0x2e1b_2138, 0x4d2c_6dfc, 0x5338_0d13)
        case 9: SIMD4(0x650a_7354, 0x766a_0abb, 0x81c2_c92e, 0x9272_2c85)
        case 10: SIMD4(0xa2bf_e8a1, 0xa81a_664b, 0xc24b_8b70, 0xc76c_51a3)
        case 11: SIMD4(0xd192_e819, 0xd699_0624, 0xf40e_3585, 0x106a_a070)
        case 12: SIMD4(0x19a4_c116, 0x1e37_6c08, 0x2748_774c, 0x34b0_bcb5)
        case 13: SIMD4(0x391c_0cb3, 0x4ed8_aa4a, 0x5b9c_ca4f, 0x682e_6ff3)
        case 14: SIMD4(0x748f_82ee, 0x78a5_636f, 0x84c8_7814, 0x8cc7_0208)
        default: SIMD4(0x90be_fffa, 0xa450_6ceb, 0xbef9_a3f7, 0xc671_78f2)
        }
    }

    @inline(__always)
    private static func vector<T: SIMD>(_ value: T) -> __m256i { unsafeBitCast(value, to: __m256i.self) }

    @inline(__always)
    private static func lanes(_ vector: __m256i) -> Lanes { unsafeBitCast(vector, to: Lanes.self) }

}

/// Eight words, four of each of two blocks, in one AVX2 register.
private typealias Lanes = SIMD8<UInt32>

/// The working variables a…h between blocks.
private struct Working {
    var variables: (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32)

    @inline(__always)
    init(_ words: SIMD8<UInt32>) {
        variables = (words[0], words[1], words[2], words[3], words[4], words[5], words[6], words[7])
    }

    /// Adds a block's working variables to the state (§6.2.2 step 4).
    @inline(__always)
    mutating func add(
        _ a: UInt32, _ b: UInt32, _ c: UInt32, _ d: UInt32, _ e: UInt32, _ f: UInt32, _ g: UInt32, _ h: UInt32
    ) {
        let (a0, b0, c0, d0, e0, f0, g0, h0) = variables
        variables = (a0 &+ a, b0 &+ b, c0 &+ c, d0 &+ d, e0 &+ e, f0 &+ f, g0 &+ g, h0 &+ h)
    }
}

extension UInt32 {
    /// ROTR^n(x) of FIPS 180-4 §3.2.
    @inline(__always)
    fileprivate func rotatedRight(_ count: UInt32) -> UInt32 {
        self &>> count | self &<< (32 &- count)
    }
}
#endif
