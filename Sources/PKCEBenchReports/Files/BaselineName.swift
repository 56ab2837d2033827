import PKCEBenchCore

/// Which baseline of a results directory: `baseline.csv`, or `baseline-NAME.csv` for a named one,
/// so that one directory can keep several (`main`, `release-1.2`), as criterion's
/// `--save-baseline NAME` does.
package struct BaselineName: Sendable, Hashable, CustomStringConvertible {
    /// `nil` for the unnamed baseline.
    package let name: String?

    package static let unnamed = BaselineName(checked: nil)

    private init(checked name: String?) {
        self.name = name
    }

    /// - Parameter name: 1 to 64 letters, digits, `.`, `_` and `-`, not starting with `.` or `-`:
    ///   it becomes part of a file name.
    /// - Throws: `BenchError` (`.usage`) for any other name.
    package init(_ name: String) throws(BenchError) {
        let allowed = name.utf8.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20) || (0x30...0x39).contains(byte)
                || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
        }
        guard allowed, (1...64).contains(name.utf8.count), !name.hasPrefix("."), !name.hasPrefix("-") else {
            throw BenchError(
                .usage,
                "baseline name '\(name)' is not 1 to 64 letters, digits, '.', '_' and '-' (starting with a letter "
                    + "or digit)")
        }
        self.name = name
    }

    package var fileName: String {
        name.map { "baseline-\($0).csv" } ?? "baseline.csv"
    }

    package var description: String {
        name.map { "baseline '\($0)'" } ?? "the baseline"
    }
}
