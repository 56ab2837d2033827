import ArgumentParser
import Foundation
import PKCEBenchKit
import PKCEBenchReports

@main
struct Bench: ParsableCommand {
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
            70 a backend failed its correctness check or failed during the run; \
            73 cannot write output; 130/143 interrupted by SIGINT/SIGTERM.
            """,
        version: BenchVersion.description,
        subcommands: [
            Run.self, Compare.self, AB.self, Pair.self, Baseline.self, History.self, Export.self, List.self,
            Overhead.self, Worker.self,
        ],
        defaultSubcommand: Run.self
    )

    /// Parses and runs the command, turning every failure into one line on standard error and
    /// its documented exit code: argument-parser's own would add the usage text.
    static func main() {
        do {
            var command = try parseAsRoot(normalized(Array(CommandLine.arguments.dropFirst())))
            try command.run()
        } catch let error as BenchError {
            fail(error.message, status: error.status.rawValue)
        } catch {
            let code = exitCode(for: error)
            if code == .validationFailure {
                let message = message(for: error).split(separator: "\n").first.map(String.init) ?? "invalid arguments"
                fail("\(message) (see 'bench --help')", status: code.rawValue)
            }
            // --help and --version exit 0 with their text; an error nobody anticipated is a
            // failure of the software (70), never 1, which means a regression.
            guard code == .success || error is ExitCode else {
                fail(
                    BenchError(.backendFailed, logDescription(of: error)).message,
                    status: ExitStatus.backendFailed.rawValue)
            }
            exit(withError: error)
        }
    }

    /// The arguments with `--save-baseline NAME` (or `--save-baseline=NAME`) written as
    /// `--save-baseline --save-baseline-name=NAME`. argument-parser has no option whose value may
    /// be left out, and `--save-baseline` alone makes the unnamed baseline, as it always has: a
    /// word after it that is not an option is its name (`bench` takes no other word there).
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

    private static func fail(_ message: String, status: Int32) -> Never {
        FileHandle.standardError.write(Data("bench: \(message)\n".utf8))
        Foundation.exit(status)
    }
}

extension ExitStatus {
    /// Ends the command with this status, through argument-parser, when it is not 0.
    func exitUnlessOK() throws {
        if self != .ok { throw ExitCode(rawValue) }
    }
}
