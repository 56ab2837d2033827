import Foundation

/// A git revision of this package, resolved for `bench ab --against REF`, `bench bisect`,
/// `bench backfill` and `--confirm`: the repository, the package's place in it, and the
/// configuration and product that ``CommitBuilds`` builds it in, in the cache of builds, with
/// ``layoutFlags``.
///
/// Nothing is fetched: the revision's commit must be in the local repository. A shallow clone
/// works once that commit has been fetched (`git fetch --depth=1 origin main`).
package struct RevisionBuild: Sendable {
    /// The revision as given: a branch, a tag or a commit.
    package let revision: String
    package let commit: String
    package let repository: String
    /// Where the package is in the repository: empty at its top, `Benchmarks/` for a nested one.
    package let packagePrefix: String
    /// That of the `bench` comparing with it.
    package let configuration: BuildConfiguration
    /// `bench`, or a package's own executable that calls `Bench.main(backends:)`.
    package let product: String
    /// Where builds are kept (``defaultCache(environment:)``): the worktree they are made in,
    /// and each kept build.
    package let cache: URL
    /// The `git` that resolved the revision.
    package let git: String

    /// What `swift build` gets besides the configuration and product, on both sides alike: every
    /// function in its own section (Swift, C and C++), linked by lld, so that ``LinkCommand`` can
    /// link the objects again in another order; and every function starting on a 64-byte line,
    /// so that moving a function moves its loops by whole cache lines.
    package static let layoutFlags = [
        "-Xswiftc", "-use-ld=lld", "-Xswiftc", "-Xfrontend", "-Xswiftc", "-function-sections",
        "-Xswiftc", "-Xllvm", "-Xswiftc", "-align-all-functions=6",
        "-Xcc", "-ffunction-sections", "-Xcc", "-falign-functions=64",
        "-Xcxx", "-ffunction-sections", "-Xcxx", "-falign-functions=64",
    ]
    /// The revision and its commit, for messages: `main (1a2b3c4)`.
    package var name: String { "\(revision) (\(commit.prefix(7)))" }

    /// Finds the commit that `revision` names in the git repository that `directory` is in.
    ///
    /// - Throws: ``BenchError``: `.usage` when there is no repository or no such commit; `.toolMissing`.
    package init(
        revision: String, in directory: String, configuration: BuildConfiguration, product: String = "bench", cache: URL
    ) throws(BenchError) {
        guard let git = executableInPath("git") else {
            throw BenchError(
                .toolMissing, "bench ab --against needs git, which is not installed (apt-get install -y git)")
        }
        let top = try ChildProcess.run(git, ["-C", directory, "rev-parse", "--show-toplevel"])
        guard top.succeeded, let repository = top.output.split(separator: "\n").first.map(String.init) else {
            throw BenchError(.usage, "bench ab --against needs a git repository, and \(directory) is not in one")
        }
        // A revision that starts with '-' would be read as an option.
        let resolved =
            revision.hasPrefix("-")
            ? nil
            : try ChildProcess.run(
                git, ["-C", repository, "rev-parse", "--verify", "--quiet", "--end-of-options", "\(revision)^{commit}"])
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
        let prefix = try ChildProcess.run(git, ["-C", package.path, "rev-parse", "--show-prefix"])
        self.packagePrefix = prefix.succeeded ? prefix.output.split(separator: "\n").first.map(String.init) ?? "" : ""
        self.revision = revision
        self.commit = String(commit)
        self.repository = repository
        self.configuration = configuration
        self.product = product
        self.cache = cache
        self.git = git
    }

    /// Refuses a checkout whose tracked files differ from its commit: a build of the commit would
    /// not be what the user is looking at. Files git does not track are not looked at.
    ///
    /// - Throws: ``BenchError``: `.usage` naming the first changed file.
    package func requireCommitted() throws(BenchError) {
        let status = try ChildProcess.run(git, ["-C", repository, "status", "--porcelain", "--untracked-files=no"])
        guard status.succeeded, let changed = status.output.split(separator: "\n").first else { return }
        throw BenchError(
            .usage,
            "bench ab --against builds \(revision) as committed, and \(changed.dropFirst(3)) has changes that are not: "
                + "commit or stash them, or compare with a bench executable of your own")
    }

    /// Where builds are kept by default: `$XDG_CACHE_HOME/pkcebench/builds`, or else
    /// `$HOME/.cache/pkcebench/builds`, or else that under the home directory the user database
    /// gives the user (`getpwuid`): always a directory of the user's, never a shared one such as
    /// the temporary directory, where another user could plant a build to be run.
    ///
    /// - Throws: ``BenchError``: `.cannotWrite` when the user has no home directory (absolute, not `/`).
    package static func defaultCache(
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(BenchError) -> URL {
        // The XDG Base Directory specification ignores a relative path.
        if let cache = environment["XDG_CACHE_HOME"], cache.hasPrefix("/") {
            return URL(fileURLWithPath: cache, isDirectory: true).appendingPathComponent("pkcebench/builds")
        }
        var home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 }
        let source = home == nil ? "the user database's home directory" : "HOME"
        if home == nil, let entry = getpwuid(getuid()), let directory = entry.pointee.pw_dir {
            home = String(cString: directory)
        }
        var isDirectory: ObjCBool = false
        guard let home, home.hasPrefix("/"), URL(fileURLWithPath: home).resolvingSymlinksInPath().path != "/",
            FileManager.default.fileExists(atPath: home, isDirectory: &isDirectory), isDirectory.boolValue
        else {
            throw .cannotWrite(
                "the cache of builds",
                "this user has no home directory to keep them in (\(source) is \(home.map { "'\($0)'" } ?? "unset")); "
                    + "set XDG_CACHE_HOME to a directory of yours")
        }
        return URL(fileURLWithPath: home, isDirectory: true).appendingPathComponent(".cache/pkcebench/builds")
    }

    /// Removes git's records of the worktrees this cache held whose folders are gone (removed
    /// with the cache), so that a new one can take a path again, and nothing else: `git worktree
    /// prune` would also forget every missing worktree of the user's.
    static func forgetMissingWorktrees(of repository: String, in cache: URL, git: String) throws(BenchError) {
        let listed = try ChildProcess.run(git, ["-C", repository, "worktree", "list", "--porcelain"])
        guard listed.succeeded else { return }
        // git may record the path as given or with its links resolved.
        let prefixes = [cache.standardizedFileURL.path + "/", cache.resolvingSymlinksInPath().path + "/"]
        for entry in listed.output.components(separatedBy: "\n\n") {
            let lines = entry.split(separator: "\n")
            guard let first = lines.first, first.hasPrefix("worktree "),
                lines.contains(where: { $0.hasPrefix("prunable") })
            else { continue }
            let path = String(first.dropFirst("worktree ".count))
            guard prefixes.contains(where: path.hasPrefix) else { continue }
            _ = try ChildProcess.run(git, ["-C", repository, "worktree", "remove", "--force", path])
        }
    }
}
