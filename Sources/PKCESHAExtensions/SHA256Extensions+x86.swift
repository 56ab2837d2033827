#if arch(x86_64) && canImport(CPKCESystem.SHAExtensions)
// The compiler's own declarations of the instructions: no library is linked.
internal import _Builtin_intrinsics.intel

// The path on Intel's SHA extensions, as Intel's paper describes it (Gulley et al., "Intel SHA
// Extensions", 2013) and as OpenSSL's `sha256_block_data_order_shaext` and the Linux kernel's
// `sha256_ni_asm.S` use it: `sha256rnds2` does two rounds, `sha256msg1` and `sha256msg2` compute
// four words of the message schedule. The state lives in two registers in the order the round
// instruction takes it, ABEF and CDGH (A in the highest lane), and the message schedule in four
// registers of four words. The code stores nothing to memory itself; the compiler keeps one
// message's state and schedule in registers, and spills the state saved at the start of each block
// when two messages run together (SecretsInMemory.md).
extension SHA256Extensions {
    static func compressOnSHAExtensions(_ state: inout SIMD8<UInt32>, blocks: UnsafeRawPointer, count: Int) {
        var message = MessageInFlight(state)
        for block in 0..<count {
            message.load(blocks + block &* 64)
            compressBlock(&message)
        }
        state = message.state
    }

    static func compressPairOnSHAExtensions(
        _ first: inout SIMD8<UInt32>, blocks firstBlocks: UnsafeRawPointer,
        _ second: inout SIMD8<UInt32>, blocks secondBlocks: UnsafeRawPointer, count: Int
    ) {
        var messages = MessagePair(first: MessageInFlight(first), second: MessageInFlight(second))
        for block in 0..<count {
            messages.first.load(firstBlocks + block &* 64)
            messages.second.load(secondBlocks + block &* 64)
            compressBlock(&messages)
        }
        (first, second) = (messages.first.state, messages.second.state)
    }

    /// The 64 rounds of one block (§6.2.2), four at a time, with the constants K₀…K₆₃ of §4.2.2.
    @inline(__always)
    private static func compressBlock(_ messages: inout some BlocksInFlight) {
        messages.rounds(0, Words(0x428a_2f98, 0x7137_4491, 0xb5c0_fbcf, 0xe9b5_dba5))
        messages.rounds(1, Words(0x3956_c25b, 0x59f1_11f1, 0x923f_82a4, 0xab1c_5ed5))
        messages.rounds(2, Words(0xd807_aa98, 0x1283_5b01, 0x2431_85be, 0x550c_7dc3))
        messages.rounds(3, Words(0x72be_5d74, 0x80de_b1fe, 0x9bdc_06a7, 0xc19b_f174))
        messages.rounds(4, Words(0xe49b_69c1, 0xefbe_4786, 0x0fc1_9dc6, 0x240c_a1cc))
        messages.rounds(5, Words(0x2de9_2c6f, 0x4a74_84aa, 0x5cb0_a9dc, 0x76f9_88da))
        messages.rounds(6, Words(0x983e_5152, 0xa831_c66d, 0xb003_27c8, 0xbf59_7fc7))
        messages.rounds(7, Words(0xc6e0_0bf3, 0xd5a7_9147, 0x06ca_6351, 0x1429_2967))
        messages.rounds(8, Words(0x27b7_0a85, 0x2e1b_2138, 0x4d2c_6dfc, 0x5338_0d13))
        messages.rounds(9, Words(0x650a_7354, 0x766a_0abb, 0x81c2_c92e, 0x9272_2c85))
        messages.rounds(10, Words(0xa2bf_e8a1, 0xa81a_664b, 0xc24b_8b70, 0xc76c_51a3))
        messages.rounds(11, Words(0xd192_e819, 0xd699_0624, 0xf40e_3585, 0x106a_a070))
        messages.rounds(12, Words(0x19a4_c116, 0x1e37_6c08, 0x2748_774c, 0x34b0_bcb5))
        messages.rounds(13, Words(0x391c_0cb3, 0x4ed8_aa4a, 0x5b9c_ca4f, 0x682e_6ff3))
        messages.rounds(14, Words(0x748f_82ee, 0x78a5_636f, 0x84c8_7814, 0x8cc7_0208))
        messages.rounds(15, Words(0x90be_fffa, 0xa450_6ceb, 0xbef9_a3f7, 0xc671_78f2))
        messages.addInitialState()
    }
}

/// Four words, in one SSE register.
private typealias Words = SIMD4<UInt32>

/// One message or several whose blocks are compressed together: several, because one message's
/// rounds are a chain in which each `sha256rnds2` waits for the one before, and the instructions
/// of another message's chain fill the waits.
private protocol BlocksInFlight {
    /// Rounds 4·`group`…4·`group`+3, given their constants.
    mutating func rounds(_ group: Int, _ constants: Words)
    /// Adds the state before the block to the working state (§6.2.2 step 4).
    mutating func addInitialState()
}

/// One message's state and message schedule, in registers.
private struct MessageInFlight: BlocksInFlight {
    var abef: Words
    var cdgh: Words
    /// The state before the current block.
    var initialABEF = Words(), initialCDGH = Words()
    /// W_t…W_t+15 of the current block, four to a register: word t in `w[t / 4 % 4]`.
    var w0 = Words(), w1 = Words(), w2 = Words(), w3 = Words()

    /// H0…H3 and H4…H7, each pair of words swapped, then interleaved: lanes F E B A and H G D C.
    @inline(__always)
    init(_ state: SIMD8<UInt32>) {
        let badc = Words(state[1], state[0], state[3], state[2])
        let fehg = Words(state[5], state[4], state[7], state[6])
        abef = Words(lowHalf: fehg.lowHalf, highHalf: badc.lowHalf)
        cdgh = Words(lowHalf: fehg.highHalf, highHalf: badc.highHalf)
    }

    /// H0…H7: the halves regrouped (B A D C and F E H G), each pair of words swapped back.
    var state: SIMD8<UInt32> {
        @inline(__always) get {
            let badc = Words(lowHalf: abef.highHalf, highHalf: cdgh.highHalf)
            let fehg = Words(lowHalf: abef.lowHalf, highHalf: cdgh.lowHalf)
            return SIMD8(
                lowHalf: Words(badc[1], badc[0], badc[3], badc[2]),
                highHalf: Words(fehg[1], fehg[0], fehg[3], fehg[2]))
        }
    }

    /// Starts the block at `start`: its 16 words, read as big-endian integers (§3.1), a load and
    /// a byte shuffle for each four.
    @inline(__always)
    mutating func load(_ start: UnsafeRawPointer) {
        (initialABEF, initialCDGH) = (abef, cdgh)
        let reversed = unsafeBitCast(
            SIMD16<UInt8>(3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8, 15, 14, 13, 12), to: __m128i.self)
        func words(_ index: Int) -> Words {
            let bytes = start.loadUnaligned(fromByteOffset: index &* 16, as: __m128i.self)
            return unsafeBitCast(_mm_shuffle_epi8(bytes, reversed), to: Words.self)
        }
        (w0, w1, w2, w3) = (words(0), words(1), words(2), words(3))
    }

    /// The rounds with the words of register `group % 4`; then, up to group 11, that register
    /// receives the words of group + 4. `group` is a constant at every call, so the switches
    /// fold away.
    @inline(__always)
    mutating func rounds(_ group: Int, _ constants: Words) {
        switch group & 3 {
        case 0: fourRounds(w0 &+ constants)
        case 1: fourRounds(w1 &+ constants)
        case 2: fourRounds(w2 &+ constants)
        default: fourRounds(w3 &+ constants)
        }
        guard group < 12 else { return }
        switch group & 3 {
        case 0: w0 = Self.nextWords(w0, w1, w2, w3)
        case 1: w1 = Self.nextWords(w1, w2, w3, w0)
        case 2: w2 = Self.nextWords(w2, w3, w0, w1)
        default: w3 = Self.nextWords(w3, w0, w1, w2)
        }
    }

    @inline(__always)
    mutating func addInitialState() {
        abef &+= initialABEF
        cdgh &+= initialCDGH
    }

    /// Rounds t…t+3, given K_t…K_t+3 plus W_t…W_t+3: `sha256rnds2` does two rounds with the low
    /// two words of its third operand, and returns the new ABEF; the old ABEF is the new CDGH.
    @inline(__always)
    private mutating func fourRounds(_ constantsPlusWords: Words) {
        let kw = Self.vector(constantsPlusWords)
        cdgh = Self.words(_mm_sha256rnds2_epu32(Self.vector(cdgh), Self.vector(abef), kw))
        abef = Self.words(_mm_sha256rnds2_epu32(Self.vector(abef), Self.vector(cdgh), _mm_unpackhi_epi64(kw, kw)))
    }

    /// W_t+16…W_t+19 (§6.2.2 step 1), from W_t…W_t+15 in `w0`…`w3`: `sha256msg1` adds σ0 of
    /// W_t+1…W_t+4 to W_t…W_t+3, then W_t+9…W_t+12 is added, and `sha256msg2` adds σ1 of
    /// W_t+14…W_t+17, computing the last two of those itself.
    @inline(__always)
    private static func nextWords(_ w0: Words, _ w1: Words, _ w2: Words, _ w3: Words) -> Words {
        let partial = words(_mm_sha256msg1_epu32(vector(w0), vector(w1))) &+ Words(w2[1], w2[2], w2[3], w3[0])
        return words(_mm_sha256msg2_epu32(vector(partial), vector(w3)))
    }

    @inline(__always)
    private static func vector(_ words: Words) -> __m128i { unsafeBitCast(words, to: __m128i.self) }

    @inline(__always)
    private static func words(_ vector: __m128i) -> Words { unsafeBitCast(vector, to: Words.self) }
}

/// Two messages, their instructions interleaved group by group.
private struct MessagePair: BlocksInFlight {
    var first: MessageInFlight
    var second: MessageInFlight

    @inline(__always)
    mutating func rounds(_ group: Int, _ constants: Words) {
        first.rounds(group, constants)
        second.rounds(group, constants)
    }

    @inline(__always)
    mutating func addInitialState() {
        first.addInitialState()
        second.addInitialState()
    }
}
#endif
