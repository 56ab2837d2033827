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

    /// Whether `group` has no member but this user, as the check takes it.
    static func groupIsPrivate(_ group: gid_t) -> Bool {
        guard let entry = getgrgid(group), let account = getpwuid(getuid()) else { return false }
        let name = String(cString: account.pointee.pw_name)
        var member = entry.pointee.gr_mem
        while let pointer = member?.pointee {
            guard String(cString: pointer) == name else { return false }
            member = member?.advanced(by: 1)
        }
        return true
    }
}
