/// SHA-256's compression function (FIPS 180-4 §6.2.2) on AVX2, BMI1 and BMI2: the path of x86-64
/// CPUs without SHA instructions (Intel's cores from Haswell to Comet Lake and Cascade Lake, AMD's
/// from Excavator, and VMs that hide the SHA flag).
///
/// This module is compiled for those instructions and nothing else is: the caller asks CPUID, and
/// XGETBV whether the operating system saves the AVX registers, before it calls
/// ``compress(_:blocks:count:schedule:)``, from code compiled for any x86-64 CPU.
package enum SHA256AVX2 {
    /// Whether this build holds the path: `false` where the package was built without the
    /// compiler flags that allow the instructions (Package.swift), or for another architecture.
    /// Whether the CPU has them is the caller's question.
    package static var isCompiled: Bool {
        #if arch(x86_64) && canImport(CPKCESystem.AVX2)
        true
        #else
        false
        #endif
    }

    /// The bytes of the buffer that ``compress(_:blocks:count:schedule:)`` writes the message
    /// schedule to: two blocks' 64 words, each plus its round constant, then a copy of the two
    /// blocks.
    package static var scheduleByteCount: Int { 640 }

    /// Compresses `count` consecutive 64-byte blocks at `blocks`, then `tailCount` at `tail`, into
    /// `state`, H0…H7 in lanes 0…7: a message's whole blocks where they are, then its padded last
    /// ones, so that a block of each can be scheduled together.
    ///
    /// The message schedule and the copy of the last blocks, which are made of the message, are
    /// left in `schedule`: the caller wipes it.
    ///
    /// - Parameters:
    ///   - state: H0…H7 before the blocks, in lanes 0…7; after them on return.
    ///   - blocks: The message's whole blocks; `nil` only when `count` is 0.
    ///   - count: How many 64-byte blocks `blocks` holds.
    ///   - tail: The padded last blocks.
    ///   - tailCount: How many 64-byte blocks `tail` holds.
    ///   - schedule: At least ``scheduleByteCount`` bytes, aligned to 32; checked.
    /// - Precondition: ``isCompiled`` is `true`, and the CPU has the instructions and the operating
    ///   system saves their registers; elsewhere the process stops with an illegal instruction.
    package static func compress(
        _ state: inout SIMD8<UInt32>, blocks: UnsafeRawPointer?, count: Int, then tail: UnsafeRawPointer,
        count tailCount: Int, schedule: UnsafeMutableRawBufferPointer
    ) {
        #if arch(x86_64) && canImport(CPKCESystem.AVX2)
        guard let start = schedule.baseAddress, schedule.count >= scheduleByteCount,
            Int(bitPattern: start) & 31 == 0
        else { preconditionFailure("the schedule needs \(scheduleByteCount) bytes aligned to 32") }
        compressOnAVX2(&state, blocks: blocks, count: count, then: tail, count: tailCount, schedule: start)
        #else
        preconditionFailure("this build has no path on AVX2")
        #endif
    }
}
