/// SHA-256's compression function (FIPS 180-4 §6.2.2) on the CPU's SHA instructions.
///
/// This module is compiled for those instructions and nothing else is: the caller asks CPUID
/// before it calls ``compress(_:blocks:count:)``, from code compiled for any CPU of the
/// architecture. It holds the x86-64 path (Intel's SHA extensions, which AMD's Zen and Intel's
/// cores since Ice Lake and Goldmont have); the ARMv8 SHA-2 instructions would be a second file of
/// the same shape, behind its own `canImport` check.
package enum SHA256Extensions {
    /// Whether this build holds a path on the instructions: `false` where the package was built
    /// without the compiler flags that allow them (Package.swift), or for another architecture.
    /// Whether the CPU has them is the caller's question.
    package static var isCompiled: Bool {
        #if arch(x86_64) && canImport(CPKCESystem.SHAExtensions)
        true
        #else
        false
        #endif
    }

    /// Compresses `count` consecutive 64-byte blocks into `state`, H0…H7 in lanes 0…7.
    ///
    /// - Precondition: ``isCompiled`` is `true` and the CPU has the instructions; on a CPU without
    ///   them the process stops with an illegal instruction.
    package static func compress(_ state: inout SIMD8<UInt32>, blocks: UnsafeRawPointer, count: Int) {
        #if arch(x86_64) && canImport(CPKCESystem.SHAExtensions)
        compressOnSHAExtensions(&state, blocks: blocks, count: count)
        #else
        preconditionFailure("this build has no path on the SHA instructions")
        #endif
    }

    /// Compresses two messages' blocks at once, `count` of each: the same as two calls of
    /// ``compress(_:blocks:count:)``, in less time than two, since the instructions of one fill the
    /// waits of the other's chain of rounds.
    ///
    /// - Precondition: as for ``compress(_:blocks:count:)``.
    package static func compressPair(
        _ first: inout SIMD8<UInt32>, blocks firstBlocks: UnsafeRawPointer,
        _ second: inout SIMD8<UInt32>, blocks secondBlocks: UnsafeRawPointer, count: Int
    ) {
        #if arch(x86_64) && canImport(CPKCESystem.SHAExtensions)
        compressPairOnSHAExtensions(&first, blocks: firstBlocks, &second, blocks: secondBlocks, count: count)
        #else
        preconditionFailure("this build has no path on the SHA instructions")
        #endif
    }
}
