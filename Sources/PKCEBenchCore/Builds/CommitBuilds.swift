import Foundation

/// Builds of many commits of this package, for `bench bisect`: one worktree and one build
/// directory for them all, each commit checked out over the last, so that `swift build` rebuilds
/// only what changed; each finished build is then kept, by commit, as its executable and the
/// objects it was linked from, to run and link again in other orders (``LinkCommand``) after the
/// worktree has moved on.
///
/// The worktree and the kept builds are in the cache of ``RevisionBuild``; one process at a time
/// builds in it (``lock()``).
package struct CommitBuilds: Sendable {
    /// The repository, the package's place in it, the configuration, product, cache and `git`.
    private let origin: RevisionBuild

    /// A commit of the range, with its subject for messages.
    package struct Commit: Sendable, Equatable {
        package let id: String
        package let subject: String

        package init(id: String, subject: String) {
            self.id = id
            self.subject = subject
        }

        /// Its first 7 digits, as git's short form.
        package var short: String { String(id.prefix(7)) }
    }

    /// A commit's build, kept: its executable as linked, and how to link it again.
    package struct Kept: Sendable {
        package let commit: Commit
        package let executable: String
        package let linkCommand: LinkCommand
        /// The seconds `swift build` took, or `nil` when the build was kept already.
        package let buildSeconds: Double?
    }

    /// The builds of `build`'s repository, package, configuration and product, in its cache: `build`
    /// only resolved a revision, and is not built.
    package init(like build: RevisionBuild) {
        origin = build
    }

    /// One per repository (by a hash of its path), configuration and product.
    var worktree: URL {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in URL(fileURLWithPath: origin.repository).resolvingSymlinksInPath().path.utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
        }
        let suffix = String(hash >> 32, radix: 16)
        return origin.cache.appendingPathComponent("incremental-\(origin.configuration)-\(origin.product)-\(suffix)")
    }
    private var packageDirectory: URL { worktree.appendingPathComponent(origin.packagePrefix) }
    private var log: URL { URL(fileURLWithPath: worktree.path + ".log") }

    /// Where `commit`'s build is kept; its name changes with ``RevisionBuild/layoutFlags``' version,
    /// as the marker of a ``RevisionBuild`` does.
    func keptDirectory(_ commit: String) -> URL {
        origin.cache.appendingPathComponent("\(commit)-\(origin.configuration)-\(origin.product)-aligned-sections.kept")
    }

    /// The commits after `older` up to `newer`, oldest first, along first parents: the commits
    /// that landed on the branch, each of which was built and tested whole.
    ///
    /// - Throws: ``BenchError``: `.usage` when `older` is not on `newer`'s first-parent line, where
    ///   the commit before each is its parent.
    package func commits(after older: Commit, upTo newer: Commit) throws(BenchError) -> [Commit] {
        let line = try ChildProcess.run(origin.git, ["-C", origin.repository, "rev-list", "--first-parent", newer.id])
        guard line.succeeded, line.output.split(separator: "\n").contains(Substring(older.id)) else {
            throw BenchError(
                .usage,
                "\(older.short) is not on the first-parent line of \(newer.short): give the older commit first")
        }
        let listed = try ChildProcess.run(
            origin.git,
            [
                "-C", origin.repository, "log", "--first-parent", "--reverse", "--format=%H %s",
                "\(older.id)..\(newer.id)",
            ])
        guard listed.succeeded else {
            throw BenchError(
                .usage, "cannot list the commits from \(older.short) to \(newer.short): \(listed.lastLine)")
        }
        return listed.output.split(separator: "\n").map { line in
            let id = line.prefix { $0 != " " }
            return Commit(id: String(id), subject: String(line.dropFirst(id.count + 1)))
        }
    }

    /// The commit `revision` names, with its subject.
    ///
    /// - Throws: ``BenchError``: `.usage` when it names none.
    package func commit(_ revision: String) throws(BenchError) -> Commit {
        let shown =
            revision.hasPrefix("-")
            ? nil
            : try ChildProcess.run(
                origin.git, ["-C", origin.repository, "log", "-1", "--format=%H %s", "\(revision)^{commit}", "--"])
        guard let shown, shown.succeeded, let line = shown.output.split(separator: "\n").first,
            let id = line.split(separator: " ").first, id.utf8.count == 40 || id.utf8.count == 64
        else {
            throw BenchError(
                .usage,
                "'\(revision)' names no commit of the repository at \(origin.repository), and bench fetches nothing")
        }
        return Commit(id: String(id), subject: String(line.dropFirst(id.count + 1)))
    }

    /// Takes the cache's lock for building commits for as long as this process lives, or fails at
    /// once when another process holds it: two checkouts at once in one worktree would mix commits.
    ///
    /// - Throws: ``BenchError``: `.cannotWrite` when the cache cannot be made or another process builds in it.
    package func lock() throws(BenchError) {
        do {
            try FileManager.default.createDirectory(at: origin.cache, withIntermediateDirectories: true)
        } catch {
            throw .cannotWrite(origin.cache.path, "the directory for builds cannot be created")
        }
        try RevisionBuild.requireTrusted(origin.cache.path)
        let path = worktree.path + ".lock"
        // Kept open, and so locked, until the process exits; inherited by the builds it starts, so
        // that a build left running by a killed bench keeps the worktree locked until it ends.
        let descriptor = open(path, O_RDWR | O_CREAT | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else { throw .cannotWrite(path, String(cString: strerror(errno))) }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            close(descriptor)
            throw .cannotWrite(
                path, "another bench, or a build it started, is building commits in \(worktree.path); wait for it")
        }
    }

    /// The cases `kept`'s `bench list` names for `arguments` (its selection options): what a run of
    /// that build measures.
    ///
    /// - Throws: ``BenchError``: `.backendFailed` when it fails or names what is not a case.
    package static func cases(of kept: Kept, selecting arguments: [String]) throws(BenchError) -> [CaseKey] {
        let listed = try ChildProcess.run(kept.executable, ["list"] + arguments)
        let keys = listed.output.split(separator: "\n").map { CaseKey(name: String($0)) }
        guard listed.succeeded, !keys.contains(where: { $0 == nil }) else {
            throw BenchError(
                .backendFailed, "the bench of \(kept.commit.short) cannot list its cases: \(listed.lastLine)")
        }
        return keys.compactMap { $0 }
    }

    /// `commit`'s build: kept already, or built now in the shared worktree and then kept.
    ///
    /// - Throws: ``BenchError``: `.backendFailed` when the build fails or is not trusted;
    ///   `.cannotWrite`, `.toolMissing`, `.interrupted`, `.terminated`.
    package func build(
        _ commit: Commit, progress: ProgressPrinter, interruption: () -> Int32?
    ) throws(BenchError) -> Kept {
        let kept = keptDirectory(commit.id)
        if FileManager.default.fileExists(atPath: kept.appendingPathComponent("built").path) {
            return try read(kept, commit: commit, buildSeconds: nil)
        }
        guard let swift = executableInPath("swift") else {
            throw BenchError(.toolMissing, "building \(commit.short) needs swift on PATH")
        }
        try checkOut(commit)
        progress.info("building \(commit.short) (\(commit.subject)) in \(packageDirectory.path)")
        let started = MonotonicClock.now()
        let build = try ChildProcess(
            executable: swift,
            arguments: [
                "build", "-c", origin.configuration, "--product", origin.product, "--package-path",
                packageDirectory.path,
            ]
                + RevisionBuild.layoutFlags,
            streams: .files(output: log.path, error: log.path))
        let executable = packageDirectory.appendingPathComponent(".build/\(origin.configuration)/\(origin.product)")
            .path
        guard try build.waitWatching(interruption: interruption),
            FileManager.default.isExecutableFile(atPath: executable)
        else {
            let lastLine = (try? String(contentsOf: log, encoding: .utf8))?.split(separator: "\n").last ?? "no output"
            throw BenchError(
                .backendFailed,
                "cannot build \(commit.short): swift build failed (\(lastLine)); its output is in \(log.path)")
        }
        let seconds = Double(MonotonicClock.now() - started) / 1e9
        let scratch = packageDirectory.appendingPathComponent(".build")
        try RevisionBuild.requireTrusted(scratch.appendingPathComponent("\(origin.configuration).yaml").path)
        let built = try LinkCommand(
            executable: executable, product: origin.product, configuration: origin.configuration, scratch: scratch)
        try keep(built, commit: commit, in: kept)
        return try read(kept, commit: commit, buildSeconds: seconds)
    }

    /// Checks `commit` out in the shared worktree, adding the worktree first when it is not there.
    /// Files git does not track, the build directory among them, stay.
    private func checkOut(_ commit: Commit) throws(BenchError) {
        let exists = FileManager.default.fileExists(atPath: worktree.path)
        if !exists {
            // Its folder may have gone with the cache while git still lists it.
            try RevisionBuild.forgetMissingWorktrees(of: origin.repository, in: origin.cache, git: origin.git)
        }
        let checkedOut =
            exists
            ? try ChildProcess.run(
                origin.git, ["-C", worktree.path, "checkout", "--quiet", "--force", "--detach", commit.id])
            : try ChildProcess.run(
                origin.git, ["-C", origin.repository, "worktree", "add", "--detach", worktree.path, commit.id])
        guard checkedOut.succeeded else {
            throw .cannotWrite(worktree.path, "cannot check out \(commit.short): \(checkedOut.lastLine)")
        }
    }

    /// Copies the executable, the objects it was linked from and their list into `kept`, through a
    /// directory that is renamed into place last: an interrupted copy leaves no kept build.
    private func keep(_ built: LinkCommand, commit: Commit, in kept: URL) throws(BenchError) {
        let staging = URL(fileURLWithPath: kept.path + ".partial-\(getpid())")
        let fileManager = FileManager.default
        // A copy a killed process left: this process holds the lock, so no other is making one.
        for name in (try? fileManager.contentsOfDirectory(atPath: origin.cache.path)) ?? []
        where name.hasPrefix(kept.lastPathComponent + ".partial-") {
            try? fileManager.removeItem(at: origin.cache.appendingPathComponent(name))
        }
        do {
            try fileManager.createDirectory(at: staging, withIntermediateDirectories: false)
            // The paths are the kept directory's; the files go to the staging one until it is renamed.
            let moved = try built.relocated(into: kept.path)
            func staged(_ path: String) -> String { staging.path + path.dropFirst(kept.path.count) }
            for (source, destination) in [(built.executable, moved.executable)] + moved.copies {
                try fileManager.createDirectory(
                    atPath: URL(fileURLWithPath: staged(destination)).deletingLastPathComponent().path,
                    withIntermediateDirectories: true)
                try fileManager.copyItem(atPath: source, toPath: staged(destination))
            }
            try fileManager.createDirectory(
                atPath: URL(fileURLWithPath: staged(moved.fileListPath)).deletingLastPathComponent().path,
                withIntermediateDirectories: true)
            try moved.fileList.write(toFile: staged(moved.fileListPath), atomically: false, encoding: .utf8)
            try JSONEncoder().encode(moved.arguments).write(to: staging.appendingPathComponent("link-arguments.json"))
            try Data(commit.id.utf8).write(to: staging.appendingPathComponent("built"))
            try? fileManager.removeItem(at: kept)
            try fileManager.moveItem(at: staging, to: kept)
        } catch let error as BenchError {
            try? fileManager.removeItem(at: staging)
            throw error
        } catch {
            try? fileManager.removeItem(at: staging)
            throw .cannotWrite(kept.path, "cannot keep the build of \(commit.short): \(error.localizedDescription)")
        }
    }

    /// The build kept in `kept`, once it and its executable are trusted.
    private func read(_ kept: URL, commit: Commit, buildSeconds: Double?) throws(BenchError) -> Kept {
        let executable = kept.appendingPathComponent("build/\(origin.product)").path
        try RevisionBuild.requireTrusted(kept.appendingPathComponent("built").path)
        try RevisionBuild.requireTrusted(executable)
        let arguments = kept.appendingPathComponent("link-arguments.json")
        guard let data = try? Data(contentsOf: arguments),
            let decoded = try? JSONDecoder().decode([String].self, from: data)
        else {
            throw BenchError(.backendFailed, "the kept build of \(commit.short) has no readable \(arguments.path)")
        }
        let linkCommand = try LinkCommand(executable: executable, arguments: decoded)
        return Kept(commit: commit, executable: executable, linkCommand: linkCommand, buildSeconds: buildSeconds)
    }
}
