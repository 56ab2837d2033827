#if arch(x86_64) && canImport(_Builtin_intrinsics.intel)
// The compiler's own declarations of the SSE2 instructions, which every x86-64 processor has:
// no library is linked. (Windows toolchains have lacked the module: there, and on every other
// architecture, the scalar schedule is used.)
internal import _Builtin_intrinsics.intel

extension SHA256 {
    /// Four words of the message schedule, in one SSE2 register.
    private typealias Words = SIMD4<UInt32>

    /// Processes one 64-byte block (§6.2.2), as ``compress(_:block:schedule:)`` does, with the
    /// message schedule computed four words at a time in vector registers while the rounds run in
    /// the integer units, as Intel's SSSE3 and AVX implementations of SHA-256 do (Guilford, Yap
    /// and Gopal, "Fast SHA-256 Implementations on Intel Architecture Processors", 2012). The
    /// integer units then have only the rounds to do.
    ///
    /// Swift's `SIMD4` operators compute shifts lane by lane, and the compiler (Swift 6.3.1)
    /// then keeps a rotation in scalar registers, where x86-64 has a rotate instruction and SSE2
    /// has none: so the shifts here are the SSE2 instructions themselves. The block's words are
    /// read as big-endian integers (SSE2 lacks SSSE3's byte shuffle; the compiler combines the
    /// loads as it can). The schedule lives in registers, not in a buffer of 16 words.
    @inline(__always)
    static func compressWithVectorSchedule(_ state: inout State, block: UnsafeRawPointer) {
        @inline(__always)
        func words(_ first: Int) -> Words {
            func word(_ index: Int) -> UInt32 {
                UInt32(bigEndian: block.loadUnaligned(fromByteOffset: (first &+ index) &* 4, as: UInt32.self))
            }
            return Words(word(0), word(1), word(2), word(3))
        }
        // W_t…W_t+15, four to a register.
        var (w0, w1, w2, w3) = (words(0), words(4), words(8), words(12))
        var (a, b, c, d, e, f, g, h) = (state.a, state.b, state.c, state.d, state.e, state.f, state.g, state.h)
        var bXorC = b ^ c
        let k = roundConstants
        // Four rounds at a time: rounds t…t+3 take K + W_t…W_t+3, and run after W_t+16…W_t+19
        // are computed in the register that held W_t…W_t+3. The roles of a…h come back to where
        // they started every eight rounds.
        var kw = w0 &+ Words(k.0, k.1, k.2, k.3)
        w0 = nextWords(w0, w1, w2, w3)
        fourRounds(&a, &b, &c, &d, &e, &f, &g, &h, kw, &bXorC)
        kw = w1 &+ Words(k.4, k.5, k.6, k.7)
        w1 = nextWords(w1, w2, w3, w0)
        fourRounds(&e, &f, &g, &h, &a, &b, &c, &d, kw, &bXorC)
        kw = w2 &+ Words(k.8, k.9, k.10, k.11)
        w2 = nextWords(w2, w3, w0, w1)
        fourRounds(&a, &b, &c, &d, &e, &f, &g, &h, kw, &bXorC)
        kw = w3 &+ Words(k.12, k.13, k.14, k.15)
        w3 = nextWords(w3, w0, w1, w2)
        fourRounds(&e, &f, &g, &h, &a, &b, &c, &d, kw, &bXorC)
        kw = w0 &+ Words(k.16, k.17, k.18, k.19)
        w0 = nextWords(w0, w1, w2, w3)
        fourRounds(&a, &b, &c, &d, &e, &f, &g, &h, kw, &bXorC)
        kw = w1 &+ Words(k.20, k.21, k.22, k.23)
        w1 = nextWords(w1, w2, w3, w0)
        fourRounds(&e, &f, &g, &h, &a, &b, &c, &d, kw, &bXorC)
        kw = w2 &+ Words(k.24, k.25, k.26, k.27)
        w2 = nextWords(w2, w3, w0, w1)
        fourRounds(&a, &b, &c, &d, &e, &f, &g, &h, kw, &bXorC)
        kw = w3 &+ Words(k.28, k.29, k.30, k.31)
        w3 = nextWords(w3, w0, w1, w2)
        fourRounds(&e, &f, &g, &h, &a, &b, &c, &d, kw, &bXorC)
        kw = w0 &+ Words(k.32, k.33, k.34, k.35)
        w0 = nextWords(w0, w1, w2, w3)
        fourRounds(&a, &b, &c, &d, &e, &f, &g, &h, kw, &bXorC)
        kw = w1 &+ Words(k.36, k.37, k.38, k.39)
        w1 = nextWords(w1, w2, w3, w0)
        fourRounds(&e, &f, &g, &h, &a, &b, &c, &d, kw, &bXorC)
        kw = w2 &+ Words(k.40, k.41, k.42, k.43)
        w2 = nextWords(w2, w3, w0, w1)
        fourRounds(&a, &b, &c, &d, &e, &f, &g, &h, kw, &bXorC)
        kw = w3 &+ Words(k.44, k.45, k.46, k.47)
        w3 = nextWords(w3, w0, w1, w2)
        fourRounds(&e, &f, &g, &h, &a, &b, &c, &d, kw, &bXorC)
        // The last 16 rounds need no more words.
        fourRounds(&a, &b, &c, &d, &e, &f, &g, &h, w0 &+ Words(k.48, k.49, k.50, k.51), &bXorC)
        fourRounds(&e, &f, &g, &h, &a, &b, &c, &d, w1 &+ Words(k.52, k.53, k.54, k.55), &bXorC)
        fourRounds(&a, &b, &c, &d, &e, &f, &g, &h, w2 &+ Words(k.56, k.57, k.58, k.59), &bXorC)
        fourRounds(&e, &f, &g, &h, &a, &b, &c, &d, w3 &+ Words(k.60, k.61, k.62, k.63), &bXorC)
        state.add(a, b, c, d, e, f, g, h)
    }

    /// Rounds t…t+3, given K_t…K_t+3 plus W_t…W_t+3.
    ///
    /// Σ0 is computed as ROTR²(a ⊕ ROTR¹¹(a) ⊕ ROTR²⁰(a)): two register copies instead of three.
    /// That was faster here, where the integer units do nothing but rounds, and slower in the
    /// scalar schedule's rounds.
    @inline(__always)
    private static func fourRounds(
        _ a: inout UInt32, _ b: inout UInt32, _ c: inout UInt32, _ d: inout UInt32,
        _ e: inout UInt32, _ f: inout UInt32, _ g: inout UInt32, _ h: inout UInt32,
        _ constantsPlusWords: Words, _ bXorC: inout UInt32
    ) {
        let sigma0 = { (x: UInt32) in (x ^ x.rotatedRight(11) ^ x.rotatedRight(20)).rotatedRight(2) }
        round(a, b, c, &d, e, f, g, &h, constantsPlusWords[0], &bXorC, sigma0: sigma0)
        round(h, a, b, &c, d, e, f, &g, constantsPlusWords[1], &bXorC, sigma0: sigma0)
        round(g, h, a, &b, c, d, e, &f, constantsPlusWords[2], &bXorC, sigma0: sigma0)
        round(f, g, h, &a, b, c, d, &e, constantsPlusWords[3], &bXorC, sigma0: sigma0)
    }

    /// W_t+16…W_t+19 (§6.2.2 step 1), from W_t…W_t+15 in `w0`…`w3`.
    ///
    /// W_t+18 and W_t+19 take σ1 of W_t+16 and W_t+17, so σ1 is computed twice, for two words
    /// each time.
    @inline(__always)
    private static func nextWords(_ w0: Words, _ w1: Words, _ w2: Words, _ w3: Words) -> Words {
        let fromW1 = Words(w0[1], w0[2], w0[3], w1[0])  // W_t+1…W_t+4
        let fromW9 = Words(w2[1], w2[2], w2[3], w3[0])  // W_t+9…W_t+12
        let partial = w0 &+ smallSigma0(fromW1) &+ fromW9
        let first = smallSigma1(ofLanes02: Words(w3[2], w3[2], w3[3], w3[3]))  // W_t+14, W_t+15
        let low = partial &+ Words(first[0], first[2], first[0], first[2])
        let second = smallSigma1(ofLanes02: Words(low[0], low[0], low[1], low[1]))  // W_t+16, W_t+17
        let high = partial &+ Words(second[0], second[2], second[0], second[2])
        return Words(low[0], low[1], high[2], high[3])
    }

    /// σ0 of §4.1.2 in every lane: ROTR⁷ ⊕ ROTR¹⁸ ⊕ SHR³.
    @inline(__always)
    private static func smallSigma0(_ words: Words) -> Words {
        let x = unsafeBitCast(words, to: __m128i.self)
        let rotated7 = _mm_or_si128(_mm_srli_epi32(x, 7), _mm_slli_epi32(x, 25))
        let rotated18 = _mm_or_si128(_mm_srli_epi32(x, 18), _mm_slli_epi32(x, 14))
        return unsafeBitCast(_mm_xor_si128(_mm_xor_si128(rotated7, rotated18), _mm_srli_epi32(x, 3)), to: Words.self)
    }

    /// σ1 of §4.1.2 (ROTR¹⁷ ⊕ ROTR¹⁹ ⊕ SHR¹⁰) of lanes 0 and 2, which must equal lanes 1 and 3,
    /// in lanes 0 and 2. Each 64-bit half then holds a word twice, so a 64-bit shift right
    /// rotates it in the lower lane.
    @inline(__always)
    private static func smallSigma1(ofLanes02 words: Words) -> Words {
        assert(words[0] == words[1] && words[2] == words[3], "σ1 by 64-bit shifts needs each word twice")
        let x = unsafeBitCast(words, to: __m128i.self)
        let rotated = _mm_xor_si128(_mm_srli_epi64(x, 17), _mm_srli_epi64(x, 19))
        return unsafeBitCast(_mm_xor_si128(rotated, _mm_srli_epi32(x, 10)), to: Words.self)
    }
}
#endif
