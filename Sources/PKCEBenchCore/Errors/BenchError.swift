import PKCE

/// A failure the user can act on: what kind it is, and one line saying what went wrong and where.
///
/// Each kind is a domain: the input, the output, the backends, the builds of other commits, the
/// worker processes. Only the command line turns a kind into an exit code (builds, workers and
/// backends share 70, as ExitCodes.md says); nothing below it deals in codes.
package struct BenchError: Error, Sendable, Equatable, CustomStringConvertible {
    package enum Kind: Sendable, Equatable, CaseIterable {
        case usage
        case malformedInput
        /// An input file is missing or unreadable.
        case missingInput
        /// A tool a run needs is not installed: `valgrind` for `--metric instructions`.
        case toolMissing
        /// A backend failed its correctness check, failed during the run or cannot be set up, or
        /// the backends' names are not valid and distinct.
        case backendFailed
        /// Another commit's package did not build, or its build cannot be kept, trusted or linked
        /// again.
        case buildFailed
        /// A worker process could not be started, broke the worker protocol, or did not answer or
        /// exit in time; or Callgrind's account of it does not add up.
        case workerFailed
        /// The harness itself failed: what it wrote would not read back, or a case it made took no
        /// samples.
        case internalFailure
        case cannotWrite
        /// The history's PostgreSQL store cannot be reached, or broke off: try again later.
        case storeUnavailable
        /// The history's PostgreSQL store refused the login or the statement: its role lacks a right.
        case storeRefused
        /// Stopped by SIGINT.
        case interrupted
        /// Stopped by SIGTERM.
        case terminated
    }

    package let kind: Kind
    package let message: String

    /// Characters in `message` that a terminal would act on or hide (a newline in a field quoted
    /// from a file, say) are written as escapes, so that the message stays one visible line.
    package init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = printable(message)
    }

    package var description: String { message }

    package static func missing(_ path: String, _ reason: String) -> BenchError {
        BenchError(.missingInput, "\(path): \(reason)")
    }

    package static func malformed(_ path: String, line: Int? = nil, column: String? = nil, _ reason: String)
        -> BenchError
    {
        var place = path
        if let line { place += ":\(line)" }
        if let column { place += ": column \(column)" }
        return BenchError(.malformedInput, "\(place): \(reason)")
    }

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
