import Foundation
@testable import PKCEBenchCore
import PKCEBenchTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

@Suite("Where bench ab --against keeps its builds, and when it trusts one")
struct RevisionBuildTests {
    /// The home directory the user database gives this user, when it has an entry there and the
    /// directory exists (a container may run as a user without either).
    static let databaseHome: String? = {
        guard let entry = getpwuid(getuid()), let directory = entry.pointee.pw_dir else { return nil }
        let home = String(cString: directory)
        return FileManager.default.fileExists(atPath: home) && home != "/" ? home : nil
    }()

    @Test("XDG_CACHE_HOME when absolute, else HOME, else the user database's home: never a shared directory")
    func defaultCache() throws {
        let home = FileManager.default.temporaryDirectory.path
        #expect(
            try RevisionBuild.defaultCache(environment: ["XDG_CACHE_HOME": "/x/cache", "HOME": home]).path
                == "/x/cache/pkcebench/builds")
        // A relative XDG_CACHE_HOME is ignored, as the XDG Base Directory specification says.
        #expect(
            try RevisionBuild.defaultCache(environment: ["XDG_CACHE_HOME": "cache", "HOME": home]).path
                == home + "/.cache/pkcebench/builds")
        if let databaseHome = Self.databaseHome {
            #expect(try RevisionBuild.defaultCache(environment: [:]).path == databaseHome + "/.cache/pkcebench/builds")
            #expect(try RevisionBuild.defaultCache(environment: ["HOME": ""]).path.hasPrefix(databaseHome + "/"))
        } else {
            #expect(throws: BenchError.self) { try RevisionBuild.defaultCache(environment: [:]) }
        }
    }

    @Test(
        "A home directory that is /, relative or missing is one line and 73, not a fallback",
        arguments: ["/", "/nonexistent-home", "relative/home"])
    func noHome(home: String) {
        #expect {
            try RevisionBuild.defaultCache(environment: ["HOME": home])
        } throws: { error in
            guard let error = error as? BenchError else { return false }
            return error.kind == .cannotWrite && error.message.contains("set XDG_CACHE_HOME")
        }
    }

    @Test("A path is trusted when it and every directory above are the user's or root's, and only they can write")
    func trust() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("bench")
        try "x".write(to: file, atomically: false, encoding: .utf8)
        chmod(directory.path, 0o700)
        // Under /tmp, whose sticky bit keeps others from replacing what they do not own.
        try RevisionBuild.requireTrusted(file.path)
        chmod(file.path, 0o646)
        #expect(throws: BenchError.self) { try RevisionBuild.requireTrusted(file.path) }
        chmod(file.path, 0o644)
        chmod(directory.path, 0o707)
        #expect(throws: BenchError.self) { try RevisionBuild.requireTrusted(file.path) }

        // Group write: harmless in the user's private group (umask 002 on Debian), not in another.
        chmod(directory.path, 0o770)
        if Self.groupIsPrivate(getgid()) {
            try RevisionBuild.requireTrusted(file.path)
        } else {
            #expect(throws: BenchError.self) { try RevisionBuild.requireTrusted(file.path) }
        }
        if getuid() == 0 {
            #expect(chown(directory.path, 0, 65534) == 0)
            #expect(throws: BenchError.self) { try RevisionBuild.requireTrusted(file.path) }
            #expect(chown(directory.path, 0, 0) == 0)
        }
        chmod(directory.path, 0o700)

        // A sticky, world-writable directory right above an entry that others could write is
        // not enough.
        let sticky = directory.appendingPathComponent("sticky")
        try FileManager.default.createDirectory(at: sticky, withIntermediateDirectories: false)
        chmod(sticky.path, 0o1777)
        let inside = sticky.appendingPathComponent("open")
        try FileManager.default.createDirectory(at: inside, withIntermediateDirectories: false)
        chmod(inside.path, 0o777)
        #expect(throws: BenchError.self) { try RevisionBuild.requireTrusted(inside.path) }
        chmod(inside.path, 0o755)
        try RevisionBuild.requireTrusted(inside.path)

        // A link is judged where it stands and where it leads: to a file in a directory others
        // can write, it is refused.
        let open = directory.appendingPathComponent("open")
        try FileManager.default.createDirectory(at: open, withIntermediateDirectories: false)
        try "x".write(to: open.appendingPathComponent("bench"), atomically: false, encoding: .utf8)
        chmod(open.path, 0o777)
        let link = directory.appendingPathComponent("link")
        #expect(symlink(open.appendingPathComponent("bench").path, link.path) == 0)
        #expect(throws: BenchError.self) { try RevisionBuild.requireTrusted(link.path) }
        chmod(open.path, 0o755)
        try RevisionBuild.requireTrusted(link.path)
    }

    /// Whether `group` has no member but this user, listed or primary, as the check takes it.
    static func groupIsPrivate(_ group: gid_t) -> Bool {
        guard let entry = getgrgid(group), let account = getpwuid(getuid()) else { return false }
        let name = String(cString: account.pointee.pw_name)
        var member = entry.pointee.gr_mem
        while let pointer = member?.pointee {
            guard String(cString: pointer) == name else { return false }
            member = member?.advanced(by: 1)
        }
        setpwent()
        defer { endpwent() }
        while let other = getpwent() {
            if other.pointee.pw_gid == group && other.pointee.pw_uid != getuid() { return false }
        }
        return true
    }

    @Test("A group is private only with no other member, listed in its entry or holding it as primary group")
    func privateGroup() {
        let user = RevisionBuild.Account(name: "alice", uid: 1000, gid: 1000)
        let accounts = [
            user, RevisionBuild.Account(name: "root", uid: 0, gid: 0),
            RevisionBuild.Account(name: "bob", uid: 1001, gid: 1001),
        ]
        #expect(RevisionBuild.isPrivateGroup(1000, of: user, accounts: accounts, members: []))
        #expect(RevisionBuild.isPrivateGroup(1000, of: user, accounts: accounts, members: ["alice"]))
        // Another name in gr_mem.
        #expect(!RevisionBuild.isPrivateGroup(1000, of: user, accounts: accounts, members: ["alice", "bob"]))
        // An empty gr_mem, and another account whose primary group it is: what gr_mem alone missed.
        let sharing = accounts + [RevisionBuild.Account(name: "mallory", uid: 1002, gid: 1000)]
        #expect(!RevisionBuild.isPrivateGroup(1000, of: user, accounts: sharing, members: []))
        // A second entry of the user's own uid (an alias) shares nothing.
        let alias = accounts + [RevisionBuild.Account(name: "alice2", uid: 1000, gid: 1000)]
        #expect(RevisionBuild.isPrivateGroup(1000, of: user, accounts: alias, members: []))
        // Not the user's primary group at all.
        #expect(!RevisionBuild.isPrivateGroup(1001, of: user, accounts: accounts, members: []))
    }

    @Test("An ACL lets others write when a named user or group entry may write and its mask allows it")
    func accessControlLists() {
        // Version 2, then (tag, permissions, id) entries, little-endian.
        func acl(_ entries: [(tag: UInt16, permissions: UInt16, id: UInt32)]) -> [UInt8] {
            var bytes: [UInt8] = [2, 0, 0, 0]
            for entry in entries {
                bytes += [UInt8(entry.tag & 0xff), UInt8(entry.tag >> 8), UInt8(entry.permissions & 0xff), 0]
                for shift in [0, 8, 16, 24] { bytes.append(UInt8(truncatingIfNeeded: entry.id >> UInt32(shift))) }
            }
            return bytes
        }
        let base: [(tag: UInt16, permissions: UInt16, id: UInt32)] = [(0x01, 7, 0), (0x04, 5, 0), (0x20, 5, 0)]
        #expect(!RevisionBuild.aclLetsOthersWrite(acl(base)))
        // user:65534:rwx with a mask of rwx, as setfacl -m makes it.
        #expect(RevisionBuild.aclLetsOthersWrite(acl(base + [(0x02, 7, 65534), (0x10, 7, 0)])))
        #expect(RevisionBuild.aclLetsOthersWrite(acl(base + [(0x08, 2, 65534), (0x10, 7, 0)])))
        // A mask without write makes the named entries' write ineffective.
        #expect(!RevisionBuild.aclLetsOthersWrite(acl(base + [(0x02, 7, 65534), (0x10, 5, 0)])))
        // Read and execute only.
        #expect(!RevisionBuild.aclLetsOthersWrite(acl(base + [(0x02, 5, 65534), (0x10, 7, 0)])))
        // A torn attribute is taken as the worst.
        #expect(RevisionBuild.aclLetsOthersWrite([2, 0, 0, 0, 1]))
    }

    @Test(
        "A directory above the cache whose ACL lets another user write is refused",
        .enabled(
            if: getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setfacl"),
            "root and setfacl (apt-get install acl)"))
    func aclAboveTheCache() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        chmod(directory.path, 0o755)
        let cache = directory.appendingPathComponent("cache/pkcebench/builds")
        try RevisionBuild.prepareCache(cache)
        #expect(try Self.mode(of: cache.path) == 0o700)
        let above = directory.appendingPathComponent("cache").path
        let process = try Process.run(
            URL(fileURLWithPath: "/usr/bin/setfacl"), arguments: ["-m", "user:65534:rwx", above])
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        #expect(RevisionBuild.aclLetsOthersWrite(above, following: false))
        #expect(!RevisionBuild.aclLetsOthersWrite(cache.path, following: false))
        // The mode bits alone (0775 with the mask in the group bits, the user's private group) would pass.
        #expect {
            try RevisionBuild.requireTrusted(cache.path, cache: cache)
        } throws: { error in
            (error as? BenchError)?.message.contains("\(above) can be written by others than its owner") == true
        }
    }

    @Test("The cache is made 0700; one others may enter or write is refused with the fix")
    func privateCache() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let cache = directory.appendingPathComponent("pkcebench/builds")
        try RevisionBuild.prepareCache(cache)
        #expect(try Self.mode(of: cache.path) == 0o700)
        try RevisionBuild.prepareCache(cache)
        for (mode, words) in [(0o775, "can be written by others"), (0o755, "can be entered by others")] {
            chmod(cache.path, mode_t(mode))
            #expect {
                try RevisionBuild.prepareCache(cache)
            } throws: { error in
                guard let error = error as? BenchError else { return false }
                return error.kind == .buildFailed && error.message.contains(words)
                    && error.message.contains("chmod -R go-rwx '\(cache.path)'")
            }
        }
        // Inside the cache, group write is refused even in the user's private group.
        chmod(cache.path, 0o700)
        let inside = cache.appendingPathComponent("build")
        try "x".write(to: inside, atomically: false, encoding: .utf8)
        chmod(inside.path, 0o620)
        #expect(throws: BenchError.self) { try RevisionBuild.requireTrusted(inside.path, cache: cache) }
        chmod(inside.path, 0o600)
        try RevisionBuild.requireTrusted(inside.path, cache: cache)
    }

    @Test("A kept build made under umask 002 is made the user's alone, links not followed")
    func keptMadePrivate() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let staging = directory.appendingPathComponent("staging")
        try FileManager.default.createDirectory(
            at: staging.appendingPathComponent("build/A.build"), withIntermediateDirectories: true)
        let object = staging.appendingPathComponent("build/A.build/a.o")
        let executable = staging.appendingPathComponent("build/bench")
        try "o".write(to: object, atomically: false, encoding: .utf8)
        try "x".write(to: executable, atomically: false, encoding: .utf8)
        let outside = directory.appendingPathComponent("outside")
        try "y".write(to: outside, atomically: false, encoding: .utf8)
        #expect(symlink(outside.path, staging.appendingPathComponent("link").path) == 0)
        for (path, mode) in [
            (staging.path, 0o775), (staging.appendingPathComponent("build").path, 0o775),
            (staging.appendingPathComponent("build/A.build").path, 0o2775), (object.path, 0o664),
            (executable.path, 0o775), (outside.path, 0o666),
        ] {
            chmod(path, mode_t(mode))
        }
        try CommitBuilds.makePrivate(staging)
        #expect(try Self.mode(of: staging.path) == 0o700)
        #expect(try Self.mode(of: staging.appendingPathComponent("build/A.build").path) == 0o700)
        #expect(try Self.mode(of: object.path) == 0o600)
        #expect(try Self.mode(of: executable.path) == 0o700)
        #expect(try Self.mode(of: outside.path) == 0o666, "a link's target is not the cache's")
        try RevisionBuild.requireTrusted(object.path, cache: staging)
    }

    /// Runs `git` with `arguments` in `directory`: its output, trimmed; a failure is the test's.
    @discardableResult
    static func git(_ arguments: [String], in directory: URL) throws -> String {
        let git = try #require(executableInPath("git"))
        let ran = try ChildProcess.run(git, ["-C", directory.path] + arguments)
        try #require(ran.succeeded, "git \(arguments.joined(separator: " ")): \(ran.lastLine)")
        return ran.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// A repository in `directory` with two empty commits, and the cache of builds beside it,
    /// made as bench makes it: the repository, the cache and the commits' full hashes.
    static func repositoryAndCache(in directory: URL) throws -> (repository: URL, cache: URL, commits: [String]) {
        let repository = directory.appendingPathComponent("repository")
        try FileManager.default.createDirectory(at: repository, withIntermediateDirectories: false)
        try git(["init", "--quiet", "-b", "main"], in: repository)
        var commits: [String] = []
        for number in 1...2 {
            try git(
                ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "--quiet", "--allow-empty", "-m", "\(number)"],
                in: repository)
            commits.append(try git(["rev-parse", "HEAD"], in: repository))
        }
        let cache = directory.appendingPathComponent("cache/pkcebench/builds")
        try RevisionBuild.prepareCache(cache)
        return (repository, cache, commits)
    }

    @Test(
        "A directory of the user's in the cache that git does not list as a worktree is not built in, though it holds the commit",
        .enabled(if: executableInPath("git") != nil, "git"))
    func unlistedWorktree() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (repository, cache, commits) = try Self.repositoryAndCache(in: directory)
        // A clone at the commit wanted: its HEAD would pass, but git lists no worktree there.
        let worktree = cache.appendingPathComponent("incremental-debug-bench-0")
        try Self.git(["clone", "--quiet", repository.path, worktree.path], in: directory)
        #expect(try Self.git(["rev-parse", "HEAD"], in: worktree) == commits[1])
        let git = try #require(executableInPath("git"))
        #expect {
            try RevisionBuild.requireOwnWorktree(
                worktree, of: repository.path, at: commits[1], cache: cache, git: git)
        } throws: { error in
            guard let error = error as? BenchError else { return false }
            return error.kind == .buildFailed
                && error.message
                    == "refusing to build in \(worktree.path): git lists no worktree of \(repository.path) there; remove it"
        }
    }

    @Test(
        "A worktree git lists, whose HEAD was moved to another commit, is not built in",
        .enabled(if: executableInPath("git") != nil, "git"))
    func worktreeAtAnotherCommit() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (repository, cache, commits) = try Self.repositoryAndCache(in: directory)
        let worktree = cache.appendingPathComponent("incremental-debug-bench-0")
        try Self.git(["worktree", "add", "--quiet", "--detach", worktree.path, commits[0]], in: repository)
        let git = try #require(executableInPath("git"))
        // Listed, and at the commit: accepted.
        try RevisionBuild.requireOwnWorktree(worktree, of: repository.path, at: commits[0], cache: cache, git: git)
        // Moved on by another hand.
        try Self.git(["checkout", "--quiet", "--detach", commits[1]], in: worktree)
        #expect {
            try RevisionBuild.requireOwnWorktree(
                worktree, of: repository.path, at: commits[0], cache: cache, git: git)
        } throws: { error in
            guard let error = error as? BenchError else { return false }
            return error.kind == .buildFailed
                && error.message
                    == "refusing to build in \(worktree.path): its HEAD is not \(commits[0]) (\(commits[1]))"
        }
    }

    /// Whether git and util-linux's `flock`, which the lock tests need, are here.
    static let canHoldLocks =
        executableInPath("git") != nil && FileManager.default.isExecutableFile(atPath: "/usr/bin/flock")

    /// Runs `body` with the commit builds of a new repository's first commit, whose lock another
    /// process (`flock`) holds until `body` calls `release`, or for a minute at the most; the
    /// holder, which `body` may ask whether it still runs, is let go and waited for afterwards (by
    /// the release file, not a signal, which would end flock and leave its shell). The tests that use
    /// it take under a second alone, but their time limit is ten minutes: in a whole `swift test` on
    /// two cores, beside suites that build packages, they have taken six.
    static func withHeldLock(
        _ body: (_ builds: CommitBuilds, _ release: () -> Void, _ holder: ChildProcess) throws -> Void
    ) throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (repository, cache, commits) = try repositoryAndCache(in: directory)
        let builds = CommitBuilds(
            like: try RevisionBuild(revision: commits[0], in: repository.path, configuration: .debug, cache: cache))
        let held = directory.appendingPathComponent("held")
        let released = directory.appendingPathComponent("release")
        let holder = try ChildProcess(
            executable: "/usr/bin/flock",
            arguments: [
                builds.worktree.path + ".lock", "/bin/sh", "-c",
                "touch \"$0\"; i=0; while [ ! -e \"$1\" ] && [ $i -lt 1200 ]; do sleep 0.05; i=$((i+1)); done",
                held.path, released.path,
            ], streams: .pipes(standardError: nil))
        holder.closeInput()
        let release = { _ = FileManager.default.createFile(atPath: released.path, contents: nil) }
        defer {
            release()
            _ = holder.wait()
        }
        for _ in 0..<3000 where !FileManager.default.fileExists(atPath: held.path) {
            try #require(holder.poll() == nil, "flock ended before it held the lock")
            usleep(10_000)
        }
        try #require(FileManager.default.fileExists(atPath: held.path), "flock did not take the lock in 30 s")
        try body(builds, release, holder)
    }

    @Test(
        "A second bench that needs the worktree says once that it waits, and takes the lock when the first lets go",
        .enabled(if: canHoldLocks), .timeLimit(.minutes(10)))
    func lockWaits() throws {
        try Self.withHeldLock { builds, release, _ in
            let progress = RecordedProgress()
            var polls = 0
            try withoutActuallyEscaping(release) { release in
                try builds.lock(
                    progress: progress,
                    cancellation: Cancellation {
                        // The first holder lets go after the second has waited a while.
                        polls += 1
                        if polls == 5 { release() }
                        return nil
                    })
            }
            #expect(polls >= 5, "the lock was taken while another process held it")
            #expect(
                progress.lines
                    == ["waiting for another bench, or a build it started, building commits in \(builds.worktree.path)"]
            )
        }
    }

    @Test(
        "Waiting for the worktree ends at an interrupt, with the interrupt's error",
        .enabled(if: canHoldLocks), .timeLimit(.minutes(10)))
    func lockWaitInterrupted() throws {
        try Self.withHeldLock { builds, _, holder in
            var polls = 0
            let error = #expect(throws: BenchError.self) {
                try builds.lock(
                    progress: RecordedProgress(quiet: true),
                    cancellation: Cancellation {
                        polls += 1
                        return polls == 3 ? SIGINT : nil
                    })
            }
            #expect(error?.kind == .interrupted)
            #expect(holder.poll() == nil, "the holder ended on its own, so nothing was waited for")
        }
    }

    @Test(
        "A lock file removed while a bench waits: the lock is taken on the file at its path, not the removed one",
        .enabled(if: canHoldLocks), .timeLimit(.minutes(10)))
    func lockFileReplaced() throws {
        try Self.withHeldLock { builds, release, _ in
            let path = builds.worktree.path + ".lock"
            var polls = 0
            try withoutActuallyEscaping(release) { release in
                try builds.lock(
                    progress: RecordedProgress(),
                    cancellation: Cancellation {
                        // The file is removed, as with the cache, and then its holder lets go of it.
                        polls += 1
                        if polls == 3 {
                            unlink(path)
                            release()
                        }
                        return nil
                    })
            }
            #expect(polls >= 3)
            #expect(FileManager.default.fileExists(atPath: path), "the lock was taken on the removed file")
            // Another process cannot take the lock at the path: this one holds it.
            let probe = try ChildProcess.run("/usr/bin/flock", ["-n", path, "true"])
            #expect(!probe.succeeded)
        }
    }

    @Test("A commit's subject is kept escaped, as every output escapes what a terminal would act on")
    func escapedSubject() {
        let commit = CommitBuilds.Commit(id: "1a2b3c4", subject: "fix\u{1B}[2J\u{202E}txt.exe")
        #expect(commit.subject == "fix\\u{1B}[2J\\u{202E}txt.exe")
        #expect(!commit.subject.unicodeScalars.contains { $0.properties.generalCategory == .control })
    }

    static func mode(of path: String) throws -> Int {
        try #require(FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
    }
}
