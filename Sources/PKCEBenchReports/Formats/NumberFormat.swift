import Foundation

/// How figures read in text: the same in progress lines and in every report.
package enum NumberFormat {
    /// Nanoseconds per operation to a precision that a run can tell apart: `12.34`, `123.4`,
    /// `12345`.
    package static func nanoseconds(_ value: Double) -> String {
        switch value {
        case ..<100: String(format: "%.2f", value)
        case ..<10_000: String(format: "%.1f", value)
        default: String(format: "%.0f", value)
        }
    }

    /// A count or rate with an SI prefix: `3.32 M`, `845 k`, `12.0`.
    package static func siPrefixed(_ value: Double) -> String {
        switch value {
        case 1e9...: String(format: "%.2f G", value / 1e9)
        case 1e6...: String(format: "%.2f M", value / 1e6)
        case 1e3...: String(format: "%.1f k", value / 1e3)
        default: String(format: "%.1f", value)
        }
    }
}
