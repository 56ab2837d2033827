import ArgumentParser
import PKCEBenchCore

/// The exit codes of `bench`, the same for every subcommand. 64 to 77 are sysexits.h's (EX_USAGE,
/// EX_DATAERR, EX_NOINPUT, EX_UNAVAILABLE, EX_SOFTWARE, EX_CANTCREAT, EX_TEMPFAIL, EX_NOPERM); 130 and 143 are 128 plus
/// SIGINT's and SIGTERM's numbers.
enum ExitStatus: Int32, CaseIterable {
    case ok = 0
    case regression = 1
    /// No regression was found, but some case could not be decided: measure again.
    case inconclusive = 2
    case usage = 64
    case malformedInput = 65
    case missingInput = 66
    case toolMissing = 69
    case backendFailed = 70
    case cannotWrite = 73
    /// The store cannot be reached; a run is kept in the results directory for the next run with the
    /// store, or `bench history push`.
    case storeUnavailable = 75
    /// The store refused the login (a wrong password, say), the database, TLS or a statement.
    case storeRefused = 77
    case interrupted = 130
    case terminated = 143

    init(_ kind: BenchError.Kind) {
        self =
            switch kind {
            case .usage: .usage
            case .malformedInput: .malformedInput
            case .missingInput: .missingInput
            case .toolMissing: .toolMissing
            case .backendFailed, .buildFailed, .workerFailed, .internalFailure: .backendFailed
            case .cannotWrite: .cannotWrite
            case .storeUnavailable: .storeUnavailable
            case .storeRefused: .storeRefused
            case .interrupted: .interrupted
            case .terminated: .terminated
            }
    }

    init(_ outcome: Comparison.Outcome) {
        self =
            switch outcome {
            case .clear: .ok
            case .regression: .regression
            case .inconclusive: .inconclusive
            }
    }

    /// What a session's comparison came to; ``ok`` without one.
    init(_ outcome: Session.Outcome) {
        self.init(outcome.comparison?.outcome ?? .clear)
    }

    func exitUnlessOK() throws {
        if self != .ok { throw ExitCode(rawValue) }
    }
}
