import Foundation
import PKCEBenchTestSupport
import Testing

/// Whether the tests that build this package again (a worktree of a revision, the workflow's two
/// release builds) run: they take minutes, so only when `PKCEBENCH_BUILD_TESTS=1`, which
/// `.ci/run` sets for its plain `swift test`.
let buildTestsEnabled = ProcessInfo.processInfo.environment["PKCEBENCH_BUILD_TESTS"] == "1"

@Suite("bench ab --against REF: a git revision and the checkout's commit built in worktrees, once")
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

    @Test(
        "In a clone with main and a feature branch: builds main once, compares, then reuses the build",
        .enabled(if: buildTestsEnabled, "builds the package; set PKCEBENCH_BUILD_TESTS=1 to run it"))
    func buildsOnceThenReuses() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let environment = Self.environment(caching: directory)
        let clone = directory.appendingPathComponent("clone")
        try WorkflowTests.run(
            ["git", "clone", "--quiet", "--depth=1", "file://\(WorkflowTests.root.path)", clone.path], in: directory,
            environment: environment)
        // The clone's branch is the checkout's, which need not be main.
        try WorkflowTests.run(["git", "checkout", "--quiet", "-B", "main"], in: clone, environment: environment)
        try WorkflowTests.run(["git", "checkout", "--quiet", "-b", "feature"], in: clone, environment: environment)
        // A worktree of the user's own whose folder is gone: bench must not forget it for them.
        let own = directory.appendingPathComponent("own-worktree")
        try WorkflowTests.run(
            ["git", "worktree", "add", "--quiet", "--detach", own.path, "HEAD"], in: clone, environment: environment)
        try FileManager.default.removeItem(at: own)
        let arguments =
            ["ab", "--against", "main", "--output", directory.appendingPathComponent("out").path] + Self.small

        let first = try bench(arguments, in: clone, environment: environment)
        // The same code on both sides: never a regression; undecided (2) is allowed for a run this short.
        #expect(first.status == 0 || first.status == 2, "\(first.stderr)")
        #expect(first.stderr.contains("building main ("), "\(first.stderr)")
        #expect(first.stderr.contains("built main ("), "\(first.stderr)")
        // The checkout's commit is main's: one build serves both sides.
        #expect(first.stderr.contains("reusing the build of HEAD ("), "\(first.stderr)")
        #expect(first.stderr.contains("linked again in a fresh random order"), "\(first.stderr)")
        #expect(first.stdout.contains("sha256"))
        #expect(first.stdout.contains("code layout: both builds linked again for every pair"), "\(first.stdout)")

        let second = try bench(arguments, in: clone, environment: environment)
        #expect(second.status == 0 || second.status == 2, "\(second.stderr)")
        #expect(second.stderr.contains("reusing the build of main ("), "\(second.stderr)")
        #expect(!second.stderr.contains("building main"))

        // The worktree is outside the source tree, which is as it was.
        let status = try WorkflowTests.run(["git", "status", "--porcelain"], in: clone, environment: environment)
        #expect(status.isEmpty)
        let builds = try FileManager.default.contentsOfDirectory(
            atPath: directory.appendingPathComponent("cache/pkcebench/builds").path)
        #expect(builds.filter { $0.hasSuffix(".built") }.count == 1)
        let worktrees = try WorkflowTests.run(
            ["git", "worktree", "list", "--porcelain"], in: clone, environment: environment)
        #expect(worktrees.contains("worktree \(own.path)\n"), "\(worktrees)")

        // The cache removed, and so the build's worktree, which git still records: built again.
        try FileManager.default.removeItem(at: directory.appendingPathComponent("cache"))
        let third = try bench(arguments, in: clone, environment: environment)
        #expect(third.status == 0 || third.status == 2, "\(third.stderr)")
        #expect(third.stderr.contains("building main ("), "\(third.stderr)")
        let after = try WorkflowTests.run(
            ["git", "worktree", "list", "--porcelain"], in: clone, environment: environment)
        #expect(after.contains("worktree \(own.path)\n"), "\(after)")
    }
}
