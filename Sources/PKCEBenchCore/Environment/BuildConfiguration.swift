internal import CPKCEHarness

/// The configuration a binary was compiled in. Its raw value is what reports and the worker
/// protocol record: `"build":"release"`.
package enum BuildConfiguration: String, Sendable, Hashable, Codable, CustomStringConvertible {
    case release
    case debug

    /// The configuration this module was compiled in.
    package static var current: BuildConfiguration {
        #if DEBUG
        .debug
        #else
        .release
        #endif
    }

    /// The instruction set the Swift code was compiled for: an x86-64 microarchitecture level
    /// (`x86-64`, `x86-64-v2`, `-v3` with AVX2, `-v4` with AVX-512), or `arm64` and others by name.
    /// Swift's `#if` cannot tell the levels apart; the C headers' predefined macros can.
    package static var targetCPU: String {
        String(cString: CPKCEHarness_targetCPU())
    }

    /// The raw value, as `swift build -c` takes it.
    package var description: String { rawValue }
}
