internal import CPKCESystem

/// SHA-256 of several verifiers at once, one per lane of a SIMD vector: the computation of
/// ``SHA256`` (FIPS 180-4 §6.2) with every 32-bit word widened to a vector of words.
///
/// One message's rounds are a chain of dependent operations; messages are independent, so one
/// vector instruction advances four, eight or sixteen of them for the cost of one. How many is
/// ``laneCount``: as many 32-bit words as a vector register of the compile target holds.
enum SHA256Lanes {
    /// The number of messages hashed at once: 4 on baseline x86-64 (SSE2), 8 with AVX2, 16 with
    /// AVX-512, as the compiler was told by `-target-cpu`. Wider vectors than the registers spill:
    /// 8 lanes on SSE2 take longer per message and block than 4.
    static var laneCount: Int { Int(CPKCESystem_sha256Lanes()) }

    /// The S256 challenges of `verifiers`, in order, hashed ``laneCount`` at a time.
    static func challenges(for verifiers: [CodeVerifier]) -> [CodeChallenge] {
        switch laneCount {
        case 16: challenges(for: verifiers, lanes: SIMD16<UInt32>.self)
        case 8: challenges(for: verifiers, lanes: SIMD8<UInt32>.self)
        default: challenges(for: verifiers, lanes: SIMD4<UInt32>.self)
        }
    }

    /// The most blocks a padded verifier takes: 128 bytes, the 0x80 byte and the 8-byte length.
    private static let blocksPerLane = (CodeVerifier.allowedLengths.upperBound + 9 + 63) / 64

    /// The S256 challenges of `verifiers`, in order, hashed `V.scalarCount` at a time; tests call
    /// it with every lane width, whatever the target.
    static func challenges<V: SHA256LaneVector>(
        for verifiers: [CodeVerifier], lanes: V.Type
    ) -> [CodeChallenge] {
        var challenges: [CodeChallenge] = []
        challenges.reserveCapacity(verifiers.count)
        // Vectors: the message schedule, each round's constant splatted (once per call rather
        // than once per round), and the state as it is stored to read the digests out. Bytes: each
        // lane's padded blocks, and each lane's digest.
        withUnsafeTemporaryAllocation(of: V.self, capacity: 64 + 64 + 8) { vectors in
            let scratch = Scratch<V>(vectors: vectors.baseAddress!)
            withUnsafeBytes(of: SHA256.roundConstants) { roundConstants in
                for t in 0..<64 {
                    scratch.constants[t] = V(repeating: roundConstants.load(fromByteOffset: t * 4, as: UInt32.self))
                }
            }
            withUnsafeTemporaryAllocation(byteCount: V.scalarCount * (blocksPerLane * 64 + 32), alignment: 64) {
                bytes in
                let blocks = UnsafeMutableRawBufferPointer(rebasing: bytes[..<(V.scalarCount * blocksPerLane * 64)])
                let digests = UnsafeMutableRawBufferPointer(rebasing: bytes[(V.scalarCount * blocksPerLane * 64)...])
                for start in stride(from: 0, to: verifiers.count, by: V.scalarCount) {
                    let group = verifiers[start..<min(start + V.scalarCount, verifiers.count)]
                    hash(group, blocks: blocks, scratch: scratch, digests: digests)
                    for lane in 0..<group.count {
                        challenges.append(CodeChallenge(s256Digest: UnsafeRawPointer(digests.baseAddress! + lane * 32)))
                    }
                }
                // The blocks hold verifiers; the schedule and the state, words made from them.
                zeroize(bytes)
            }
            zeroize(UnsafeMutableRawBufferPointer(vectors))
        }
        return challenges
    }

    /// Where the vectors of a call live: one temporary allocation, cut in three.
    private struct Scratch<V: SHA256LaneVector> {
        /// The 64 words of the message schedule.
        let schedule: UnsafeMutablePointer<V>
        /// K₀…K₆₃, each in every lane.
        let constants: UnsafeMutablePointer<V>
        /// The eight state words, stored to be read lane by lane.
        let state: UnsafeMutablePointer<V>

        init(vectors: UnsafeMutablePointer<V>) {
            schedule = vectors
            constants = vectors + 64
            state = vectors + 128
        }
    }

    /// Hashes up to `V.scalarCount` verifiers and writes their digests, 32 bytes per lane, to
    /// `digests`.
    ///
    /// Each lane's message is padded in `blocks` (§5.1.1), then all lanes are compressed block by
    /// block; a lane whose message ends before the others' takes its digest from its last block,
    /// and the other lanes carry on.
    @inline(__always)
    private static func hash<V: SHA256LaneVector>(
        _ verifiers: ArraySlice<CodeVerifier>,
        blocks: UnsafeMutableRawBufferPointer,
        scratch: Scratch<V>,
        digests: UnsafeMutableRawBufferPointer
    ) {
        let laneBytes = blocksPerLane * 64
        var blockCounts = V()
        for lane in 0..<V.scalarCount {
            let padded = UnsafeMutableRawBufferPointer(rebasing: blocks[(lane * laneBytes)..<((lane + 1) * laneBytes)])
            guard lane < verifiers.count else {
                // No message: a lane of zeros, hashed and never read.
                padded.initializeMemory(as: UInt8.self, repeating: 0)
                continue
            }
            // A verifier has at most 128 characters, so its padding fits the lane's blocks.
            let length = verifiers[verifiers.startIndex + lane].withUTF8 { message in
                padded.copyMemory(from: UnsafeRawBufferPointer(message))
                return message.count
            }
            // Padding (§5.1.1): 0x80, zeros, and the length in bits, big-endian, ending the block.
            // The zeros run to the end of the lane, so that blocks past this message's last,
            // compressed while longer messages in other lanes go on, hold no stale bytes.
            let count = (length + 9 + 63) / 64
            padded[length] = 0x80
            UnsafeMutableRawBufferPointer(rebasing: padded[(length + 1)...])
                .initializeMemory(as: UInt8.self, repeating: 0)
            padded.storeBytes(of: (UInt64(length) &* 8).bigEndian, toByteOffset: count * 64 - 8, as: UInt64.self)
            blockCounts[lane] = UInt32(count)
        }

        var state = LaneState<V>()
        let words = UnsafeMutableRawPointer(scratch.schedule)
        for block in 0..<Int(blockCounts.max()) {
            // Word t of every lane's block into vector t: the lanes of a vector are messages.
            for lane in 0..<V.scalarCount {
                let source = UnsafeRawPointer(blocks.baseAddress!) + lane * laneBytes + block * 64
                for t in 0..<16 {
                    let word = UInt32(bigEndian: source.loadUnaligned(fromByteOffset: t * 4, as: UInt32.self))
                    words.storeBytes(of: word, toByteOffset: (t * V.scalarCount + lane) * 4, as: UInt32.self)
                }
            }
            state.compress(schedule: scratch.schedule, constants: scratch.constants)

            // The lanes whose message ended with this block have their digest.
            state.store(to: scratch.state)
            let stateWords = UnsafeRawPointer(scratch.state)
            for lane in 0..<verifiers.count where blockCounts[lane] == block + 1 {
                for word in 0..<8 {
                    let value = stateWords.load(fromByteOffset: (word * V.scalarCount + lane) * 4, as: UInt32.self)
                    digests.storeBytes(of: value.bigEndian, toByteOffset: lane * 32 + word * 4, as: UInt32.self)
                }
            }
        }
    }
}

/// The vectors ``SHA256Lanes`` computes with: SIMD4, SIMD8 and SIMD16 of `UInt32`.
///
/// Only `&+` needs naming here. In generic code, the standard library's generic `SIMD` addition
/// loops over the lanes, which the optimiser left as scalar code, far slower. As a requirement,
/// each conformance supplies its concrete vector addition instead. The other operators vectorise
/// as they are; rotations add their two halves instead of OR-ing them for the same reason (the
/// halves share no bits, so the sum is the same).
protocol SHA256LaneVector: SIMD where Scalar == UInt32 {
    static func &+ (lhs: Self, rhs: Self) -> Self
}

extension SIMD4: SHA256LaneVector where Scalar == UInt32 {}
extension SIMD8: SHA256LaneVector where Scalar == UInt32 {}
extension SIMD16: SHA256LaneVector where Scalar == UInt32 {}

/// The working variables of ``SHA256Lanes``: H0…H7 of §6.2 for every lane.
private struct LaneState<V: SHA256LaneVector> {
    // The first 32 bits of the fractional parts of the square roots of the first 8 primes (§5.3.3).
    var a = V(repeating: 0x6a09_e667), b = V(repeating: 0xbb67_ae85)
    var c = V(repeating: 0x3c6e_f372), d = V(repeating: 0xa54f_f53a)
    var e = V(repeating: 0x510e_527f), f = V(repeating: 0x9b05_688c)
    var g = V(repeating: 0x1f83_d9ab), h = V(repeating: 0x5be0_cd19)

    /// Writes a…h to eight consecutive vectors.
    func store(to vectors: UnsafeMutablePointer<V>) {
        (vectors[0], vectors[1], vectors[2], vectors[3]) = (a, b, c, d)
        (vectors[4], vectors[5], vectors[6], vectors[7]) = (e, f, g, h)
    }

    /// Processes one block of every lane (§6.2.2), whose first 16 words are in `w`.
    ///
    /// The structure of ``SHA256``'s compression: the schedule computed beside the rounds (with 4
    /// lanes too, faster than computed up front), the majority from the previous round's a ⊕ b,
    /// rotating roles. The rounds stay in loops over the constants, eight at a time: writing all
    /// 64 out would make the compiler's work (and the build) far longer for vector code that is
    /// limited by throughput, not registers.
    @inline(__always)
    mutating func compress(schedule w: UnsafeMutablePointer<V>, constants k: UnsafeMutablePointer<V>) {
        var (a, b, c, d, e, f, g, h) = (self.a, self.b, self.c, self.d, self.e, self.f, self.g, self.h)
        var bXorC = b ^ c
        for t in stride(from: 0, to: 48, by: 8) {
            Self.eightRounds(
                &a, &b, &c, &d, &e, &f, &g, &h, &bXorC, from: t, schedule: w, constants: k, expanding: true)
        }
        for t in stride(from: 48, to: 64, by: 8) {
            Self.eightRounds(
                &a, &b, &c, &d, &e, &f, &g, &h, &bXorC, from: t, schedule: w, constants: k, expanding: false)
        }
        self.a = self.a &+ a
        self.b = self.b &+ b
        self.c = self.c &+ c
        self.d = self.d &+ d
        self.e = self.e &+ e
        self.f = self.f &+ f
        self.g = self.g &+ g
        self.h = self.h &+ h
    }

    /// Rounds t…t + 7, each followed, when `expanding`, by the schedule word 16 rounds ahead.
    ///
    /// `expanding` is a constant at each call, so the inlined code has no branch: a test inside
    /// the rounds was slower.
    @inline(__always)
    private static func eightRounds(
        _ a: inout V, _ b: inout V, _ c: inout V, _ d: inout V, _ e: inout V, _ f: inout V, _ g: inout V,
        _ h: inout V, _ bXorC: inout V,
        from t: Int, schedule w: UnsafeMutablePointer<V>, constants k: UnsafeMutablePointer<V>, expanding: Bool
    ) {
        round(a, b, c, &d, e, f, g, &h, w[t] &+ k[t], &bXorC)
        if expanding { expand(w, t) }
        round(h, a, b, &c, d, e, f, &g, w[t + 1] &+ k[t + 1], &bXorC)
        if expanding { expand(w, t + 1) }
        round(g, h, a, &b, c, d, e, &f, w[t + 2] &+ k[t + 2], &bXorC)
        if expanding { expand(w, t + 2) }
        round(f, g, h, &a, b, c, d, &e, w[t + 3] &+ k[t + 3], &bXorC)
        if expanding { expand(w, t + 3) }
        round(e, f, g, &h, a, b, c, &d, w[t + 4] &+ k[t + 4], &bXorC)
        if expanding { expand(w, t + 4) }
        round(d, e, f, &g, h, a, b, &c, w[t + 5] &+ k[t + 5], &bXorC)
        if expanding { expand(w, t + 5) }
        round(c, d, e, &f, g, h, a, &b, w[t + 6] &+ k[t + 6], &bXorC)
        if expanding { expand(w, t + 6) }
        round(b, c, d, &e, f, g, h, &a, w[t + 7] &+ k[t + 7], &bXorC)
        if expanding { expand(w, t + 7) }
    }

    /// Word t + 16 of the schedule (§6.2.2 step 1).
    @inline(__always)
    private static func expand(_ w: UnsafeMutablePointer<V>, _ t: Int) {
        let x = w[t + 1], y = w[t + 14]
        let s0 = rotatedRight(x, 7) ^ rotatedRight(x, 18) ^ (x &>> V(repeating: 3))
        let s1 = rotatedRight(y, 17) ^ rotatedRight(y, 19) ^ (y &>> V(repeating: 10))
        w[t + 16] = w[t] &+ s0 &+ w[t + 9] &+ s1
    }

    /// One round of §6.2.2 step 3 in every lane, as ``SHA256``'s round.
    @inline(__always)
    private static func round(
        _ a: V, _ b: V, _ c: V, _ d: inout V, _ e: V, _ f: V, _ g: V, _ h: inout V,
        _ wordPlusConstant: V, _ bXorC: inout V
    ) {
        let sigma1 = rotatedRight(e, 6) ^ rotatedRight(e, 11) ^ rotatedRight(e, 25)
        let choose = g ^ (e & (f ^ g))
        let t1 = h &+ wordPlusConstant &+ choose &+ sigma1
        let sigma0 = rotatedRight(a, 2) ^ rotatedRight(a, 13) ^ rotatedRight(a, 22)
        let aXorB = a ^ b
        let majority = b ^ (aXorB & bXorC)
        bXorC = aXorB
        d = d &+ t1
        h = t1 &+ (sigma0 &+ majority)
    }

    /// ROTR^n(x) of §3.2 in every lane, its halves added (see ``SHA256LaneVector``).
    @inline(__always)
    private static func rotatedRight(_ x: V, _ count: UInt32) -> V {
        (x &>> V(repeating: count)) &+ (x &<< V(repeating: 32 &- count))
    }
}
