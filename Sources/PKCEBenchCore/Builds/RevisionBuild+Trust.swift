internal import CPKCEHarness
import Foundation

// MARK: - The cache of builds: private to its user

extension RevisionBuild {
    /// Makes the cache of builds when it is not there, `0700`, and checks it: bench owns it, so
    /// nobody but its user may enter it (``requirePrivateCache(_:)``), and what is on the way to
    /// it must be trusted (``requireTrusted(_:cache:)``).
    ///
    /// - Throws: ``BenchError``: `.cannotWrite` when it cannot be made; `.buildFailed` when it
    ///   is not private or not trusted.
    package static func prepareCache(_ cache: URL) throws(BenchError) {
        let parent = cache.deletingLastPathComponent()
        do {
            try FileManager.default.createDirectory(at: parent, withIntermediateDirectories: true)
        } catch {
            throw .cannotWrite(cache.path, "the directory for builds cannot be created")
        }
        if mkdir(cache.path, 0o700) != 0 && errno != EEXIST {
            throw .cannotWrite(
                cache.path, "the directory for builds cannot be created (\(String(cString: strerror(errno))))")
        }
        try requirePrivateCache(cache)
        try requireTrusted(cache.path, cache: cache)
    }

    /// Checks that `cache` is a directory of this user's that no one else may read, write or
    /// enter, so that nothing in it can be planted or changed by another account, whatever the
    /// modes of the files inside (made by `git` and `swift build` under the user's umask). A
    /// cache made by an earlier bench under umask 002 or 022 is refused with the command that
    /// fixes it: bench cannot tell whether another account changed it meanwhile.
    ///
    /// - Throws: ``BenchError``: `.buildFailed` naming the cache, and the fix.
    package static func requirePrivateCache(_ cache: URL) throws(BenchError) {
        var status = stat()
        guard lstat(cache.path, &status) == 0 else {
            throw BenchError(
                .buildFailed,
                "refusing to use the cache of builds at \(cache.path): \(String(cString: strerror(errno)))")
        }
        guard status.st_mode & S_IFMT == S_IFDIR, status.st_uid == getuid() else {
            throw BenchError(
                .buildFailed,
                "refusing to use the cache of builds at \(cache.path): it is not a directory of yours (owner \(status.st_uid))"
            )
        }
        guard status.st_mode & 0o077 == 0 else {
            let access =
                status.st_mode & 0o022 != 0 ? "can be written by others than its owner" : "can be entered by others"
            throw BenchError(
                .buildFailed,
                "refusing to use the cache of builds at \(cache.path): it \(access) (mode "
                    + "\(String(status.st_mode & 0o7777, radix: 8))), and bench keeps its builds private: run "
                    + "chmod -R go-rwx '\(cache.path)' if nobody else could have written in it, else remove it")
        }
    }

    /// Checks that nobody but this user (or root) could have planted or changed what is at
    /// `path`, before it is trusted, as OpenSSH's `StrictModes` asks of a user's keys: `path` and
    /// every directory above it, on the path as written and on the path its links lead to, are
    /// owned by this user or by root, and writable by no one else.
    ///
    /// Inside `cache` (the cache of builds, which bench keeps private), no group or other write
    /// is allowed at all. Above it, group write is allowed where the group is the user's own and
    /// no other account is in it (``isPrivateGroup(_:of:accounts:members:)``), and others' write
    /// on a directory whose sticky bit keeps them from replacing what they do not own (`/tmp`),
    /// above an entry of the user's; a POSIX ACL that lets a named user or group write counts as
    /// others' write.
    ///
    /// - Throws: ``BenchError``: `.buildFailed` naming the first path that fails, and why.
    package static func requireTrusted(_ path: String, cache: URL? = nil) throws(BenchError) {
        let written = URL(fileURLWithPath: path).standardizedFileURL.path
        try requireTrusted(written, following: false, strictBelow: cache?.standardizedFileURL.path, for: path)
        try requireTrusted(
            URL(fileURLWithPath: written).resolvingSymlinksInPath().path, following: true,
            strictBelow: cache?.resolvingSymlinksInPath().path, for: path)
    }

    /// ``requireTrusted(_:cache:)`` of `path` and its directories, each examined itself (`lstat`)
    /// or where its links lead (`stat`); at `strictBelow` and inside it, no write but the owner's.
    private static func requireTrusted(
        _ path: String, following: Bool, strictBelow cache: String?, for build: String
    ) throws(BenchError) {
        func refuse(_ component: String, _ reason: String) -> BenchError {
            BenchError(.buildFailed, "refusing to run the build at \(build): \(component) \(reason)")
        }
        let user = getuid()
        var component = path
        var childIsTrusted = false
        while true {
            var status = stat()
            guard (following ? stat(component, &status) : lstat(component, &status)) == 0 else {
                throw refuse(component, "cannot be examined (\(String(cString: strerror(errno))))")
            }
            guard status.st_uid == user || status.st_uid == 0 else {
                throw refuse(component, "is owned by user \(status.st_uid), not by you or root")
            }
            // A link's own mode means nothing; where it leads is examined with `following`.
            let isLink = status.st_mode & S_IFMT == S_IFLNK
            let isInCache = cache.map { component == $0 || component.hasPrefix($0 + "/") } ?? false
            // Inside the cache, an ACL's mask shows in the group bits.
            let groupMayWrite =
                status.st_mode & S_IWGRP != 0 && (isInCache || !isPrivateGroup(status.st_gid, of: user))
            let othersMayWrite =
                !isLink
                && (groupMayWrite || status.st_mode & S_IWOTH != 0
                    || !isInCache && aclLetsOthersWrite(component, following: following))
            let isStickyDirectory = status.st_mode & S_IFMT == S_IFDIR && status.st_mode & S_ISVTX != 0
            if othersMayWrite && !(isStickyDirectory && childIsTrusted && !isInCache) {
                throw refuse(component, "can be written by others than its owner")
            }
            guard component != "/" else { return }
            childIsTrusted = !othersMayWrite
            component = URL(fileURLWithPath: component).deletingLastPathComponent().path
        }
    }

    // MARK: - Private groups

    /// An account of the user database: what decides whether a group is private.
    struct Account: Sendable, Equatable {
        var name: String
        var uid: uid_t
        /// Its primary group.
        var gid: gid_t
    }

    /// Whether `group` is `user`'s primary group with no other account in it: no other member
    /// in the group's entry (`gr_mem`), and no other account whose primary group it is
    /// (`pw_gid`, which `gr_mem` does not list). A user private group, whose write permission
    /// gives no one else access.
    ///
    /// - Parameters:
    ///   - accounts: Every account of the user database.
    ///   - members: The names the group's entry lists.
    static func isPrivateGroup(
        _ group: gid_t, of user: Account, accounts: [Account], members: [String]
    ) -> Bool {
        group == user.gid && members.allSatisfy { $0 == user.name }
            && accounts.allSatisfy { $0.gid != group || $0.uid == user.uid }
    }

    /// ``isPrivateGroup(_:of:accounts:members:)`` from this system's user database, as far as
    /// it can be enumerated (`getpwent`): accounts of NSS sources that do not enumerate, such as
    /// LDAP or SSSD without enumeration, are not seen.
    private static func isPrivateGroup(_ group: gid_t, of uid: uid_t) -> Bool {
        guard let entry = getpwuid(uid), let groupEntry = getgrgid(group) else { return false }
        let user = Account(name: String(cString: entry.pointee.pw_name), uid: uid, gid: entry.pointee.pw_gid)
        var members: [String] = []
        var member = groupEntry.pointee.gr_mem
        while let pointer = member?.pointee {
            members.append(String(cString: pointer))
            member = member?.advanced(by: 1)
        }
        var accounts: [Account] = []
        setpwent()
        while let account = getpwent() {
            accounts.append(
                Account(
                    name: String(cString: account.pointee.pw_name), uid: account.pointee.pw_uid,
                    gid: account.pointee.pw_gid))
        }
        endpwent()
        return isPrivateGroup(group, of: user, accounts: accounts, members: members)
    }

    // MARK: - ACLs

    /// Whether `path`'s POSIX access ACL (`system.posix_acl_access`) lets a named user or group
    /// write, through its mask: access the mode bits do not show outside the group bits.
    static func aclLetsOthersWrite(_ path: String, following: Bool) -> Bool {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let size = buffer.withUnsafeMutableBytes { bytes in
            CPKCEHarness_getxattr(path, "system.posix_acl_access", bytes.baseAddress, bytes.count, following ? 1 : 0)
        }
        // No ACL (ENODATA), none supported, or one too large to read: a large one is refused.
        guard size > 0 else { return size < 0 && errno == ERANGE }
        return aclLetsOthersWrite(Array(buffer[..<Int(size)]))
    }

    /// The same, of an ACL in the kernel's extended-attribute form: a 4-byte version (2), then
    /// 8-byte entries of a 16-bit tag, 16-bit permissions and a 32-bit id, little-endian.
    static func aclLetsOthersWrite(_ acl: [UInt8]) -> Bool {
        let namedUser: UInt16 = 0x02
        let namedGroup: UInt16 = 0x08
        let mask: UInt16 = 0x10
        let write: UInt16 = 0x02
        // Malformed: taken as letting others write.
        guard acl.count >= 4, (acl.count - 4) % 8 == 0 else { return true }
        var namedMayWrite = false
        var maskAllowsWrite = true
        for start in stride(from: 4, to: acl.count, by: 8) {
            let tag = UInt16(acl[start]) | UInt16(acl[start + 1]) << 8
            let permissions = UInt16(acl[start + 2]) | UInt16(acl[start + 3]) << 8
            if tag == namedUser || tag == namedGroup, permissions & write != 0 { namedMayWrite = true }
            if tag == mask { maskAllowsWrite = permissions & write != 0 }
        }
        return namedMayWrite && maskAllowsWrite
    }

    // MARK: - Worktrees

    /// Checks, before `swift build` runs in `worktree`, that it is this user's (and trusted),
    /// that git lists it as a worktree of `repository` at that path, and that `commit` is checked
    /// out there: `swift build` evaluates the `Package.swift` it finds, as this user.
    ///
    /// - Throws: ``BenchError``: `.buildFailed` naming the worktree, and why.
    static func requireOwnWorktree(
        _ worktree: URL, of repository: String, at commit: String, cache: URL, git: String
    ) throws(BenchError) {
        // Before git looks inside: a planted worktree's .git could name a configuration to run.
        try requireTrusted(worktree.path, cache: cache)
        guard isListedWorktree(worktree, of: repository, git: git) else {
            throw BenchError(
                .buildFailed,
                "refusing to build in \(worktree.path): git lists no worktree of \(repository) there; remove it")
        }
        let head = try ChildProcess.run(git, ["-C", worktree.path, "rev-parse", "--verify", "HEAD"])
        guard head.succeeded, head.output.trimmingCharacters(in: .whitespacesAndNewlines) == commit else {
            throw BenchError(
                .buildFailed, "refusing to build in \(worktree.path): its HEAD is not \(commit) (\(head.lastLine))")
        }
    }

    /// Whether `git worktree list --porcelain` of `repository` lists `worktree`, its path as
    /// given or with its links resolved.
    static func isListedWorktree(_ worktree: URL, of repository: String, git: String) -> Bool {
        guard let listed = try? ChildProcess.run(git, ["-C", repository, "worktree", "list", "--porcelain"]),
            listed.succeeded
        else { return false }
        let paths = [worktree.standardizedFileURL.path, worktree.resolvingSymlinksInPath().path]
        return listed.output.split(separator: "\n").contains { line in
            line.hasPrefix("worktree ") && paths.contains(String(line.dropFirst("worktree ".count)))
        }
    }

    /// `executable` with `arguments`, run through `/bin/sh` with umask 077: what `git` and
    /// `swift build` make in the cache is the user's alone, whatever this process's umask.
    static func privately(_ executable: String, _ arguments: [String]) -> (executable: String, arguments: [String]) {
        ("/bin/sh", ["-c", "umask 077 && exec \"$0\" \"$@\"", executable] + arguments)
    }
}
