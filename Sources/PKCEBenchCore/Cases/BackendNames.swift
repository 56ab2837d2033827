/// The rule for the names of the backends a harness measures: they become parts of case names
/// (`sha256/NAME/64`), file rows, `--backend` values and regular expressions' subjects.
package enum BackendNames {
    package static let maximumLength = 32

    /// Checks that `names` are valid and distinct: 1 to 32 lowercase ASCII letters, digits, `-`, `_`
    /// and `.`, starting with a letter; and that there is at least one.
    ///
    /// - Throws: ``BenchError``: `.backendFailed` (a fault of the program that names them), saying
    ///   which name breaks the rule.
    package static func check(_ names: [String]) throws(BenchError) {
        guard !names.isEmpty else {
            throw BenchError(.backendFailed, "no backends to measure: give Bench.main(backends:) at least one")
        }
        var seen: Set<String> = []
        for name in names {
            guard isValid(name) else {
                throw BenchError(
                    .backendFailed,
                    "backend name '\(name.prefix(maximumLength + 8))' is not valid: a name is 1 to \(maximumLength) "
                        + "lowercase letters, digits, '-', '_' and '.', starting with a letter")
            }
            guard seen.insert(name).inserted else {
                throw BenchError(.backendFailed, "two backends are named '\(name)': each needs a name of its own")
            }
        }
    }

    static let pairSeparator = "-vs-"

    /// The name of `backend` compared with `baseline` (`swift-vs-sodium`), which both sides' rows
    /// of a `bench pair` take.
    static func pairName(_ backend: String, against baseline: String) -> String {
        backend + pairSeparator + baseline
    }

    /// Whether `name` can stand in a report's `backend` column: a name that follows the rule, or
    /// the name `bench pair` gives a pair of two that do, `BACKEND-vs-BASELINE`.
    package static func isValidInReport(_ name: String) -> Bool {
        if isValid(name) { return true }
        // Either name may itself hold the separator: any split that leaves two names will do.
        return name.ranges(of: pairSeparator).contains { separator in
            isValid(String(name[..<separator.lowerBound])) && isValid(String(name[separator.upperBound...]))
        }
    }

    package static func isValid(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        let letters = UInt8(ascii: "a")...UInt8(ascii: "z"), digits = UInt8(ascii: "0")...UInt8(ascii: "9")
        guard let first = bytes.first, letters.contains(first), bytes.count <= maximumLength else { return false }
        return bytes.allSatisfy { letters.contains($0) || digits.contains($0) || "-_.".utf8.contains($0) }
    }
}
