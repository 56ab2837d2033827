import Foundation

/// The version of the Swift compiler that built this binary: major and minor from
/// `#if compiler(…)`, the full version from `swiftc --version` on `PATH` only when they agree.
package enum SwiftVersion {
    /// The full version, such as `6.3.1`, or the major and minor version alone.
    package static let current: String = {
        let compiledWith = majorMinor
        guard
            let output = SystemFacts.run("swiftc", ["--version"]),
            let range = output.range(of: #"Swift version (\d+\.\d+(\.\d+)?)"#, options: .regularExpression)
        else { return compiledWith }
        let version = String(output[range].dropFirst("Swift version ".count))
        return version == compiledWith || version.hasPrefix(compiledWith + ".") ? version : compiledWith
    }()

    /// The major and minor version, from the compiler itself: nothing is run to find it.
    package static var majorMinor: String {
        #if compiler(>=7.0)
        "7.0+"
        #elseif compiler(>=6.5)
        "6.5"
        #elseif compiler(>=6.4)
        "6.4"
        #elseif compiler(>=6.3)
        "6.3"
        #elseif compiler(>=6.2)
        "6.2"
        #elseif compiler(>=6.1)
        "6.1"
        #else
        "6.0"
        #endif
    }
}
