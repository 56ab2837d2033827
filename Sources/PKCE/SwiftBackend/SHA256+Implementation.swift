internal import PKCESHAExtensions

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
#if arch(x86_64) && canImport(_Builtin_intrinsics.intel.cpuid)
internal import _Builtin_intrinsics.intel.cpuid
#endif

extension SHA256 {
    /// The code that computes the compression function: one per kind of CPU, chosen once per
    /// process (``selected``).
    enum Implementation: Sendable, CaseIterable {
        /// The CPU's SHA instructions (x86-64: SHA extensions and SSSE3), in `PKCESHAExtensions`.
        case shaExtensions
        /// The rounds in the integer units and the message schedule in SSE2 registers
        /// (`SHA256+VectorSchedule.swift`): the portable path of every x86-64 CPU.
        case vectorSchedule
        /// Everything a word at a time: the portable path of other architectures.
        case scalarSchedule

        /// The path this process uses: the SHA instructions when this build holds them and the CPU
        /// has them, unless ``environmentVariable`` is `portable`; else the architecture's
        /// portable path. Read once, at the first `SwiftBackend()`.
        static let selected = choose(
            forcingPortable: isPortableForced, shaExtensionsAvailable: Implementation.shaExtensions.isAvailable)

        /// The environment variable that forces the portable path when it is `portable`, as
        /// `OPENSSL_ia32cap` masks OpenSSL's paths: for comparing the two on one machine. Other
        /// values are ignored.
        static let environmentVariable = "PKCE_SWIFT_SHA256"

        /// Whether ``environmentVariable`` is `portable` in this process's environment.
        static let isPortableForced: Bool = {
            guard let value = getenv(environmentVariable) else { return false }
            return String(cString: value) == "portable"
        }()

        /// The path to use: what ``selected`` decides, as a function that tests call.
        static func choose(forcingPortable: Bool, shaExtensionsAvailable: Bool) -> Implementation {
            shaExtensionsAvailable && !forcingPortable ? .shaExtensions : .portable
        }

        /// The path as `PKCEBackend.library` records it: its ``name``, and the environment variable
        /// when this is the selected path and the variable is `portable`.
        var recordedName: String {
            self == Self.selected && Self.isPortableForced ? "\(name), \(Self.environmentVariable)=portable" : name
        }

        /// The path of CPUs without SHA instructions.
        static var portable: Implementation {
            #if arch(x86_64) && canImport(_Builtin_intrinsics.intel)
            .vectorSchedule
            #else
            .scalarSchedule
            #endif
        }

        /// Whether this build and this CPU can run it.
        var isAvailable: Bool {
            switch self {
            case .shaExtensions: CPUFeatures.hasSHAExtensions && SHA256Extensions.isCompiled
            case .vectorSchedule: Self.portable == .vectorSchedule
            case .scalarSchedule: true
            }
        }

        /// How a report names it: `SHA extensions`, `SSE2 schedule` or `scalar`.
        var name: String {
            switch self {
            case .shaExtensions: "SHA extensions"
            case .vectorSchedule: "SSE2 schedule"
            case .scalarSchedule: "scalar"
            }
        }
    }
}

extension SHA256.State {
    /// H0…H7 from lanes 0…7, as the path on the SHA instructions holds them.
    @inline(__always)
    init(_ words: SIMD8<UInt32>) {
        (a, b, c, d) = (words[0], words[1], words[2], words[3])
        (e, f, g, h) = (words[4], words[5], words[6], words[7])
    }

    /// H0…H7 in lanes 0…7.
    @inline(__always)
    var words: SIMD8<UInt32> { SIMD8(a, b, c, d, e, f, g, h) }
}

/// What CPUID says of the x86 features the SHA path needs.
private enum CPUFeatures {
    /// SHA (leaf 7, EBX bit 29) and SSSE3 (leaf 1, ECX bit 9). They need no support from the
    /// operating system beyond the SSE registers, which every x86-64 system saves.
    static let hasSHAExtensions: Bool = {
        #if arch(x86_64) && canImport(_Builtin_intrinsics.intel.cpuid)
        var (eax, ebx, ecx, edx): (UInt32, UInt32, UInt32, UInt32) = (0, 0, 0, 0)
        guard __get_cpuid(1, &eax, &ebx, &ecx, &edx) != 0 else { return false }
        let ssse3 = ecx & (1 << 9) != 0
        guard __get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx) != 0 else { return false }
        return ssse3 && ebx & (1 << 29) != 0
        #else
        return false
        #endif
    }()
}
