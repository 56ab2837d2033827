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
        [CodeChallenge](unsafeUninitializedCapacity: verifiers.count) { challenges, initialized in
            // Vectors: each round's constant splatted (once per call rather than once per round),
            // the message schedule, the state as it is stored to read the hash values out, and rows
            // being transposed. Integers: each lane's block count. Bytes: each lane's padded blocks.
            withUnsafeTemporaryAllocation(of: V.self, capacity: Scratch<V>.count) { vectors in
                withUnsafeTemporaryAllocation(of: Int.self, capacity: V.scalarCount) { blockCounts in
                    let scratch = Scratch<V>(vectors: vectors.baseAddress!, blockCounts: blockCounts.baseAddress!)
                    withUnsafeBytes(of: SHA256.roundConstants) { roundConstants in
                        for t in 0..<64 {
                            scratch.constants[t] = V(
                                repeating: roundConstants.load(fromByteOffset: t * 4, as: UInt32.self))
                        }
                    }
                    withUnsafeTemporaryAllocation(byteCount: V.scalarCount * blocksPerLane * 64, alignment: 64) {
                        blocks in
                        // Zeros to begin with, so that no lane's block is read before it is written.
                        blocks.initializeMemory(as: UInt8.self, repeating: 0)
                        verifiers.withUnsafeBufferPointer { verifiers in
                            for start in stride(from: 0, to: verifiers.count, by: V.scalarCount) {
                                hash(
                                    verifiers.baseAddress! + start, count: min(V.scalarCount, verifiers.count - start),
                                    blocks: blocks, scratch: scratch, into: challenges.baseAddress! + start)
                            }
                        }
                        // The blocks hold verifiers; the schedule and the state, words made from them.
                        zeroize(blocks)
                    }
                    scratch.wipe()
                }
            }
            initialized = verifiers.count
        }
    }

    /// Where the vectors of a call live: one temporary allocation, cut in four, the round
    /// constants first and then the parts that hold words made from verifiers; and, in an
    /// allocation of their own, the lanes' block counts.
    fileprivate struct Scratch<V: SHA256LaneVector> {
        /// How many vectors the parts take.
        static var count: Int { 64 + 16 + 8 + 16 }

        /// K₀…K₆₃, each in every lane.
        let constants: UnsafeMutablePointer<V>
        /// The message schedule: the last 16 words.
        let schedule: UnsafeMutablePointer<V>
        /// The eight state words, stored to be read lane by lane.
        let state: UnsafeMutablePointer<V>
        /// Rows of words on their way into the schedule.
        let transposition: UnsafeMutablePointer<V>
        /// The number of blocks of each lane's message, `V.scalarCount` of them.
        let blockCounts: UnsafeMutablePointer<Int>

        init(vectors: UnsafeMutablePointer<V>, blockCounts: UnsafeMutablePointer<Int>) {
            constants = vectors
            schedule = vectors + 64
            state = vectors + 80
            transposition = vectors + 88
            self.blockCounts = blockCounts
        }

        /// Zeros over every part but the constants, which are public.
        func wipe() {
            zeroize(UnsafeMutableRawBufferPointer(start: schedule, count: (Self.count - 64) * MemoryLayout<V>.stride))
            zeroize(UnsafeMutableRawBufferPointer(start: blockCounts, count: V.scalarCount * MemoryLayout<Int>.stride))
        }
    }

    /// Hashes the `verifierCount` verifiers at `verifiers`, at most `V.scalarCount`, and
    /// initializes their challenges at `challenges`.
    ///
    /// Each lane's message is padded in `blocks` (§5.1.1), then all lanes are compressed block by
    /// block; a lane whose message ends before the others' takes its challenge from its last
    /// block, and the other lanes carry on.
    @inline(__always)
    private static func hash<V: SHA256LaneVector>(
        _ verifiers: UnsafePointer<CodeVerifier>, count verifierCount: Int,
        blocks: UnsafeMutableRawBufferPointer,
        scratch: Scratch<V>,
        into challenges: UnsafeMutablePointer<CodeChallenge>
    ) {
        let laneBytes = blocksPerLane * 64
        // How many blocks each lane's message takes: scalars, read one at a time.
        let blockCounts = scratch.blockCounts
        var mostBlocks = 0
        for lane in 0..<V.scalarCount {
            let padded = UnsafeMutableRawBufferPointer(rebasing: blocks[(lane * laneBytes)..<((lane + 1) * laneBytes)])
            guard lane < verifierCount else {
                // No message: a lane of zeros, hashed and never read.
                padded.initializeMemory(as: UInt8.self, repeating: 0)
                blockCounts[lane] = 0
                continue
            }
            let count = pad(VerifierCharacters.bytes(of: verifiers + lane), into: padded.baseAddress!)
            blockCounts[lane] = count
            mostBlocks = max(mostBlocks, count)
        }

        var state = LaneState<V>()
        for block in 0..<mostBlocks {
            loadWords(of: UnsafeRawPointer(blocks.baseAddress!) + block * 64, laneStride: laneBytes, into: scratch)
            state.compress(schedule: scratch.schedule, constants: scratch.constants)

            // The lanes whose message ended with this block have their hash value: word i of lane
            // l is lane l of vector i.
            state.store(to: scratch.state)
            let words = UnsafeRawPointer(scratch.state)
            for lane in 0..<verifierCount where blockCounts[lane] == block + 1 {
                let characters = S256Characters { i in
                    words.load(fromByteOffset: (i * V.scalarCount + lane) * 4, as: UInt32.self)
                }
                (challenges + lane).initialize(to: CodeChallenge(s256: characters))
            }
        }
    }
}

extension SHA256Lanes {
    /// Writes `message` padded (§5.1.1) at `lane`, and returns the number of blocks it takes: the
    /// message, 0x80, zeros, and its length in bits, big-endian, ending the last block.
    ///
    /// Blocks past the message's last are compressed while longer messages in other lanes go on,
    /// and never read: whatever they hold, a previous group's verifier or the zeros the call began
    /// with, is wiped at the end. The bytes move inline, 32 at a time (the last move overlapping
    /// the one before), and the zeros go in as whole blocks before the message, with no call to
    /// `memcpy` or `memset` for so few bytes. ``SHA256Pairs`` pads its two messages the same way.
    ///
    /// - Precondition: `message` has 32 to 128 bytes; a verifier has 43 to 128 characters.
    @inline(__always)
    static func pad(_ message: UnsafeRawBufferPointer, into lane: UnsafeMutableRawPointer) -> Int {
        let length = message.count
        assert((32...CodeVerifier.allowedLengths.upperBound).contains(length), "a lane takes 32 to 128 bytes")
        let count = (length + 9 + 63) / 64
        for block in (length / 64)..<count {
            lane.storeBytes(of: SIMD64<UInt8>(), toByteOffset: block * 64, as: SIMD64<UInt8>.self)
        }
        let source = message.baseAddress!
        var offset = 0
        while true {
            let start = min(offset, length - 32)
            let bytes = source.loadUnaligned(fromByteOffset: start, as: SIMD32<UInt8>.self)
            lane.storeBytes(of: bytes, toByteOffset: start, as: SIMD32<UInt8>.self)
            offset += 32
            if offset >= length { break }
        }
        lane.storeBytes(of: 0x80, toByteOffset: length, as: UInt8.self)
        lane.storeBytes(of: (UInt64(length) &* 8).bigEndian, toByteOffset: count * 64 - 8, as: UInt64.self)
        return count
    }

    /// Word t of every lane's block into vector t of the schedule, big-endian words made numbers:
    /// the lanes of a vector are messages.
    ///
    /// The blocks are rows of 16 words, `laneStride` bytes apart, so this is a transposition,
    /// done `V.scalarCount` words of every row at a time in vector registers. Storing each word on
    /// its own and then loading the vectors they make is slower: every load waits for the stores
    /// it covers.
    @inline(__always)
    fileprivate static func loadWords<V: SHA256LaneVector>(
        of firstRow: UnsafeRawPointer, laneStride: Int, into scratch: Scratch<V>
    ) {
        let lanes = V.scalarCount
        // Each step takes word w of row r to word (r mod 2)·n/2 + ⌊w/2⌋ of row (w mod 2)·n/2 +
        // ⌊r/2⌋: a rotation of the bits of r and w read as one number. log₂ n steps rotate them by
        // log₂ n bits, which swaps r and w. The steps go back and forth between two places, so
        // that the last ends in the schedule.
        let steps = lanes.trailingZeroBitCount
        for column in stride(from: 0, to: 16, by: lanes) {
            let schedule = scratch.schedule + column
            var (from, to) = steps % 2 == 0 ? (schedule, scratch.transposition) : (scratch.transposition, schedule)
            for lane in 0..<lanes {
                from[lane] = firstRow.loadUnaligned(fromByteOffset: lane * laneStride + column * 4, as: V.self)
            }
            for _ in 0..<steps {
                for pair in 0..<(lanes / 2) {
                    (to[pair], to[lanes / 2 + pair]) = V.unzip(from[2 * pair], from[2 * pair + 1])
                }
                swap(&from, &to)
            }
            // The words were loaded in the host's byte order; SHA-256's are big-endian.
            #if _endian(little)
            for t in 0..<lanes { schedule[t] = V.byteSwapped(schedule[t]) }
            #endif
        }
    }
}

/// The vectors ``SHA256Lanes`` computes with: SIMD4, SIMD8 and SIMD16 of `UInt32`.
///
/// Two requirements. `&+`: in generic code, the standard library's generic `SIMD` addition
/// loops over the lanes, which the optimiser left as scalar code, far slower. As a requirement,
/// each conformance supplies its concrete vector addition instead. The other operators vectorise
/// as they are; rotations add their two halves instead of OR-ing them for the same reason (the
/// halves share no bits, so the sum is the same). And `unzip`, because `evenHalf` and `oddHalf`
/// belong to each concrete type, not to `SIMD`.
protocol SHA256LaneVector: SIMD where Scalar == UInt32 {
    static func &+ (lhs: Self, rhs: Self) -> Self

    /// The even-numbered words of `a` then of `b`, and their odd-numbered words likewise: one
    /// step of a transposition, a two-source shuffle or two on every target.
    static func unzip(_ a: Self, _ b: Self) -> (even: Self, odd: Self)
}

extension SHA256LaneVector {
    /// Every word with its bytes reversed: a byte shuffle where the target has one.
    @inline(__always)
    static func byteSwapped(_ x: Self) -> Self {
        let middle = Self(repeating: 0xFF00)
        return (x &<< Self(repeating: 24)) | ((x & middle) &<< Self(repeating: 8))
            | ((x &>> Self(repeating: 8)) & middle) | (x &>> Self(repeating: 24))
    }
}

extension SIMD4: SHA256LaneVector where Scalar == UInt32 {
    @inline(__always)
    static func unzip(_ a: Self, _ b: Self) -> (even: Self, odd: Self) {
        (Self(lowHalf: a.evenHalf, highHalf: b.evenHalf), Self(lowHalf: a.oddHalf, highHalf: b.oddHalf))
    }
}

extension SIMD8: SHA256LaneVector where Scalar == UInt32 {
    @inline(__always)
    static func unzip(_ a: Self, _ b: Self) -> (even: Self, odd: Self) {
        (Self(lowHalf: a.evenHalf, highHalf: b.evenHalf), Self(lowHalf: a.oddHalf, highHalf: b.oddHalf))
    }
}

extension SIMD16: SHA256LaneVector where Scalar == UInt32 {
    @inline(__always)
    static func unzip(_ a: Self, _ b: Self) -> (even: Self, odd: Self) {
        (Self(lowHalf: a.evenHalf, highHalf: b.evenHalf), Self(lowHalf: a.oddHalf, highHalf: b.oddHalf))
    }
}

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

    /// Processes one block of every lane (§6.2.2), whose 16 words are in `w`.
    ///
    /// The structure of ``SHA256``'s compression: the schedule computed beside the rounds (with 4
    /// lanes too, faster than computed up front), the majority from the previous round's a ⊕ b,
    /// rotating roles. The schedule is 16 words long: word t + 16 takes the place of word t, the
    /// last round to read it. The rounds stay in loops over the constants, sixteen at a time, so
    /// that every schedule word's place is a constant: writing all 64 out would make the
    /// compiler's work (and the build) far longer for vector code that is limited by throughput,
    /// not registers.
    @inline(__always)
    mutating func compress(schedule w: UnsafeMutablePointer<V>, constants k: UnsafeMutablePointer<V>) {
        var (a, b, c, d, e, f, g, h) = (self.a, self.b, self.c, self.d, self.e, self.f, self.g, self.h)
        var bXorC = b ^ c
        for t in stride(from: 0, to: 48, by: 16) {
            Self.eightRounds(&a, &b, &c, &d, &e, &f, &g, &h, &bXorC, w, slot: 0, k + t, expanding: true)
            Self.eightRounds(&a, &b, &c, &d, &e, &f, &g, &h, &bXorC, w, slot: 8, k + t + 8, expanding: true)
        }
        Self.eightRounds(&a, &b, &c, &d, &e, &f, &g, &h, &bXorC, w, slot: 0, k + 48, expanding: false)
        Self.eightRounds(&a, &b, &c, &d, &e, &f, &g, &h, &bXorC, w, slot: 8, k + 56, expanding: false)
        self.a = self.a &+ a
        self.b = self.b &+ b
        self.c = self.c &+ c
        self.d = self.d &+ d
        self.e = self.e &+ e
        self.f = self.f &+ f
        self.g = self.g &+ g
        self.h = self.h &+ h
    }

    /// Eight rounds, whose schedule words are `w[slot]…w[slot + 7]` and constants `k[0]…k[7]`,
    /// each followed, when `expanding`, by the schedule word 16 rounds ahead, in the same place.
    ///
    /// `slot` and `expanding` are constants at each call, so the inlined code has constant places
    /// and no branch: a test inside the rounds was slower.
    @inline(__always)
    private static func eightRounds(
        _ a: inout V, _ b: inout V, _ c: inout V, _ d: inout V, _ e: inout V, _ f: inout V, _ g: inout V,
        _ h: inout V, _ bXorC: inout V,
        _ w: UnsafeMutablePointer<V>, slot: Int, _ k: UnsafeMutablePointer<V>, expanding: Bool
    ) {
        round(a, b, c, &d, e, f, g, &h, w[slot] &+ k[0], &bXorC)
        if expanding { expand(w, slot) }
        round(h, a, b, &c, d, e, f, &g, w[slot + 1] &+ k[1], &bXorC)
        if expanding { expand(w, slot + 1) }
        round(g, h, a, &b, c, d, e, &f, w[slot + 2] &+ k[2], &bXorC)
        if expanding { expand(w, slot + 2) }
        round(f, g, h, &a, b, c, d, &e, w[slot + 3] &+ k[3], &bXorC)
        if expanding { expand(w, slot + 3) }
        round(e, f, g, &h, a, b, c, &d, w[slot + 4] &+ k[4], &bXorC)
        if expanding { expand(w, slot + 4) }
        round(d, e, f, &g, h, a, b, &c, w[slot + 5] &+ k[5], &bXorC)
        if expanding { expand(w, slot + 5) }
        round(c, d, e, &f, g, h, a, &b, w[slot + 6] &+ k[6], &bXorC)
        if expanding { expand(w, slot + 6) }
        round(b, c, d, &e, f, g, h, &a, w[slot + 7] &+ k[7], &bXorC)
        if expanding { expand(w, slot + 7) }
    }

    /// Word t + 16 of the schedule (§6.2.2 step 1) in the place of word t, `slot`, of the 16.
    @inline(__always)
    private static func expand(_ w: UnsafeMutablePointer<V>, _ slot: Int) {
        let x = w[(slot + 1) & 15], y = w[(slot + 14) & 15]
        let s0 = rotatedRight(x, 7) ^ rotatedRight(x, 18) ^ (x &>> V(repeating: 3))
        let s1 = rotatedRight(y, 17) ^ rotatedRight(y, 19) ^ (y &>> V(repeating: 10))
        w[slot] = w[slot] &+ s0 &+ w[(slot + 9) & 15] &+ s1
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
