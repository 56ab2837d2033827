import Foundation

/// A build of a git revision of this package, for `bench ab --against REF`: made in a worktree
/// outside the source tree, with the configuration of the `bench` that asks for it, and kept by
/// commit, so that the next comparison with the same commit reuses it.
///
/// Nothing is fetched: the revision's commit must be in the local repository. A shallow clone
/// works once that commit has been fetched (`git fetch --depth=1 origin main`).
public struct RevisionBuild: Sendable {
    /// The revision as given: a branch, a tag or a commit.
    public let revision: String
    /// The commit the revision names, in full.
    public let commit: String
    /// The top directory of the repository it was found in.
    public let repository: String
    /// Where the package is in the repository: empty at its top, `Benchmarks/` for a nested one.
    public let packagePrefix: String
    /// The build's configuration, `release` or `debug`: that of the `bench` comparing with it.
    public let configuration: String
    /// The executable product built: `bench`, or the name of a package's own executable that
    /// calls `Bench.main(backends:)`.
    public let product: String
    /// Where builds are kept: a worktree per commit and configuration.
    public let cache: URL
    /// The `git` that resolved the revision, which adds the worktree too.
    private let git: String

    /// The worktree the build is made in: `<cache>/<commit>-<configuration>`.
    public var worktree: URL { cache.appendingPathComponent("\(commit)-\(configuration)") }
    /// The package in the worktree: the one the current directory is in, at the same place.
    public var packageDirectory: URL { worktree.appendingPathComponent(packagePrefix) }
    /// The executable the build makes.
    public var executable: String {
        packageDirectory.appendingPathComponent(".build/\(configuration)/\(product)").path
    }
    /// What `swift build` printed, kept for a build that fails.
    public var log: URL { cache.appendingPathComponent("\(commit)-\(configuration).log") }
    /// Written once the build succeeded: a worktree without it is built again.
    var marker: URL { cache.appendingPathComponent("\(commit)-\(configuration)-\(product).built") }
    /// The revision and its commit, for messages: `main (1a2b3c4)`.
    public var name: String { "\(revision) (\(commit.prefix(7)))" }

    /// Finds the commit that `revision` names in the git repository at `directory`.
    ///
    /// - Parameters:
    ///   - revision: A branch, tag or commit.
    ///   - directory: A directory of the repository: the current one, for `bench ab --against`.
    ///   - configuration: `release` or `debug`.
    ///   - product: The executable product to build.
    ///   - cache: Where builds are kept.
    /// - Throws: ``BenchError``: 69 when git is not installed; 64 when `directory` is not in a git
    ///   repository, or `revision` names no commit there (with how to fetch it).
    public init(
        revision: String, in directory: String, configuration: String, product: String = "bench", cache: URL
    ) throws(BenchError) {
        guard let git = InstructionCounter.executableInPath("git") else {
            throw BenchError(
                .toolMissing, "bench ab --against needs git, which is not installed (apt-get install -y git)")
        }
        let top = try Self.run(git, ["-C", directory, "rev-parse", "--show-toplevel"])
        guard top.succeeded, let repository = top.output.split(separator: "\n").first.map(String.init) else {
            throw BenchError(.usage, "bench ab --against needs a git repository, and \(directory) is not in one")
        }
        // A revision that starts with '-' would be read as an option.
        let resolved =
            revision.hasPrefix("-")
            ? nil : try Self.run(git, ["-C", repository, "rev-parse", "--verify", "--quiet", "\(revision)^{commit}"])
        guard let resolved, resolved.succeeded, let commit = resolved.output.split(separator: "\n").first,
            commit.utf8.count == 40 || commit.utf8.count == 64
        else {
            throw BenchError(
                .usage,
                "'\(revision)' names no commit of the repository at \(repository), and bench fetches nothing: "
                    + "fetch it first, such as with git fetch --depth=1 origin \(revision)")
        }
        // The package whose directory (or a subdirectory of it) this is: its place in the repository.
        var package = URL(fileURLWithPath: directory).standardizedFileURL
        while !FileManager.default.fileExists(atPath: package.appendingPathComponent("Package.swift").path),
            package.pathComponents.count > 1
        {
            package.deleteLastPathComponent()
        }
        let prefix = try Self.run(git, ["-C", package.path, "rev-parse", "--show-prefix"])
        self.packagePrefix = prefix.succeeded ? prefix.output.split(separator: "\n").first.map(String.init) ?? "" : ""
        self.revision = revision
        self.commit = String(commit)
        self.repository = repository
        self.configuration = configuration
        self.product = product
        self.cache = cache
        self.git = git
    }

    /// Where builds are kept by default: `$XDG_CACHE_HOME/pkcebench/builds`, or
    /// `~/.cache/pkcebench/builds`.
    ///
    /// - Parameter environment: The environment that names the directories.
    public static func defaultCache(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        let base =
            environment["XDG_CACHE_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? (environment["HOME"] ?? FileManager.default.temporaryDirectory.path) + "/.cache"
        return URL(fileURLWithPath: base, isDirectory: true).appendingPathComponent("pkcebench/builds")
    }

    /// Whether the build is there, finished.
    public var isBuilt: Bool {
        FileManager.default.fileExists(atPath: marker.path) && FileManager.default.isExecutableFile(atPath: executable)
    }

    /// Builds the revision with `swift build -c CONFIGURATION --product PRODUCT`, in its worktree
    /// (in the package at ``packagePrefix`` there),
    /// unless the build is there already.
    ///
    /// - Parameters:
    ///   - progress: Told what is built, where, and where the log is.
    ///   - interruption: Asked while it builds whether a signal asked the run to stop.
    /// - Returns: The seconds the build took, or `nil` when it was there already.
    /// - Throws: ``BenchError``: 69 when `swift` is not on `PATH`; 73 when the cache or the
    ///   worktree cannot be made; 70 when the build fails (with the last line of its log);
    ///   130 or 143 when a signal stopped it.
    public func make(progress: ProgressPrinter, interruption: () -> Int32?) throws(BenchError) -> Double? {
        guard !isBuilt else { return nil }
        guard let swift = InstructionCounter.executableInPath("swift") else {
            throw BenchError(.toolMissing, "bench ab --against needs swift on PATH to build \(name)")
        }
        do {
            try FileManager.default.createDirectory(at: cache, withIntermediateDirectories: true)
        } catch {
            throw .cannotWrite(cache.path, "the directory for builds cannot be created")
        }
        if !FileManager.default.fileExists(atPath: worktree.path) {
            // Forget worktrees whose folders were removed with the cache, then add this one.
            _ = try Self.run(git, ["-C", repository, "worktree", "prune"])
            let added = try Self.run(git, ["-C", repository, "worktree", "add", "--detach", worktree.path, commit])
            guard added.succeeded else {
                throw .cannotWrite(worktree.path, "git worktree add failed: \(added.lastLine)")
            }
        }
        progress.info(
            "building \(name) with swift build -c \(configuration) in \(packageDirectory.path) (its output: \(log.path))"
        )
        let started = MonotonicClock.now()
        let build = try ChildProcess(
            executable: swift,
            arguments: [
                "build", "-c", configuration, "--product", product, "--package-path", packageDirectory.path,
            ],
            streams: .files(output: log.path, error: log.path))
        guard try build.waitWatching(interruption: interruption),
            FileManager.default.isExecutableFile(atPath: executable)
        else {
            let lastLine = (try? String(contentsOf: log, encoding: .utf8))?.split(separator: "\n").last ?? "no output"
            throw BenchError(
                .backendFailed, "cannot build \(name): swift build failed (\(lastLine)); its output is in \(log.path)")
        }
        guard FileManager.default.createFile(atPath: marker.path, contents: Data(commit.utf8)) else {
            throw .cannotWrite(marker.path, "cannot mark the build finished")
        }
        return Double(MonotonicClock.now() - started) / 1e9
    }

    /// What a quick command printed, and whether it succeeded.
    private struct Outcome {
        var succeeded: Bool
        var output: String
        var error: String
        /// The last line of its standard error, or of its output.
        var lastLine: String {
            (error.split(separator: "\n").last ?? output.split(separator: "\n").last).map(String.init) ?? "no output"
        }
    }

    /// Runs `executable` with `arguments` to its end, its output and errors captured.
    private static func run(_ executable: String, _ arguments: [String]) throws(BenchError) -> Outcome {
        let directory = try makeScratchDirectory(for: "git's output")
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("output")
        let error = directory.appendingPathComponent("error")
        let process = try ChildProcess(
            executable: executable, arguments: arguments, streams: .files(output: output.path, error: error.path))
        let status = process.wait()
        return Outcome(
            succeeded: status == .exited(0),
            output: (try? String(contentsOf: output, encoding: .utf8)) ?? "",
            error: (try? String(contentsOf: error, encoding: .utf8)) ?? "")
    }
}
