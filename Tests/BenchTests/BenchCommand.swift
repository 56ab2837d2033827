import Foundation
import PKCEBenchTestSupport
import Testing

/// What a run of the built `bench` binary did.
struct CommandResult {
    let status: Int32
    let stdout: String
    let stderr: String

    /// The lines of standard error.
    var stderrLines: [String] {
        stderr.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
    }
}

/// Runs the `bench` that this build produced, as argument-parser's `AssertExecuteCommand` does.
///
/// - Parameters:
///   - arguments: The command line after `bench`.
///   - directory: The working directory; a new temporary one by default, so nothing lands in the
///     checkout.
///   - stderrTo: Where standard error goes while the command runs, to watch it; a temporary file
///     by default.
///   - environment: Its environment; this process's by default.
///   - standardInput: A file to read standard input from; none by default.
///   - afterStart: Called with the process once it runs, to signal it.
///   - executable: The program to run instead of this build's `bench`: another that calls
///     `Bench.main(backends:)`.
func bench(
    _ arguments: [String], in directory: URL? = nil, stderrTo stderrFile: URL? = nil,
    environment: [String: String]? = nil, standardInput: URL? = nil, afterStart: ((Process) -> Void)? = nil,
    executable: URL? = nil
) throws -> CommandResult {
    let running = try RunningBench(
        arguments, in: directory ?? temporaryDirectory(), stderrTo: stderrFile, environment: environment,
        standardInput: standardInput, executable: executable)
    afterStart?(running.process)
    return try running.wait()
}

/// A `bench` started and not yet waited for, so that several can run at once.
struct RunningBench {
    let process = Process()
    private let stdoutURL: URL
    private let stderrURL: URL

    /// Starts `bench` (or `executable`) with `arguments` in `directory`; its output goes to files
    /// there, and its input comes from `standardInput`, or from nothing.
    init(
        _ arguments: [String], in directory: URL, stderrTo stderrFile: URL? = nil, environment: [String: String]? = nil,
        standardInput: URL? = nil, executable: URL? = nil
    ) throws {
        stdoutURL = directory.appendingPathComponent(".stdout-\(UUID().uuidString)")
        stderrURL = stderrFile ?? directory.appendingPathComponent(".stderr-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: stdoutURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: stderrURL.path, contents: nil)
        process.executableURL = executable ?? productsDirectory.appendingPathComponent("bench")
        process.arguments = arguments
        process.environment = environment
        process.currentDirectoryURL = directory
        process.standardInput = try standardInput.map { try FileHandle(forReadingFrom: $0) } ?? FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: stdoutURL)
        process.standardError = try FileHandle(forWritingTo: stderrURL)
        try process.run()
    }

    /// Waits for it to exit, and removes its output files once read.
    func wait() throws -> CommandResult {
        defer {
            try? FileManager.default.removeItem(at: stdoutURL)
            try? FileManager.default.removeItem(at: stderrURL)
        }
        process.waitUntilExit()
        return CommandResult(
            status: process.terminationStatus,
            stdout: try String(contentsOf: stdoutURL, encoding: .utf8),
            stderr: try String(contentsOf: stderrURL, encoding: .utf8))
    }
}

/// Where SwiftPM put the products of this build: beside the test bundle.
var productsDirectory: URL {
    let bundle = Bundle.main.bundleURL
    return bundle.pathExtension == "xctest" ? bundle.deletingLastPathComponent() : bundle
}

/// The visible files in a directory, sorted; hidden ones are what a test should never find.
func listing(_ directory: URL) throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
}

/// What this build's worker says first, and how it describes itself, as JSON lines, changed by
/// `editHello` and `editFacts`: stand-ins for another build's.
func workerLines(
    editingHello editHello: (inout [String: Any]) -> Void = { _ in },
    facts editFacts: (inout [String: Any]) -> Void = { _ in }
) throws -> (hello: String, described: String) {
    let directory = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let input = directory.appendingPathComponent("describe")
    try "{\"describe\":{}}\n".write(to: input, atomically: true, encoding: .utf8)
    let lines = try bench(["worker"], standardInput: input).stdout.split(separator: "\n").map(String.init)
    #expect(lines.count == 2)
    /// `line`, a JSON object with one key whose value is `{"_0": …}`, with that value edited.
    func edited(_ line: String, _ edit: (inout [String: Any]) -> Void) throws -> String {
        var message = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        let key = try #require(message.keys.first)
        var value = try #require((message[key] as? [String: Any])?["_0"] as? [String: Any])
        edit(&value)
        message[key] = ["_0": value]
        return String(decoding: try JSONSerialization.data(withJSONObject: message), as: UTF8.self)
    }
    return (try edited(lines[0], editHello), try edited(lines[1], editFacts))
}

/// Writes into `directory` a stand-in for a `bench` whose worker says `lines.hello`, answers a
/// describe request with `lines.described`, and any other request by running `otherwise`.
///
/// - Returns: The script's path.
func fakeBench(
    saying lines: (hello: String, described: String), otherwise: String = "exit 0", in directory: URL
) throws -> String {
    let path = directory.appendingPathComponent("fake-bench").path
    try """
    #!/bin/sh
    cat <<'EOF'
    \(lines.hello)
    EOF
    while read request; do
        case "$request" in
            *describe*) cat <<'EOF'
    \(lines.described)
    EOF
            ;;
            *) \(otherwise) ;;
        esac
    done

    """.write(toFile: path, atomically: true, encoding: .utf8)
    chmod(path, 0o755)
    return path
}

/// Runs a tool other than `bench` (a validator, a browser) to its end.
///
/// - Returns: Its exit status and standard output; its standard error is discarded.
func runTool(
    _ executable: URL, _ arguments: [String], environment: [String: String]? = nil
) throws -> (status: Int32, stdout: String) {
    let process = Process()
    let output = Pipe()
    process.executableURL = executable
    process.arguments = arguments
    process.environment = environment
    process.standardOutput = output
    process.standardError = FileHandle.nullDevice
    try process.run()
    let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    return (process.terminationStatus, text)
}
