import Foundation
import PKCEBenchTestSupport
import Testing

/// Whether the tests that build a package again (a revision in the cache's worktree, the workflow's
/// release builds, a user's package) run: they take minutes, so only when `PKCEBENCH_BUILD_TESTS=1`,
/// which `.ci/run` sets for its plain `swift test`. A build of a revision, reused, is checked on
/// this package by the workflow's test (at its top) and on a user's (nested) by
/// `OwnBackendPackageTests`.
let buildTestsEnabled = ProcessInfo.processInfo.environment["PKCEBENCH_BUILD_TESTS"] == "1"

@Suite("bench ab --against REF: what it refuses before anything is built")
struct ABAgainstTests {
    /// A small selection; a threshold no change between equal builds reaches, so that the verdict
    /// is never a false regression.
    static let small = ["--backend", "swift", "--operation", "sha256", "--size", "64", "--quick", "--threshold", "50"]

    /// This process's environment, with builds kept under `directory`.
    static func environment(caching directory: URL) -> [String: String] {
        ProcessInfo.processInfo.environment.merging([
            "XDG_CACHE_HOME": directory.appendingPathComponent("cache").path,
            "GIT_CONFIG_GLOBAL": directory.appendingPathComponent("gitconfig").path,
        ]) { $1 }
    }

    @Test("Outside a repository, a revision that is not there, or two baselines: 64, one line, nothing built")
    func refusals() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let environment = Self.environment(caching: directory)
        let outside = try bench(["ab", "--against", "main"] + Self.small, in: directory, environment: environment)
        #expect(outside.status == 64)
        #expect(
            outside.stderrLines == [
                "bench: bench ab --against needs a git repository, and \(directory.path) is not in one"
            ])

        let repository = directory.appendingPathComponent("repository")
        try FileManager.default.createDirectory(at: repository, withIntermediateDirectories: true)
        try WorkflowTests.run(["git", "init", "--quiet", "-b", "main"], in: repository, environment: environment)
        let absent = try bench(["ab", "--against", "v9.9"] + Self.small, in: repository, environment: environment)
        #expect(absent.status == 64)
        #expect(absent.stderrLines.count == 1)
        #expect(
            absent.stderr.contains("'v9.9' names no commit of the repository at ")
                && absent.stderr.contains("fetch it first, such as with git fetch --depth=1 origin v9.9"))
        let option = try bench(["ab", "--against", "--help-me"] + Self.small, in: repository, environment: environment)
        #expect(option.status == 64)

        // A checkout with uncommitted changes to a tracked file: its commit would not be what is
        // measured as this checkout.
        let file = repository.appendingPathComponent("Package.swift")
        try "// one\n".write(to: file, atomically: true, encoding: .utf8)
        try WorkflowTests.run(["git", "add", "Package.swift"], in: repository, environment: environment)
        try WorkflowTests.run(
            ["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "--quiet", "-m", "one"], in: repository,
            environment: environment)
        try "// two\n".write(to: file, atomically: true, encoding: .utf8)
        let dirty = try bench(["ab", "--against", "main"] + Self.small, in: repository, environment: environment)
        #expect(dirty.status == 64)
        #expect(
            dirty.stderrLines == [
                "bench: bench ab --against builds HEAD as committed, and Package.swift has changes that are not: "
                    + "commit or stash them, or compare with a bench executable of your own"
            ])

        for arguments in [["ab", "/bin/true", "--against", "main"], ["ab"]] {
            let both = try bench(arguments + Self.small, in: repository, environment: environment)
            #expect(both.status == 64)
            #expect(
                both.stderrLines == [
                    "bench: bench ab compares with a baseline bench executable or with --against REF: give one "
                        + "(see 'bench --help')"
                ])
        }
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("cache").path))
    }
}
