import Foundation
import PKCEBenchKit

/// Where the command line writes: text from report files (a backend's library, a failed case's
/// reason, another build's error) goes through ``printable(_:keepingLines:)`` on its way to a
/// terminal, so that a planted escape sequence is shown, not obeyed.
enum Terminal {
    /// Writes `text` to standard output as it is, or, when standard output is a terminal, with
    /// what a terminal would act on written as escapes; piped to a file or a program, CSV and JSON
    /// stay as they are.
    static func write(_ text: String) {
        print(isatty(STDOUT_FILENO) != 0 ? printable(text, keepingLines: true) : text, terminator: "")
    }

    /// Writes `bench: MESSAGE` and a newline to standard error, the message one visible line.
    static func note(_ message: String) {
        FileHandle.standardError.write(Data("bench: \(printable(message))\n".utf8))
    }
}
