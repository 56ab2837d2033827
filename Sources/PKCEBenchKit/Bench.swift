import ArgumentParser
import Foundation
@_exported import PKCE
import PKCEBenchCore
import PKCEBenchReports

/// The `bench` command line, for the backends of the program that calls it.
///
/// The project's own `bench` is this call with its four backends. A package of yours gets the
/// whole command line (run, `ab`, `pair`, `compare`, `baseline`, `history`, `export`, `list`,
/// `--metric instructions`, every report) for its own backend with an executable target whose
/// `main.swift` is:
///
/// ```swift
/// import PKCEBenchKit
///
/// await Bench.main(backends: [MyBackend(), SwiftBackend()])
/// ```
///
/// Every backend passes the correctness check before anything is timed. The program starts itself
/// again to measure (`bench worker`), and `bench ab --against REF` builds the executable product of
/// the same name in a worktree of REF, so the program must build from its package as it is.
public enum Bench {
    /// Runs the `bench` command line on `backends`, with this process's arguments, and exits.
    ///
    /// Failures end the process as `bench`'s do: one line on standard error and a documented exit
    /// code. A backend that cannot be set up, or backends without valid, distinct names
    /// (`PKCEBackend/name`), end it with 70.
    ///
    /// - Parameter backends: The backends to measure, in report order; made once, before the
    ///   command line is read.
    @MainActor public static func main(backends: @autoclosure () throws -> [any PKCEBackend]) async -> Never {
        await main(backends: try backends(), buildCommit: nil)
    }

    /// Runs the `bench` command line on `backends`, as ``main(backends:)`` does, with the commit
    /// the program was built from, which each run records in place of its working tree's.
    ///
    /// The `PKCEBenchBuildCommit` plugin of this package records it: apply it to your executable
    /// target (`plugins: [.plugin(name: "PKCEBenchBuildCommit", package: "PKCEBench")]`) and pass
    /// the `pkceBenchBuildCommit` it generates. A run of a build made in one checkout and run in
    /// another (a CI artifact, a backfill) then names the commit it measured.
    ///
    /// - Parameters:
    ///   - backends: The backends to measure, in report order; made once, before the command line
    ///     is read.
    ///   - buildCommit: The short commit, as the plugin generates it, marked dirty when the
    ///     build's tracked files were modified;
    ///     `nil` or empty when unknown, and the run records its working tree's commit. Anything
    ///     else (a branch name, say) is recorded as `unknown`, with a note on standard error.
    @MainActor public static func main(
        backends: @autoclosure () throws -> [any PKCEBackend], buildCommit: String?
    ) async -> Never {
        // On the main actor, as top-level code is. Run from the cooperative pool instead, while
        // libdispatch keeps the main thread waiting for signals, the program crashed Valgrind 3.19
        // at start-up (in rt_sigsuspend), and with it every --metric instructions worker.
        let made: [any PKCEBackend]
        do {
            made = try backends()
            try BackendNames.check(made.map(\.name))
        } catch let error as BenchError {
            BenchCommand.fail(error)
        } catch {
            // Through BenchError, which keeps the message to one line whatever the error says.
            BenchCommand.fail(BenchError(.backendFailed, "a backend cannot be set up: \(logDescription(of: error))"))
        }
        // Once, in the command a user runs, not again in each of its workers.
        if let buildCommit, !RecordedFields.isCommit(buildCommit), CommandLine.arguments.dropFirst().first != "worker" {
            Terminal.note(
                "note: the build commit given to Bench.main is not a commit (\(RecordedCommit.grammar)), "
                    + "and runs record it as unknown")
        }
        CommandContext.$backends.withValue(made) {
            CommandContext.$buildCommit.withValue(buildCommit) {
                BenchCommand.execute(Array(CommandLine.arguments.dropFirst()))
            }
        }
    }
}

/// What the commands share that argument-parser cannot pass them: the program's backends.
enum CommandContext {
    @TaskLocal static var backends: [any PKCEBackend] = []
    /// What ``Bench/main(backends:buildCommit:)`` was given.
    @TaskLocal static var buildCommit: String?

    static var backendNames: [String] { backends.map(\.name) }

    static var libraries: [String: String] {
        Dictionary(backends.map { ($0.name, $0.library) }) { first, _ in first }
    }
}

struct BenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Measure PKCE verifier generation and challenge hashing for every crypto backend.",
        discussion: """
            With no subcommand, runs the suite: checks every backend's correctness, then measures \
            each case and writes CSV reports to the output directory. 'bench run --help' lists the \
            options of a run.

            Exit codes: 0 ok; 1 a regression found; 2 inconclusive (measure again); 64 usage \
            error; 65 malformed input; \
            66 missing input; 69 a required tool is missing (valgrind, for --metric instructions); \
            70 a backend failed its correctness check or failed during the run, or a build or \
            worker failed or was refused; \
            73 cannot write output; 75 the PostgreSQL store cannot be reached (the run is kept for \
            the next run with the store, or 'bench history push'); 77 the store refused the login; \
            130/143 interrupted by SIGINT/SIGTERM.
            """,
        version: BenchVersion.description,
        subcommands: [
            Run.self, Compare.self, AB.self, Pair.self, Bisect.self, Backfill.self, Baseline.self, History.self,
            Export.self, List.self,
            Overhead.self, Worker.self,
        ],
        defaultSubcommand: Run.self
    )

    /// Parses and runs the command, turning every failure into one line on standard error and
    /// its documented exit code: argument-parser's own would add the usage text.
    static func execute(_ arguments: [String]) -> Never {
        do {
            var command = try parseAsRoot(normalized(arguments))
            try command.run()
        } catch let error as BenchError {
            fail(error)
        } catch {
            let code = exitCode(for: error)
            if code == .validationFailure {
                // Through BenchError, which writes a control character in a value quoted back
                // (`--format $'ya\nml'`) as an escape, so that the message stays one whole line;
                // its exit status, 64, is argument-parser's for a validation failure.
                fail(BenchError(.usage, "\(message(for: error)) (see 'bench --help')"))
            }
            // --help and --version exit 0 with their text; an error nobody anticipated is a
            // failure of the software (70), never 1, which means a regression.
            guard code == .success || error is ExitCode else {
                fail(BenchError(.backendFailed, logDescription(of: error)))
            }
            exit(withError: error)
        }
        Foundation.exit(ExitStatus.ok.rawValue)
    }

    /// The arguments with `--save-baseline NAME` (or `=NAME`) written as `--save-baseline
    /// --save-baseline-name=NAME`: argument-parser has no option whose value may be left out.
    static func normalized(_ arguments: [String]) -> [String] {
        var normalized: [String] = []
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            if argument.hasPrefix("--save-baseline=") {
                normalized += ["--save-baseline", "--save-baseline-name=" + argument.dropFirst(16)]
            } else if argument == "--save-baseline", let name = remaining.first, !name.hasPrefix("-") {
                normalized += ["--save-baseline", "--save-baseline-name=" + name]
                remaining = remaining.dropFirst()
            } else {
                normalized.append(argument)
            }
        }
        return normalized
    }

    /// Writes `error`'s one line to standard error and exits with its documented status.
    static func fail(_ error: BenchError) -> Never {
        Terminal.note(error.message)
        Foundation.exit(ExitStatus(error.kind).rawValue)
    }
}
