import Foundation

/// Builds of commits of this package, for `bench ab --against`, `bench bisect`, `bench backfill`
/// and `--confirm`: one worktree and one build directory for them all, each commit checked out
/// over the last, so that `swift build` rebuilds only what changed; each finished build is then
/// kept, by commit, as its executable and the objects it was linked from, to run and link again
/// in other orders (``LinkCommand``) after the worktree has moved on.
///
/// The worktree and the kept builds are in the cache of ``RevisionBuild``; one process at a time
/// builds in it (``lock()``).
package struct CommitBuilds: Sendable {
    /// The repository, the package's place in it, the configuration, product, cache and `git`.
    private let origin: RevisionBuild

    /// A commit of the range, with its subject for messages.
    package struct Commit: Sendable, Equatable {
        package let id: String
        /// Its subject, escaped as every output escapes text (``printable(_:keepingLines:)``): a
        /// commit's author chose it.
        package let subject: String

        package init(id: String, subject: String) {
            self.id = id
            self.subject = printable(subject)
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
    package var worktree: URL {
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
    /// so that a build made with other flags is not taken for one.
    func keptDirectory(_ commit: String) -> URL {
        origin.cache.appendingPathComponent("\(commit)-\(origin.configuration)-\(origin.product)-aligned-sections.kept")
    }

    /// The commits after `older` up to `newer`, oldest first, along first parents: the commits
    /// that landed on the branch, each of which was built and tested whole.
    ///
    /// - Throws: ``BenchError``: `.usage` when `older` is not on `newer`'s first-parent line, where
    ///   the commit before each is its parent.
    package func commits(after older: Commit, upTo newer: Commit) throws(BenchError) -> [Commit] {
        let line = try git("rev-list", "--first-parent", newer.id)
        guard line.succeeded, line.output.split(separator: "\n").contains(Substring(older.id)) else {
            throw BenchError(
                .usage,
                "\(older.short) is not on the first-parent line of \(newer.short): give the older commit first")
        }
        let listed = try git("log", "--first-parent", "--reverse", "--format=%H %s", "\(older.id)..\(newer.id)")
        guard listed.succeeded else {
            throw BenchError(
                .usage, "cannot list the commits from \(older.short) to \(newer.short): \(listed.lastLine)")
        }
        return listed.output.split(separator: "\n").map { line in
            let id = line.prefix { $0 != " " }
            return Commit(id: String(id), subject: String(line.dropFirst(id.count + 1)))
        }
    }

    /// `git` run with `arguments` in the repository the builds are of.
    private func git(_ arguments: String...) throws(BenchError) -> ChildProcess.Captured {
        try ChildProcess.run(origin.git, ["-C", origin.repository] + arguments)
    }

    /// Where a recorded commit stands: on the first-parent or any other line to `HEAD`, or not.
    package enum Lineage: Equatable, Sendable {
        /// An ancestor of `HEAD` (or `HEAD`): one that landed on this branch.
        case onThisBranch(Commit)
        /// Not an ancestor of `HEAD`, or not in the repository at all.
        case notOnThisBranch
        /// Not found as an ancestor in a shallow clone, whose history may be cut before it.
        case historyTooShallow
    }

    /// Whether `hash` names an ancestor of `HEAD`: `--confirm` builds only those, never another
    /// branch's commit or anything else a history row could name.
    ///
    /// - Throws: ``BenchError``: `.buildFailed` when git cannot be started.
    package func lineage(of hash: String) throws(BenchError) -> Lineage {
        let shallow = try git("rev-parse", "--is-shallow-repository")
        let isShallow = shallow.output.hasPrefix("true")
        // A branch named like a short hash would win over the object: the commit must be the hash's.
        guard RecordedFields.isHash(hash[...]), let commit = try? commit(hash), commit.id.hasPrefix(hash) else {
            return isShallow ? .historyTooShallow : .notOnThisBranch
        }
        let ancestor = try git("merge-base", "--is-ancestor", commit.id, "HEAD")
        if ancestor.succeeded { return .onThisBranch(commit) }
        return isShallow ? .historyTooShallow : .notOnThisBranch
    }

    /// The commit `revision` names, with its subject.
    ///
    /// - Throws: ``BenchError``: `.usage` when it names none.
    package func commit(_ revision: String) throws(BenchError) -> Commit {
        let shown =
            revision.hasPrefix("-")
            ? nil
            : try git("log", "-1", "--format=%H %s", "--end-of-options", "\(revision)^{commit}", "--")
        guard let shown, shown.succeeded, let line = shown.output.split(separator: "\n").first,
            let id = line.split(separator: " ").first, id.utf8.count == 40 || id.utf8.count == 64
        else {
            throw BenchError(
                .usage,
                "'\(revision)' names no commit of the repository at \(origin.repository), and bench fetches nothing")
        }
        return Commit(id: String(id), subject: String(line.dropFirst(id.count + 1)))
    }

    /// Takes the cache's lock for building commits for as long as this process lives: two
    /// checkouts at once in one worktree would mix commits. When another process holds it, says
    /// once through `progress` what it waits for (a note, which `--quiet` shows too), and waits,
    /// asking `cancellation` every 100 ms whether a signal asked the run to stop. Called once a
    /// process: a second call would wait for the first.
    ///
    /// - Throws: ``BenchError``: `.cannotWrite` when the cache or its lock cannot be made;
    ///   `.buildFailed` when the cache is not the user's alone; `.interrupted`, `.terminated`.
    package func lock(progress: any ProgressObserver, cancellation: Cancellation) throws(BenchError) {
        let path = worktree.path + ".lock"
        // Kept open, and so locked, until the process exits; inherited by the builds it starts, so
        // that a build left running by a killed bench keeps the worktree locked until it ends.
        var descriptor = try openLock(at: path)
        var announced = false
        // Polled rather than blocking in flock, which a signal handler installed with SA_RESTART
        // would not end: the user's Ctrl-C must stop the wait.
        while true {
            if flock(descriptor, LOCK_EX | LOCK_NB) == 0 {
                if Self.isStill(descriptor, at: path) { return }
                // The file locked is no longer at `path` (the cache was removed meanwhile): its
                // lock guards nothing, and another bench may hold the one there now.
                close(descriptor)
                descriptor = try openLock(at: path)
                continue
            }
            guard errno == EWOULDBLOCK || errno == EINTR else {
                let reason = String(cString: strerror(errno))
                close(descriptor)
                throw .cannotWrite(path, reason)
            }
            if let signal = cancellation.signal {
                close(descriptor)
                throw InterruptSignals.error(for: signal)
            }
            if !announced {
                progress.note("waiting for another bench, or a build it started, building commits in \(worktree.path)")
                announced = true
            }
            usleep(100_000)
        }
    }

    /// The lock file at `path`, opened in a cache made (again, when it was removed) and checked.
    private func openLock(at path: String) throws(BenchError) -> Int32 {
        try RevisionBuild.prepareCache(origin.cache)
        let descriptor = open(path, O_RDWR | O_CREAT | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else { throw .cannotWrite(path, String(cString: strerror(errno))) }
        return descriptor
    }

    /// Whether the file `descriptor` has open is the one at `path`: same device and inode.
    private static func isStill(_ descriptor: Int32, at path: String) -> Bool {
        var opened = stat()
        var named = stat()
        return fstat(descriptor, &opened) == 0 && lstat(path, &named) == 0
            && opened.st_dev == named.st_dev && opened.st_ino == named.st_ino
    }

    /// The cases `kept`'s `bench list` names for `arguments` (its selection options): what a run of
    /// that build measures.
    ///
    /// - Throws: ``BenchError``: `.buildFailed` when it fails or names what is not a case.
    package static func cases(of kept: Kept, selecting arguments: [String]) throws(BenchError) -> [CaseKey] {
        let listed = try ChildProcess.run(kept.executable, ["list"] + arguments)
        let keys = listed.output.split(separator: "\n").map { CaseKey(name: String($0)) }
        guard listed.succeeded, !keys.contains(where: { $0 == nil }) else {
            throw BenchError(
                .buildFailed, "the bench of \(kept.commit.short) cannot list its cases: \(listed.lastLine)")
        }
        return keys.compactMap { $0 }
    }

    /// `commit`'s build: kept already, or built now in the shared worktree and then kept.
    /// `name` is what messages call it: by default its short hash and subject.
    ///
    /// - Throws: ``BenchError``: `.buildFailed` when the build fails or is not trusted;
    ///   `.cannotWrite`, `.toolMissing`, `.interrupted`, `.terminated`.
    package func build(
        _ commit: Commit, named name: String? = nil, progress: any ProgressObserver, cancellation: Cancellation
    ) throws(BenchError) -> Kept {
        let name = name ?? "\(commit.short) (\(commit.subject))"
        let kept = keptDirectory(commit.id)
        guard let swift = executableInPath("swift") else {
            throw BenchError(.toolMissing, "building \(commit.short) needs swift on PATH")
        }
        let toolchain = try Toolchain(swift: swift)
        try RevisionBuild.requirePrivateCache(origin.cache)
        if FileManager.default.fileExists(atPath: kept.appendingPathComponent("built").path) {
            // One kept before its toolchain was recorded, or by another toolchain, is built again.
            if let driver = try keptDriver(kept, commit: commit, toolchain: toolchain) {
                return try read(kept, commit: commit, driver: driver, buildSeconds: nil)
            }
            progress.info("building \(name) again: its kept build is of another toolchain, or of none recorded")
        }
        try checkOut(commit)
        try RevisionBuild.requireOwnWorktree(
            worktree, of: origin.repository, at: commit.id, cache: origin.cache, git: origin.git)
        progress.info("building \(name) in \(packageDirectory.path)")
        let started = MonotonicClock.now()
        let command = RevisionBuild.privately(
            swift,
            [
                "build", "-c", origin.configuration.rawValue, "--product", origin.product, "--package-path",
                packageDirectory.path,
            ] + RevisionBuild.layoutFlags)
        let build = try ChildProcess(
            executable: command.executable, arguments: command.arguments,
            streams: .files(output: log.path, error: log.path))
        let executable = packageDirectory.appendingPathComponent(".build/\(origin.configuration)/\(origin.product)")
            .path
        guard try build.waitWatching(cancellation: cancellation),
            FileManager.default.isExecutableFile(atPath: executable)
        else {
            let lastLine = (try? String(contentsOf: log, encoding: .utf8))?.split(separator: "\n").last ?? "no output"
            throw BenchError(
                .buildFailed,
                "cannot build \(name): swift build failed (\(lastLine)); its output is in \(log.path)")
        }
        let seconds = Double(MonotonicClock.now() - started) / 1e9
        let scratch = packageDirectory.appendingPathComponent(".build")
        try RevisionBuild.requireTrusted(
            scratch.appendingPathComponent("\(origin.configuration).yaml").path, cache: origin.cache)
        let built = try LinkCommand(
            executable: executable, product: origin.product, configuration: origin.configuration.rawValue,
            scratch: scratch)
        // The driver as the link command names it (a toolchain's path, or a proxy's such as swiftly's),
        // which must be a swiftc of the toolchain on the path.
        guard let driver = built.arguments.first, URL(fileURLWithPath: driver).lastPathComponent == "swiftc",
            let linkedBy = try? Toolchain(driver: driver), linkedBy.version == toolchain.version
        else {
            throw BenchError(
                .buildFailed,
                "cannot keep the build of \(commit.short): it was linked by \(built.arguments.first ?? "nothing"), "
                    + "not by a swiftc of \(toolchain.version)")
        }
        try keep(built, commit: commit, in: kept, toolchain: linkedBy)
        return try read(kept, commit: commit, driver: driver, buildSeconds: seconds)
    }

    /// Checks `commit` out in the shared worktree, adding the worktree first when it is not there.
    /// Files git does not track, the build directory among them, stay.
    private func checkOut(_ commit: Commit) throws(BenchError) {
        var exists = FileManager.default.fileExists(atPath: worktree.path)
        if exists {
            // Before git reads its .git: another account's folder could name a configuration to run.
            try RevisionBuild.requireTrusted(worktree.path, cache: origin.cache)
            if !RevisionBuild.isListedWorktree(worktree, of: origin.repository, git: origin.git) {
                // A worktree of a clone gone or moved, or one git forgot: the cache's own, so made again.
                do {
                    try FileManager.default.removeItem(at: worktree)
                } catch {
                    throw .cannotWrite(worktree.path, "a worktree git does not list cannot be removed")
                }
                exists = false
            }
        }
        if !exists {
            // Its folder may have gone with the cache while git still lists it.
            try RevisionBuild.forgetMissingWorktrees(of: origin.repository, in: origin.cache, git: origin.git)
        }
        let command =
            exists
            ? RevisionBuild.privately(
                origin.git,
                // A full hash, never an option (git 2.39's checkout --detach takes no --end-of-options).
                ["-C", worktree.path, "checkout", "--quiet", "--force", "--detach", commit.id])
            : RevisionBuild.privately(
                origin.git,
                ["-C", origin.repository, "worktree", "add", "--detach", worktree.path, commit.id])
        let checkedOut = try ChildProcess.run(command.executable, command.arguments)
        guard checkedOut.succeeded else {
            throw .cannotWrite(worktree.path, "cannot check out \(commit.short): \(checkedOut.lastLine)")
        }
    }

    /// Copies the executable, the objects it was linked from and their list into `kept`, through a
    /// directory that is renamed into place last: an interrupted copy leaves no kept build.
    private func keep(_ built: LinkCommand, commit: Commit, in kept: URL, toolchain: Toolchain) throws(BenchError) {
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
            // Found now rather than each time the build is read: a link bench would not run again.
            if let unexpected = LinkCommand.unexpectedArgument(in: moved.arguments, kept: kept.path) {
                throw BenchError(
                    .buildFailed,
                    "cannot keep the build of \(commit.short): its link passes \(printable(unexpected)), "
                        + "which bench does not run again")
            }
            func staged(_ path: String) -> String { staging.path + path.dropFirst(kept.path.count) }
            for (source, destination) in [(built.executable, moved.executable)] + moved.copies {
                // relocated(into:) moved no path that climbs; this keeps it so.
                guard LinkCommand.isInside(destination, kept.path) else {
                    throw BenchError(.buildFailed, "cannot keep \(source): it would go to \(destination)")
                }
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
            try JSONEncoder().encode(toolchain).write(to: staging.appendingPathComponent(Toolchain.fileName))
            try Data(commit.id.utf8).write(to: staging.appendingPathComponent("built"))
            // What FileManager made under the user's umask (002 gives group write) is the user's alone.
            try Self.makePrivate(staging)
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

    /// Takes every permission but the owner's from `directory` and all in it, links not followed:
    /// inside the cache of builds nothing may be writable by others (``RevisionBuild/requireTrusted(_:cache:)``).
    static func makePrivate(_ directory: URL) throws {
        var paths = [directory.path]
        if let enumerator = FileManager.default.enumerator(atPath: directory.path) {
            while let relative = enumerator.nextObject() as? String { paths.append(directory.path + "/" + relative) }
        }
        for path in paths {
            var status = stat()
            guard lstat(path, &status) == 0 else { throw CocoaError(.fileReadUnknown) }
            guard status.st_mode & S_IFMT != S_IFLNK, status.st_mode & 0o077 != 0 else { continue }
            guard chmod(path, status.st_mode & 0o700) == 0 else { throw CocoaError(.fileWriteNoPermission) }
        }
    }

    /// The driver that linked the build kept in `kept`, when it is a `swiftc` of `toolchain`: `nil`
    /// when the build was kept by another toolchain, or before toolchains were recorded.
    ///
    /// - Throws: ``BenchError``: `.buildFailed` when the record, or the driver it names, is not trusted.
    private func keptDriver(_ kept: URL, commit: Commit, toolchain: Toolchain) throws(BenchError) -> String? {
        let record = kept.appendingPathComponent(Toolchain.fileName)
        guard FileManager.default.fileExists(atPath: record.path) else { return nil }
        try RevisionBuild.requireTrusted(record.path, cache: origin.cache)
        guard let data = try? Data(contentsOf: record),
            let recorded = try? JSONDecoder().decode(Toolchain.self, from: data)
        else {
            throw BenchError(.buildFailed, "the kept build of \(commit.short) has no readable \(record.path)")
        }
        guard recorded.version == toolchain.version else { return nil }
        guard URL(fileURLWithPath: recorded.driver).lastPathComponent == "swiftc", recorded.driver.hasPrefix("/") else {
            throw BenchError(
                .buildFailed,
                "\(record.path): refusing to link again with \(printable(recorded.driver)), not a swiftc")
        }
        // Asked for its version only once nobody else could have put it there.
        try RevisionBuild.requireTrusted(recorded.driver)
        let now = try? Toolchain(driver: recorded.driver)
        return now?.version == toolchain.version ? recorded.driver : nil
    }

    /// The build kept in `kept`, once it and its executable are trusted, and its link command
    /// checked (``LinkCommand/init(kept:product:arguments:driver:)``).
    private func read(_ kept: URL, commit: Commit, driver: String, buildSeconds: Double?) throws(BenchError) -> Kept {
        let executable = kept.appendingPathComponent("build/\(origin.product)").path
        try RevisionBuild.requireTrusted(kept.appendingPathComponent("built").path, cache: origin.cache)
        try RevisionBuild.requireTrusted(executable, cache: origin.cache)
        let arguments = kept.appendingPathComponent("link-arguments.json")
        try RevisionBuild.requireTrusted(arguments.path, cache: origin.cache)
        guard let data = try? Data(contentsOf: arguments),
            let decoded = try? JSONDecoder().decode([String].self, from: data)
        else {
            throw BenchError(.buildFailed, "the kept build of \(commit.short) has no readable \(arguments.path)")
        }
        let linkCommand: LinkCommand
        do {
            linkCommand = try LinkCommand(kept: kept.path, product: origin.product, arguments: decoded, driver: driver)
        } catch  where error.kind == .buildFailed {
            throw BenchError(.buildFailed, "\(arguments.path): \(error.message)")
        }
        return Kept(commit: commit, executable: executable, linkCommand: linkCommand, buildSeconds: buildSeconds)
    }
}

/// The toolchain that builds commits: a `swiftc`, which links them, and its version, recorded
/// with every kept build (`toolchain.json`), so that a kept link command is run only by the
/// driver that made it, and a build of another toolchain is made again.
struct Toolchain: Codable, Equatable {
    static let fileName = "toolchain.json"

    /// The `swiftc` beside the `swift` on the path; in a kept build's record, the one its link
    /// command runs, which may be another path to a `swiftc` of the same version.
    var driver: String
    /// The first line `swiftc --version` prints.
    var version: String

    /// The toolchain of `swift`, the `swift` on the path: the `swiftc` beside it.
    ///
    /// - Throws: ``BenchError``: `.toolMissing` when it has no `swiftc` that gives its version.
    init(swift: String) throws(BenchError) {
        try self.init(
            driver: URL(fileURLWithPath: swift).deletingLastPathComponent().appendingPathComponent("swiftc").path)
    }

    /// The toolchain of the compiler driver at `driver`, as its `--version` says.
    ///
    /// - Throws: ``BenchError``: `.toolMissing` when it does not give its version.
    init(driver: String) throws(BenchError) {
        let printed = try ChildProcess.run(driver, ["--version"])
        guard printed.succeeded, let line = printed.output.split(separator: "\n").first else {
            throw BenchError(.toolMissing, "cannot read the version of \(driver): \(printed.lastLine)")
        }
        self.driver = driver
        self.version = String(line)
    }
}
