import Foundation
import PKCEBenchTestSupport
import Testing

/// `.github/workflows/benchmarks.yml`, run as GitHub Actions would run its shell steps: in order,
/// each with `bash -e`, in a shallow clone of a pull request's branch, until one fails.
///
/// Running it builds this package in release twice (the change, and the base branch that `bench
/// ab --against` builds), which takes minutes: see ``buildTestsEnabled``.
@Suite("The pull-request workflow, run locally", .serialized)
struct WorkflowTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// A step of the workflow that runs a shell script.
    struct Step {
        let name: String
        let script: String
    }

    /// The steps with a `run:` script, in order: the workflow's few shapes of YAML, read without a
    /// YAML library (`- name:`, `run: text` or `run: |` with the indented lines below it).
    static func steps(of workflow: String) -> [Step] {
        var steps: [Step] = []
        var name = ""
        var script: [String]?
        var scriptIndent = 0
        func endScript() {
            if let lines = script { steps.append(Step(name: name, script: lines.joined(separator: "\n"))) }
            script = nil
        }
        for line in workflow.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            let indent = line.prefix { $0 == " " }.count
            let text = line.trimmingCharacters(in: .whitespaces)
            if script != nil {
                if text.isEmpty || indent >= scriptIndent {
                    script?.append(String(line.dropFirst(min(indent, scriptIndent))))
                    continue
                }
                endScript()
            }
            if text.hasPrefix("- ") { name = "" }
            let field = text.hasPrefix("- ") ? String(text.dropFirst(2)) : text
            if field.hasPrefix("name: ") {
                name = String(field.dropFirst(6))
            } else if field == "run: |" {
                script = []
                scriptIndent = indent + 2 + (text.hasPrefix("- ") ? 2 : 0)
            } else if field.hasPrefix("run: ") {
                steps.append(Step(name: name, script: String(field.dropFirst(5))))
            }
        }
        endScript()
        return steps
    }

    /// Runs `arguments` to its end in `directory`; fails the test when it does not exit 0.
    @discardableResult
    static func run(_ arguments: [String], in directory: URL, environment: [String: String] = [:]) throws -> String {
        let result = try shell(arguments, in: directory, environment: environment)
        #expect(result.status == 0, "\(arguments.joined(separator: " ")): \(result.output)")
        return result.output
    }

    /// Runs `arguments` to its end in `directory`, with its output and errors together.
    static func shell(_ arguments: [String], in directory: URL, environment: [String: String] = [:]) throws -> (
        status: Int32, output: String
    ) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        process.currentDirectoryURL = directory
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardInput = FileHandle.nullDevice
        let log = directory.deletingLastPathComponent().appendingPathComponent(".log-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: log) }
        let handle = try FileHandle(forWritingTo: log)
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        process.waitUntilExit()
        try handle.close()
        return (process.terminationStatus, try String(contentsOf: log, encoding: .utf8))
    }

    @Test("The steps read from the workflow: install, fetch, build, compare")
    func stepsRead() throws {
        let workflow = try String(
            contentsOf: Self.root.appendingPathComponent(".github/workflows/benchmarks.yml"), encoding: .utf8)
        let steps = Self.steps(of: workflow)
        #expect(
            steps.map(\.name) == [
                "Install the system libraries", "Fetch the base branch", "Build this change",
                "Compare with the base branch",
            ])
        // The set-up line is the README's, word for word.
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        #expect(steps.first.map { readme.contains("\n" + $0.script + "\n") } == true)
        #expect(steps.last?.script.contains("bench ab --against") == true)
    }

    @Test(
        "A pull request that regresses fails the job with exit 1; one that does not passes",
        .enabled(if: buildTestsEnabled, "builds the package in release twice; set PKCEBENCH_BUILD_TESTS=1 to run it"))
    func gatesPullRequests() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let environment = [
            "GIT_CONFIG_GLOBAL": directory.appendingPathComponent("gitconfig").path,
            "GIT_AUTHOR_NAME": "PKCEBench", "GIT_AUTHOR_EMAIL": "tests@pkcebench.invalid",
            "GIT_COMMITTER_NAME": "PKCEBench", "GIT_COMMITTER_EMAIL": "tests@pkcebench.invalid",
        ]
        let steps = Self.steps(
            of: try String(
                contentsOf: Self.root.appendingPathComponent(".github/workflows/benchmarks.yml"), encoding: .utf8))

        // The repository: this commit as main, and two pull requests' branches on it.
        let origin = directory.appendingPathComponent("origin.git")
        try Self.run(
            ["git", "init", "--quiet", "--bare", "--initial-branch=main", origin.path], in: directory,
            environment: environment)
        try Self.run(
            ["git", "-C", Self.root.path, "push", "--quiet", origin.path, "HEAD:refs/heads/main"], in: directory,
            environment: environment)
        let author = directory.appendingPathComponent("author")
        try Self.run(["git", "clone", "--quiet", origin.path, author.path], in: directory, environment: environment)
        try Self.run(["git", "checkout", "--quiet", "-b", "steady"], in: author, environment: environment)
        try "\nA change that measures the same.\n".appendToFile(author.appendingPathComponent("CONTRIBUTING.md"))
        try Self.run(["git", "commit", "--quiet", "-am", "Docs only"], in: author, environment: environment)
        try Self.run(["git", "checkout", "--quiet", "-b", "slower", "main"], in: author, environment: environment)
        let backend = author.appendingPathComponent("Sources/PKCE/SwiftBackend/SwiftBackend.swift")
        let source = try String(contentsOf: backend, encoding: .utf8)
        let hash = "        SHA256.hash(message, into: digest, on: implementation)\n"
        try #require(source.contains(hash), "the regression to inject: SwiftBackend.sha256 hashes twice")
        try source.replacingOccurrences(of: hash, with: hash + hash).write(
            to: backend, atomically: true, encoding: .utf8)
        try Self.run(["git", "commit", "--quiet", "-am", "Hash twice"], in: author, environment: environment)
        try Self.run(["git", "push", "--quiet", "origin", "steady", "slower"], in: author, environment: environment)

        // As actions/checkout does: the pull request's commit alone. The second checks out into the
        // same clone, so that its build is incremental.
        let work = directory.appendingPathComponent("work")
        try Self.run(
            ["git", "clone", "--quiet", "--depth=1", "--branch", "steady", "file://\(origin.path)", work.path],
            in: directory, environment: environment)
        for (branch, regresses) in [("steady", false), ("slower", true)] {
            if branch != "steady" {
                try Self.run(
                    ["git", "fetch", "--quiet", "--depth=1", "origin", branch], in: work, environment: environment)
                try Self.run(["git", "checkout", "--quiet", "FETCH_HEAD"], in: work, environment: environment)
            }
            let summary = directory.appendingPathComponent("summary-\(branch).md")
            var stepEnvironment = environment
            stepEnvironment["GITHUB_BASE_REF"] = "main"
            stepEnvironment["GITHUB_STEP_SUMMARY"] = summary.path
            stepEnvironment["XDG_CACHE_HOME"] = directory.appendingPathComponent("cache").path
            // Hashing twice doubles the time; a 25% threshold no change between equal builds reaches.
            stepEnvironment["BENCH_AB_OPTIONS"] =
                "--backend swift --operation sha256 --size 1024 --quick --threshold 25"
            var outcomes: [(name: String, status: Int32, output: String)] = []
            // The packages are there already: installing them is the one step not run here.
            for step in steps.dropFirst() {
                let result = try Self.shell(
                    ["bash", "--noprofile", "--norc", "-e", "-c", step.script], in: work, environment: stepEnvironment)
                outcomes.append((step.name, result.status, result.output))
                if result.status != 0 { break }
            }
            let compare = try #require(outcomes.last)
            #expect(outcomes.count == steps.count - 1, "\(branch): \(outcomes.map { "\($0.name): \($0.output)" })")
            #expect(compare.name == "Compare with the base branch")
            let comment = try String(contentsOf: summary, encoding: .utf8)
            if regresses {
                #expect(compare.status == 1, "\(compare.output)")
                #expect(compare.output.contains("::error::bench ab found a regression"))
                #expect(comment.hasPrefix("### PKCEBench: 1 regressed"), "\(comment)")
            } else {
                #expect(compare.status == 0, "\(compare.output)")
                #expect(comment.hasPrefix("### PKCEBench: 0 regressed"), "\(comment)")
            }
            // The base branch is built once, then reused.
            #expect(
                compare.output.contains(
                    branch == "steady" ? "built origin/main (" : "reusing the build of origin/main ("))
        }
    }
}

extension String {
    /// Appends this text to the file at `url`.
    fileprivate func appendToFile(_ url: URL) throws {
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(utf8))
    }
}
