import Foundation
import PKCEBenchCore
import PKCEBenchReports

/// Where the command line writes: text from report files (a backend's library, a failed case's
/// reason, another build's error) goes through ``printable(_:keepingLines:)`` on its way to a
/// terminal, so that a planted escape sequence is shown, not obeyed.
enum Terminal {
    /// Writes `text` to standard output with what a terminal would act on written as escapes:
    /// always for the table and Markdown (a pager such as `less -R` would obey them too), for CSV
    /// and JSON only on a terminal, so that data a program reads stays as it is.
    static func write(_ text: String, as format: OutputFormat) {
        let forPeople = format == .table || format == .markdown || isatty(STDOUT_FILENO) != 0
        print(forPeople ? printable(text, keepingLines: true) : text, terminator: "")
    }

    /// Writes `bench: MESSAGE` and a newline to standard error, the message one visible line.
    static func note(_ message: String) {
        FileHandle.standardError.write(Data("bench: \(printable(message))\n".utf8))
    }
}
