/// SplitMix64's output function (Steele, Lea and Flood, "Fast splittable pseudorandom number
/// generators", OOPSLA 2014): mixes every bit of `value` into every bit of the result, so that
/// neighbouring inputs give unrelated outputs. Not for secrets: it is a bijection anyone can invert.
func splitMix64Finalized(_ value: UInt64) -> UInt64 {
    var mixed = (value ^ (value >> 30)) &* 0xbf58_476d_1ce4_e5b9
    mixed = (mixed ^ (mixed >> 27)) &* 0x94d0_49bb_1331_11eb
    return mixed ^ (mixed >> 31)
}

/// SplitMix64's increment, the golden ratio's 64-bit fraction: its multiples spread over the 64-bit
/// range.
let splitMix64Increment: UInt64 = 0x9e37_79b9_7f4a_7c15

/// SplitMix64 as a seeded generator: the same seed gives the same sequence on every platform, so a
/// permutation test gives the same p-value each time it reads the same history. Not for secrets.
package struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    package init(seed: UInt64) {
        state = seed
    }

    package mutating func next() -> UInt64 {
        state &+= splitMix64Increment
        return splitMix64Finalized(state)
    }
}
