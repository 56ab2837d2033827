import Foundation
import PKCEBenchTestSupport
import Testing

@Suite("Progress on standard error: --quiet, a terminal, TERM=dumb", .serialized)
struct ProgressTests {
    static let arguments = ["--quick", "--operation", "random", "--processes", "2", "--output", "out"]

    @Test("--quiet prints the results, warnings and errors, and no progress")
    func quiet() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let shown = try bench(Self.arguments, in: directory)
        let quiet = try bench(Self.arguments + ["--quiet"], in: directory)
        #expect(shown.status == 0 && quiet.status == 0, "stderr: \(shown.stderr)\(quiet.stderr)")
        #expect(shown.stderr.contains("measuring in process 1 of 2"))
        #expect(shown.stderr.contains("wrote "))
        // What stays is a warning, such as a debug build's about its figures.
        #expect(quiet.stderrLines.allSatisfy { $0.hasPrefix("warning: ") }, "stderr: \(quiet.stderr)")
        // The same table; its columns are as wide as the figures of each run.
        #expect(
            quiet.stdout.split(separator: "\n").first?.split(separator: " ")
                == shown.stdout.split(separator: "\n").first?.split(separator: " "))
        #expect(quiet.stdout.split(separator: "\n").count == shown.stdout.split(separator: "\n").count)
    }

    @Test("A failure still shows with --quiet: one line and its exit code")
    func quietFailure() throws {
        let result = try bench(["--quiet", "--operation", "sign"])
        #expect(result.status == 64)
        #expect(result.stderrLines.count == 1)
    }

    @Test(
        "On a terminal the progress line is redrawn; with TERM=dumb or --quiet, never",
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script")),
        arguments: [("xterm", false, true), ("dumb", false, false), ("xterm", true, false)])
    func terminal(term: String, quiet: Bool, redraws: Bool) throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // script(1) runs bench on a pseudo-terminal: its standard error is a terminal.
        let command =
            ([productsDirectory.appendingPathComponent("bench").path] + Self.arguments + (quiet ? ["-q"] : []))
            .map { "'\($0)'" }.joined(separator: " ")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        process.arguments = ["-qec", command, "/dev/null"]
        process.environment = ProcessInfo.processInfo.environment.merging(["TERM": term]) { $1 }
        process.currentDirectoryURL = directory
        process.standardInput = FileHandle.nullDevice
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(text)")
        #expect(text.contains("\u{1B}[K") == redraws, "\(text)")
        #expect(text.contains("random") && text.contains("fastest"))
    }
}
