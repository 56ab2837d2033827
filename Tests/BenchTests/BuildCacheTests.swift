import Foundation
import PKCEBenchCore
import PKCEBenchReports
import PKCEBenchTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// What the cache of builds holds is run or built as the user: a worktree, a kept link command
/// or a commit named by a history row that another hand placed there is refused before any of it
/// runs. None of these builds anything.
@Suite("The cache of builds: planted worktrees, kept commands and commits are never run")
struct BuildCacheTests {
    /// A repository in `directory` whose `main` has `count` empty commits: their full hashes.
    static func repository(in directory: URL, commits count: Int) throws -> (URL, [String: String], [String]) {
        let repository = directory.appendingPathComponent("repository")
        try FileManager.default.createDirectory(at: repository, withIntermediateDirectories: true)
        let environment = ABAgainstTests.environment(caching: directory)
        _ = try WorkflowTests.run(["git", "init", "--quiet", "-b", "main"], in: repository, environment: environment)
        var commits: [String] = []
        for number in 1...count {
            commits.append(try commit("main \(number)", in: repository, environment: environment))
        }
        return (repository, environment, commits)
    }

    /// Makes an empty commit on the branch checked out: its full hash.
    static func commit(_ message: String, in repository: URL, environment: [String: String]) throws -> String {
        _ = try WorkflowTests.run(
            ["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "--quiet", "--allow-empty", "-m", message],
            in: repository, environment: environment)
        return try WorkflowTests.run(["git", "rev-parse", "HEAD"], in: repository, environment: environment)
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Every entry of the cache of builds, relative to it.
    static func cacheEntries(_ directory: URL) -> [String] {
        let builds = directory.appendingPathComponent("cache/pkcebench/builds").path
        return ((try? FileManager.default.contentsOfDirectory(atPath: builds)) ?? []).sorted()
    }

    @Test(
        "A worktree another user made in the cache: 70 naming it, its Package.swift never evaluated, swift never run",
        .enabled(if: getuid() == 0, "only root can give a directory away"))
    func plantedWorktree() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (repository, environment, commits) = try Self.repository(in: directory, commits: 1)
        let builds = directory.appendingPathComponent("cache/pkcebench/builds")
        try RevisionBuild.prepareCache(builds)
        // The worktree bench builds this repository's commits in.
        let worktree = CommitBuilds(
            like: try RevisionBuild(
                revision: commits[0], in: repository.path,
                configuration: BuildConfiguration(rawValue: productsDirectory.lastPathComponent) ?? .debug,
                cache: builds)
        ).worktree
        try FileManager.default.createDirectory(at: worktree, withIntermediateDirectories: false)
        // Evaluating this manifest (what swift build does first) would leave the file behind.
        let touched = directory.appendingPathComponent("evaluated")
        try """
        // swift-tools-version:5.9
        import PackageDescription
        import Foundation
        _ = FileManager.default.createFile(atPath: "\(touched.path)", contents: nil)
        let package = Package(name: "planted")
        """.write(to: worktree.appendingPathComponent("Package.swift"), atomically: true, encoding: .utf8)
        #expect(chown(worktree.path, 65534, 65534) == 0)
        #expect(chown(worktree.appendingPathComponent("Package.swift").path, 65534, 65534) == 0)

        // A swift first on the path that says whether it ran.
        let tools = directory.appendingPathComponent("tools")
        try FileManager.default.createDirectory(at: tools, withIntermediateDirectories: true)
        let started = directory.appendingPathComponent("swift-started")
        try "#!/bin/sh\ntouch '\(started.path)'\nexit 1\n".write(
            to: tools.appendingPathComponent("swift"), atomically: true, encoding: .utf8)
        chmod(tools.appendingPathComponent("swift").path, 0o755)
        // The swiftc beside it is the real one: bench asks it its version to know which kept builds it may use.
        let swiftc = URL(fileURLWithPath: try #require(executableInPath("swift"))).resolvingSymlinksInPath()
            .deletingLastPathComponent().appendingPathComponent("swiftc")
        try FileManager.default.createSymbolicLink(
            at: tools.appendingPathComponent("swiftc"), withDestinationURL: swiftc)
        var withTools = environment
        withTools["PATH"] = tools.path + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        let result = try bench(
            ["ab", "--against", "HEAD", "--output", directory.appendingPathComponent("out").path]
                + PlantedBuildTests.small, in: repository, environment: withTools)
        #expect(result.status == 70, "\(result.stderr)")
        #expect(result.stderrLines.count == 1, "\(result.stderr)")
        #expect(result.stderr.contains("\(worktree.path) is owned by user 65534"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: started.path), "swift was started")
        #expect(!FileManager.default.fileExists(atPath: touched.path), "the planted Package.swift was evaluated")
        #expect(!FileManager.default.fileExists(atPath: worktree.appendingPathComponent(".build").path))
    }

    @Test(
        "The cache removed while git still lists its worktree: bench ab --against adds it again, and forgets no worktree of the user's"
    )
    func worktreeOfARemovedCache() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (repository, environment, commits) = try Self.repository(in: directory, commits: 1)
        // A worktree of the user's own whose folder is gone: bench must not forget it for them.
        let own = directory.appendingPathComponent("own-worktree")
        try WorkflowTests.run(
            ["git", "worktree", "add", "--quiet", "--detach", own.path, "HEAD"], in: repository,
            environment: environment)
        try FileManager.default.removeItem(at: own)
        // The commit has no package: each run gets as far as swift build, which fails at once.
        let arguments = ["ab", "--against", "HEAD", "--output", directory.appendingPathComponent("out").path]
        let cannotBuild = "bench: cannot build HEAD (\(commits[0].prefix(7))): swift build failed"
        for round in 1...2 {
            let result = try bench(arguments + ABAgainstTests.small, in: repository, environment: environment)
            #expect(result.status == 70, "round \(round): \(result.stderr)")
            #expect(result.stderrLines.last?.hasPrefix(cannotBuild) == true, "round \(round): \(result.stderr)")
            let worktrees = try WorkflowTests.run(
                ["git", "worktree", "list", "--porcelain"], in: repository, environment: environment)
            #expect(worktrees.contains("worktree \(own.path)\n"), "\(worktrees)")
            #expect(worktrees.contains("/cache/pkcebench/builds/incremental-"), "\(worktrees)")
            try FileManager.default.removeItem(at: directory.appendingPathComponent("cache"))
        }
    }

    @Test("A kept build whose link command runs another program: bench bisect exits 70 naming it, and never runs it")
    func plantedLinkCommand() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (repository, environment, commits) = try Self.repository(in: directory, commits: 2)
        let configuration = productsDirectory.lastPathComponent
        let builds = directory.appendingPathComponent("cache/pkcebench/builds")
        try RevisionBuild.prepareCache(builds)
        // The toolchain's own record, so that the kept builds are read rather than built again.
        let swift = try #require(executableInPath("swift"))
        let driver = URL(fileURLWithPath: swift).resolvingSymlinksInPath().deletingLastPathComponent()
            .appendingPathComponent("swiftc").path
        let version =
            try WorkflowTests.run([driver, "--version"], in: directory)
            .split(separator: "\n").first.map(String.init) ?? ""
        let touched = directory.appendingPathComponent("linked")
        for commit in commits {
            let kept = builds.appendingPathComponent("\(commit)-\(configuration)-bench-aligned-sections.kept")
            try FileManager.default.createDirectory(
                at: kept.appendingPathComponent("build"), withIntermediateDirectories: true)
            try Data(commit.utf8).write(to: kept.appendingPathComponent("built"))
            try Data("#!/bin/sh\nexit 1\n".utf8).write(to: kept.appendingPathComponent("build/bench"))
            chmod(kept.appendingPathComponent("build/bench").path, 0o700)
            try JSONEncoder().encode(["/bin/sh", "-c", "touch '\(touched.path)'"])
                .write(to: kept.appendingPathComponent("link-arguments.json"))
            try JSONSerialization.data(withJSONObject: ["driver": driver, "version": version])
                .write(to: kept.appendingPathComponent("toolchain.json"))
        }
        let result = try bench(
            [
                "bisect", "--good", commits[0], "--bad", commits[1], "--case", "sha256/swift/64", "--quick",
                "--output", directory.appendingPathComponent("out").path,
            ], in: repository, environment: environment)
        #expect(result.status == 70, "\(result.stdout)\n\(result.stderr)")
        #expect(result.stderrLines.last?.contains("link-arguments.json") == true, "\(result.stderr)")
        #expect(result.stderrLines.last?.contains("runs /bin/sh, not the driver \(driver)") == true, "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: touched.path), "the kept command ran")
    }

    /// A history in `directory/results` of 16 runs, one at each of `commits`, made on this host by
    /// this build, with a 6% step at the tenth: the alert --confirm measures again between
    /// `commits[9]` and `commits[10]`. The results directory.
    static func steppedHistory(of commits: [String], in directory: URL) throws -> URL {
        let stepped = HistoryChangesCommandTests.stepped
        let here = RunEnvironment.capture(libraries: [:])
        let runs = SyntheticRun.series(runs: 16, commits: commits.map { String($0.prefix(7)) }) {
            $0 >= 10 ? [stepped: 1.06] : [:]
        }.map { run in
            var run = run
            run.environment.cpu = here.cpu
            run.environment.cpuFlags = here.cpuFlags
            run.environment.build = here.build
            run.environment.targetCPU = here.targetCPU
            return run
        }
        let results = directory.appendingPathComponent("results")
        try FileManager.default.createDirectory(at: results, withIntermediateDirectories: true)
        try SyntheticRun.writeHistory(of: runs, in: results)
        return results
    }

    @Test("--confirm builds only commits on this branch: a side branch's step is undecided, and nothing is built")
    func confirmOnlyThisBranch() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (repository, environment, _) = try Self.repository(in: directory, commits: 1)
        _ = try WorkflowTests.run(
            ["git", "checkout", "--quiet", "-b", "side"], in: repository, environment: environment)
        var side: [String] = []
        for number in 1...16 {
            side.append(try Self.commit("side \(number)", in: repository, environment: environment))
        }
        _ = try WorkflowTests.run(["git", "checkout", "--quiet", "main"], in: repository, environment: environment)
        let results = try Self.steppedHistory(of: side, in: directory)

        let result = try bench(
            ["history", "--changes", "--confirm", "--output", results.path], in: repository,
            environment: environment)
        #expect(result.status == 2, "\(result.stdout)\n\(result.stderr)")
        #expect(
            result.stdout.contains("undecided (\(side[9].prefix(7)) is not on this branch)"),
            "\(result.stdout)")
        // The lock --confirm takes before it builds, and no worktree, log or kept build.
        let entries = Self.cacheEntries(directory)
        #expect(
            entries.count == 1 && entries.allSatisfy { $0.hasPrefix("incremental-") && $0.hasSuffix(".lock") },
            "\(entries)")
    }

    @Test("--confirm in a shallow clone that lacks the alert's commits: undecided, history too shallow, nothing built")
    func confirmInAShallowClone() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (repository, environment, commits) = try Self.repository(in: directory, commits: 16)
        // The commits are on main, an ancestor of HEAD each; the clone has only the last of them.
        let clone = directory.appendingPathComponent("clone")
        _ = try WorkflowTests.run(
            ["git", "clone", "--quiet", "--depth", "1", "file://\(repository.path)", clone.path], in: directory,
            environment: environment)
        let shallow = try WorkflowTests.run(
            ["git", "rev-parse", "--is-shallow-repository"], in: clone, environment: environment)
        #expect(shallow == "true\n")
        let results = try Self.steppedHistory(of: commits, in: directory)

        let result = try bench(
            ["history", "--changes", "--confirm", "--output", results.path], in: clone, environment: environment)
        #expect(result.status == 2, "\(result.stdout)\n\(result.stderr)")
        #expect(
            result.stdout.contains(
                "undecided (history too shallow to find \(commits[9].prefix(7)): fetch with depth 0 (git fetch --unshallow))"
            ), "\(result.stdout)")
        #expect(!result.stdout.contains("is not on this branch"), "\(result.stdout)")
        // The lock --confirm takes before it builds, and no worktree, log or kept build.
        let entries = Self.cacheEntries(directory)
        #expect(
            entries.count == 1 && entries.allSatisfy { $0.hasPrefix("incremental-") && $0.hasSuffix(".lock") },
            "\(entries)")
    }
}
