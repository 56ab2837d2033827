import Foundation
import PKCEBenchCore
import PKCEBenchTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Builds another user could plant in the cache of `bench ab --against`: refused, never run.
@Suite("bench ab --against and the builds another user could plant")
struct PlantedBuildTests {
    static let small = ["--backend", "swift", "--operation", "sha256", "--size", "64", "--quick"]

    /// A git repository of one commit, in which `bench ab --against HEAD` finds a build planted in
    /// its cache, kept as bench keeps one (`<commit>-debug-bench-aligned-sections.kept`, or
    /// `-release-` as the running bench was built), recorded as of this toolchain, so that bench
    /// would run it rather than build the commit.
    static func plantedBuild(in directory: URL) throws -> (repository: URL, cache: URL, ran: URL) {
        let repository = directory.appendingPathComponent("repository")
        try FileManager.default.createDirectory(at: repository, withIntermediateDirectories: true)
        let environment = ["GIT_CONFIG_GLOBAL": directory.appendingPathComponent("gitconfig").path]
        _ = try WorkflowTests.run(["git", "init", "--quiet", "-b", "main"], in: repository, environment: environment)
        _ = try WorkflowTests.run(
            ["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "--quiet", "--allow-empty", "-m", "x"],
            in: repository, environment: environment)
        let commit = try WorkflowTests.run(["git", "rev-parse", "HEAD"], in: repository, environment: environment)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let configuration = productsDirectory.lastPathComponent
        let cache = directory.appendingPathComponent("cache")
        let builds = cache.appendingPathComponent("pkcebench/builds")
        let kept = builds.appendingPathComponent("\(commit)-\(configuration)-bench-aligned-sections.kept")
        try FileManager.default.createDirectory(
            at: kept.appendingPathComponent("build"), withIntermediateDirectories: true)
        // As bench makes its cache: nobody else may enter it.
        chmod(builds.path, 0o700)
        let ran = directory.appendingPathComponent("ran")
        let planted = kept.appendingPathComponent("build/bench").path
        try "#!/bin/sh\ntouch \(ran.path)\nexit 1\n".write(toFile: planted, atomically: true, encoding: .utf8)
        chmod(planted, 0o755)
        try Data(commit.utf8).write(to: kept.appendingPathComponent("built"))
        try JSONEncoder().encode(["/bin/sh", "-c", "touch '\(ran.path)'"])
            .write(to: kept.appendingPathComponent("link-arguments.json"))
        // The toolchain's own record, so that the kept build is read rather than built again.
        let swift = try #require(executableInPath("swift"))
        let driver = URL(fileURLWithPath: swift).resolvingSymlinksInPath().deletingLastPathComponent()
            .appendingPathComponent("swiftc").path
        let version =
            try WorkflowTests.run([driver, "--version"], in: directory).split(separator: "\n").first.map(String.init)
            ?? ""
        try JSONSerialization.data(withJSONObject: ["driver": driver, "version": version])
            .write(to: kept.appendingPathComponent("toolchain.json"))
        return (repository, cache, ran)
    }

    /// Runs `bench ab --against HEAD` on a planted build after `plant` made it untrustworthy, and
    /// checks that it is refused with `reason`, and not run.
    static func expectRefused(after plant: (_ builds: String, _ executable: String) -> Void, reason: String) throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (repository, cache, ran) = try plantedBuild(in: directory)
        let builds = cache.appendingPathComponent("pkcebench/builds").path
        let entries = try FileManager.default.subpathsOfDirectory(atPath: builds)
        plant(builds, builds + "/" + (entries.first { $0.hasSuffix("/bench") } ?? ""))
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_CACHE_HOME"] = cache.path
        let result = try bench(
            ["ab", "--against", "HEAD", "--output", directory.appendingPathComponent("out").path] + small,
            in: repository, environment: environment)
        #expect(result.status == 70, "\(result.stderr)")
        #expect(result.stderrLines.count == 1, "\(result.stderr)")
        #expect(result.stderr.contains("refusing to "), "\(result.stderr)")
        #expect(result.stderr.contains(reason), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: ran.path), "the planted build ran")
    }

    @Test("A build in a cache that others can write is refused, not run")
    func writableByOthers() throws {
        try Self.expectRefused(after: { builds, _ in chmod(builds, 0o777) }, reason: "can be written by others")
    }

    @Test(
        "A build that another user owns, or in a directory another group can write, is refused, not run",
        .enabled(if: getuid() == 0, "only root can give a file away"))
    func plantedByAnotherUser() throws {
        try Self.expectRefused(
            after: { _, executable in _ = chown(executable, 65534, 65534) }, reason: "is owned by user 65534")
        try Self.expectRefused(
            after: { builds, _ in
                _ = chown(builds, 0, 65534)
                chmod(builds, 0o775)
            }, reason: "can be written by others")
    }
}
