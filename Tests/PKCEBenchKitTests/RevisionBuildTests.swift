import Foundation
@testable import PKCEBenchKit
import PKCEBenchTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

@Suite("Where bench ab --against keeps its builds, and when it trusts one")
struct RevisionBuildTests {
    /// The home directory the user database gives this user.
    static let databaseHome = String(cString: getpwuid(getuid())!.pointee.pw_dir)

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
        #expect(
            try RevisionBuild.defaultCache(environment: [:]).path == Self.databaseHome + "/.cache/pkcebench/builds")
        #expect(try RevisionBuild.defaultCache(environment: ["HOME": ""]).path.hasPrefix(Self.databaseHome + "/"))
    }

    @Test(
        "A home directory that is / or does not exist is one line and 73, not a fallback",
        arguments: ["/", "/nonexistent-home"])
    func noHome(home: String) {
        #expect {
            try RevisionBuild.defaultCache(environment: ["HOME": home])
        } throws: { error in
            guard let error = error as? BenchError else { return false }
            return error.status == .cannotWrite && error.message.contains("set XDG_CACHE_HOME")
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
        chmod(file.path, 0o666)
        #expect(throws: BenchError.self) { try RevisionBuild.requireTrusted(file.path) }
        chmod(file.path, 0o644)
        chmod(directory.path, 0o770)
        #expect(throws: BenchError.self) { try RevisionBuild.requireTrusted(file.path) }
        chmod(directory.path, 0o700)
        // A link to it is judged by where it leads; a sticky, world-writable directory right above
        // an entry that others could write is not enough.
        let sticky = directory.appendingPathComponent("sticky")
        try FileManager.default.createDirectory(at: sticky, withIntermediateDirectories: false)
        chmod(sticky.path, 0o1777)
        let inside = sticky.appendingPathComponent("open")
        try FileManager.default.createDirectory(at: inside, withIntermediateDirectories: false)
        chmod(inside.path, 0o777)
        #expect(throws: BenchError.self) { try RevisionBuild.requireTrusted(inside.path) }
        chmod(inside.path, 0o755)
        try RevisionBuild.requireTrusted(inside.path)
    }
}
