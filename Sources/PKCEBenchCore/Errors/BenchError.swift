import PKCE

/// The exit codes of `bench`, the same for every subcommand.
package enum ExitStatus: Int32, Sendable, CaseIterable {
    /// Everything worked and nothing regressed.
    case ok = 0
    /// A comparison found at least one regression.
    case regression = 1
    /// No regression was found, but some case could not be decided: measure again.
    case inconclusive = 2
    /// The command line was wrong (EX_USAGE).
    case usage = 64
    /// An input file is malformed (EX_DATAERR).
    case malformedInput = 65
    /// An input file is missing or unreadable (EX_NOINPUT).
    case missingInput = 66
    /// A tool a run needs is not installed: `valgrind` for `--metric instructions` (EX_UNAVAILABLE).
    case toolMissing = 69
    /// A backend failed its correctness check, failed during the run or cannot be set up, the
    /// backends' names are not valid and distinct, or the software failed (EX_SOFTWARE).
    case backendFailed = 70
    /// An output file or directory cannot be written (EX_CANTCREAT).
    case cannotWrite = 73
    /// Stopped by SIGINT: 128 + 2.
    case interrupted = 130
    /// Stopped by SIGTERM: 128 + 15.
    case terminated = 143
}

/// A failure the user can act on: a one-line message and the exit code that goes with it.
package struct BenchError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The exit code.
    package let status: ExitStatus
    /// One line saying what went wrong and where.
    package let message: String

    /// Creates an error.
    ///
    /// Characters in `message` that a terminal would act on or hide (a newline in a field quoted
    /// from a file, say) are written as escapes, so that the message stays one visible line.
    package init(_ status: ExitStatus, _ message: String) {
        self.status = status
        self.message = printable(message)
    }

    /// The message.
    package var description: String { message }

    /// An input file that is not there or cannot be read (66).
    package static func missing(_ path: String, _ reason: String) -> BenchError {
        BenchError(.missingInput, "\(path): \(reason)")
    }

    /// An input file whose content is wrong (65), with the position where one applies.
    package static func malformed(_ path: String, line: Int? = nil, column: String? = nil, _ reason: String)
        -> BenchError
    {
        var place = path
        if let line { place += ":\(line)" }
        if let column { place += ": column \(column)" }
        return BenchError(.malformedInput, "\(place): \(reason)")
    }

    /// An output that cannot be written (73).
    package static func cannotWrite(_ path: String, _ reason: String) -> BenchError {
        BenchError(.cannotWrite, "cannot write \(path): \(reason)")
    }
}

/// `text` with every Unicode scalar that a terminal would act on rather than show written as an
/// escape (`\u{1B}`): controls (an escape sequence's ESC, a carriage return), and format and
/// separator characters (a right-to-left override, a zero-width space). With `keepingLines`,
/// newlines and tabs stay, for a table of several lines.
package func printable(_ text: String, keepingLines: Bool = false) -> String {
    var result = ""
    result.unicodeScalars.reserveCapacity(text.unicodeScalars.count)
    for scalar in text.unicodeScalars {
        switch scalar.properties.generalCategory {
        case .control where keepingLines && (scalar == "\n" || scalar == "\t"):
            result.unicodeScalars.append(scalar)
        case .control, .format, .lineSeparator, .paragraphSeparator, .surrogate, .privateUse, .unassigned:
            result += scalar.escaped(asASCII: true)
        default:
            result.unicodeScalars.append(scalar)
        }
    }
    return result
}

/// How a harness message names `error`: a `PKCEError` by its
/// `logDescription`, which keeps the detail an operator needs (the failing call
/// and its code, why a backend cannot be set up) where a client would get only its
/// `description`; anything else as it prints.
package func logDescription(of error: any Error) -> String {
    (error as? PKCEError)?.logDescription ?? String(describing: error)
}
