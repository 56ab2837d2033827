import ArgumentParser
import PKCEBenchCore

/// The exit codes of `bench`, the same for every subcommand.
enum ExitStatus: Int32, CaseIterable {
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
    /// A tool a run needs is not installed (EX_UNAVAILABLE).
    case toolMissing = 69
    /// A backend failed, or the software did (EX_SOFTWARE).
    case backendFailed = 70
    /// An output file or directory cannot be written (EX_CANTCREAT).
    case cannotWrite = 73
    /// Stopped by SIGINT: 128 + 2.
    case interrupted = 130
    /// Stopped by SIGTERM: 128 + 15.
    case terminated = 143

    /// The status of a failure of `kind`.
    init(_ kind: BenchError.Kind) {
        self =
            switch kind {
            case .usage: .usage
            case .malformedInput: .malformedInput
            case .missingInput: .missingInput
            case .toolMissing: .toolMissing
            case .backendFailed: .backendFailed
            case .cannotWrite: .cannotWrite
            case .interrupted: .interrupted
            case .terminated: .terminated
            }
    }

    /// The status of a command that compared and found `outcome`.
    init(_ outcome: Comparison.Outcome) {
        self =
            switch outcome {
            case .clear: .ok
            case .regression: .regression
            case .inconclusive: .inconclusive
            }
    }

    /// Ends the command with this status, through argument-parser, when it is not 0.
    func exitUnlessOK() throws {
        if self != .ok { throw ExitCode(rawValue) }
    }
}
