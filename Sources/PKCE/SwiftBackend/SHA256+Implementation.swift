internal import CPKCESystem
internal import PKCESHAAVX2
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
    /// process (``selected``), in the order of preference in which they are declared.
    enum Implementation: Sendable, CaseIterable {
        /// The CPU's SHA instructions (x86-64: SHA extensions and SSSE3), in `PKCESHAExtensions`.
        case shaExtensions
        /// The message schedule of two blocks at once in AVX2 registers and the rounds with BMI1
        /// and BMI2, in `PKCESHAAVX2`: x86-64 CPUs without SHA instructions.
        case avx2
        /// The rounds in the integer units and the message schedule in SSE2 registers
        /// (`SHA256+VectorSchedule.swift`): the portable path of every x86-64 CPU.
        case vectorSchedule
        /// Everything a word at a time: the portable path of other architectures.
        case scalarSchedule

        /// The path this process uses: the one ``environmentVariable`` names, when this build and
        /// this CPU can run it; else the first of the paths, in the order they are declared, that
        /// they can run. Read once, at the first `SwiftBackend()`.
        static let selected = choose(requesting: requested, isAvailable: \.isAvailable)

        /// The environment variable that forces a path, as `OPENSSL_ia32cap` masks OpenSSL's
        /// paths: for comparing paths, and backends on one path, on one machine. Its values are
        /// the paths' ``environmentValue``s and `portable`, the architecture's ``portable`` path
        /// (the one that runs on every CPU of the architecture: the SSE2 schedule on x86-64).
        static let environmentVariable = "PKCE_SWIFT_SHA256"

        /// ``environmentVariable``'s value in this process's environment, if it is set, and the
        /// path it names, if it names one.
        static let requested: (value: String, path: Implementation?)? = {
            guard let value = getenv(environmentVariable).map({ String(cString: $0) }) else { return nil }
            return (value, Implementation(environmentValue: value))
        }()

        /// The path `value` names: a path's ``environmentValue``, or `portable`.
        init?(environmentValue value: String) {
            if value == "portable" {
                self = .portable
            } else if let path = Self.allCases.first(where: { $0.environmentValue == value }) {
                self = path
            } else {
                return nil
            }
        }

        /// The path to use: what ``selected`` decides, as a function that tests call.
        static func choose(
            requesting requested: (value: String, path: Implementation?)?, isAvailable: (Implementation) -> Bool
        ) -> Implementation {
            if let path = requested?.path, isAvailable(path) { return path }
            return allCases.first(where: isAvailable) ?? .scalarSchedule
        }

        /// The path as `PKCEBackend.library` records it: its ``name``, and, when this is the
        /// selected path and ``environmentVariable`` is set, the variable and its value, followed
        /// by `ignored` when the value names no path that can run here.
        var recordedName: String {
            guard self == Self.selected, let requested = Self.requested else { return name }
            let setting = "\(name), \(Self.environmentVariable)=\(requested.value)"
            return requested.path == self ? setting : "\(setting) ignored"
        }

        /// The path that every build of this package can run on every CPU of the architecture,
        /// which `PKCE_SWIFT_SHA256=portable` forces: the reference the other paths are checked
        /// against.
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
            case .avx2: CPUFeatures.hasAVX2 && SHA256AVX2.isCompiled
            case .vectorSchedule: Self.portable == .vectorSchedule
            case .scalarSchedule: true
            }
        }

        /// How a report names it: `SHA extensions`, `AVX2 schedule`, `SSE2 schedule` or `scalar`.
        var name: String {
            switch self {
            case .shaExtensions: "SHA extensions"
            case .avx2: "AVX2 schedule"
            case .vectorSchedule: "SSE2 schedule"
            case .scalarSchedule: "scalar"
            }
        }

        /// The value of ``environmentVariable`` that forces it: `sha-extensions`, `avx2`, `sse2`
        /// or `scalar`.
        var environmentValue: String {
            switch self {
            case .shaExtensions: "sha-extensions"
            case .avx2: "avx2"
            case .vectorSchedule: "sse2"
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

/// What CPUID says of the x86 features the paths need.
private enum CPUFeatures {
    /// SHA (leaf 7, EBX bit 29) and SSSE3 (leaf 1, ECX bit 9). They need no support from the
    /// operating system beyond the SSE registers, which every x86-64 system saves.
    static let hasSHAExtensions: Bool = {
        #if arch(x86_64) && canImport(_Builtin_intrinsics.intel.cpuid)
        guard let leaf1 = leaf(1), let leaf7 = leaf(7) else { return false }
        return leaf1.ecx & (1 << 9) != 0 && leaf7.ebx & (1 << 29) != 0
        #else
        return false
        #endif
    }()

    /// AVX2 (leaf 7, EBX bit 5), BMI1 (bit 3) and BMI2 (bit 8), and an operating system that saves
    /// the AVX registers: leaf 1 reports AVX (ECX bit 28) and OSXSAVE (bit 27), the system's
    /// enabling XGETBV, which then reports in XCR0 that the SSE and AVX state are saved (bits 1
    /// and 2; Intel SDM vol. 1, §14.3). Without that, AVX instructions fault however CPUID
    /// reports them.
    static let hasAVX2: Bool = {
        #if arch(x86_64) && canImport(_Builtin_intrinsics.intel.cpuid)
        guard let leaf1 = leaf(1), let leaf7 = leaf(7) else { return false }
        let avx: UInt32 = 1 << 28, osxsave: UInt32 = 1 << 27
        guard leaf1.ecx & (avx | osxsave) == avx | osxsave else { return false }
        guard CPKCESystem_xgetbv(0) & 0b110 == 0b110 else { return false }
        let avx2: UInt32 = 1 << 5, bmi1: UInt32 = 1 << 3, bmi2: UInt32 = 1 << 8
        return leaf7.ebx & (avx2 | bmi1 | bmi2) == avx2 | bmi1 | bmi2
        #else
        return false
        #endif
    }()

    #if arch(x86_64) && canImport(_Builtin_intrinsics.intel.cpuid)
    /// CPUID's registers for `leaf` (subleaf 0), or `nil` when the CPU has no such leaf.
    private static func leaf(_ leaf: UInt32) -> (ebx: UInt32, ecx: UInt32)? {
        var (eax, ebx, ecx, edx): (UInt32, UInt32, UInt32, UInt32) = (0, 0, 0, 0)
        guard __get_cpuid_count(leaf, 0, &eax, &ebx, &ecx, &edx) != 0 else { return nil }
        return (ebx, ecx)
    }
    #endif
}
