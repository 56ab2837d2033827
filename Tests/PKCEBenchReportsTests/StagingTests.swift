import Foundation
import PKCEBenchCore
@testable import PKCEBenchReports
import PKCEBenchTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The files the harness writes, against what another local user could plant beside them.
@Suite("Staged writes and the results directory's lock")
struct StagingTests {
    @Test("A link planted at a staging name is never written through, nor a file there overwritten")
    func stagingFollowsNoLink() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let target = directory.appendingPathComponent("target")
        try "keep".write(to: target, atomically: false, encoding: .utf8)
        let destination = directory.appendingPathComponent("out.json")
        // A link and a file at the first two names the stage would take, as another user could.
        let planted = ["planted-link", "planted-file"].map {
            directory.appendingPathComponent(".out.json.\(getpid()).\($0).tmp")
        }
        #expect(symlink(target.path, planted[0].path) == 0)
        try "someone else's".write(to: planted[1], atomically: false, encoding: .utf8)

        var suffixes = ["planted-link", "planted-file", "fresh"].makeIterator()
        var files = AtomicFiles()
        try files.stage("{}", at: destination) { suffixes.next()! }
        files.discard()
        #expect(try String(contentsOf: target, encoding: .utf8) == "keep")
        #expect(try String(contentsOf: planted[1], encoding: .utf8) == "someone else's")
        #expect(
            !FileManager.default.fileExists(
                atPath: directory.appendingPathComponent(".out.json.\(getpid()).fresh.tmp").path))

        // The names are not predictable: two stages of one file take two.
        var first = AtomicFiles(), second = AtomicFiles()
        try first.stage("a", at: destination)
        try second.stage("b", at: destination)
        let staged = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter {
            $0.hasPrefix(".out.json.\(getpid()).") && !$0.contains("planted")
        }
        #expect(staged.count == 2)
        first.discard()
        second.discard()
    }
    @Test("A run's files land whole through the staging, and its leftovers are cleaned by process")
    func abandonedFilesByProcess() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // A dead process's files (PID 2^22 + 1 is beyond Linux's pid_max default), old and new
        // names, and one of this live process.
        let dead = Int32(1 << 22) + 1
        let names = [".latest.csv.\(dead).tmp", ".latest.csv.\(dead).x1y2.tmp", ".latest.csv.\(getpid()).live.tmp"]
        for name in names {
            try "x".write(to: directory.appendingPathComponent(name), atomically: false, encoding: .utf8)
        }
        AtomicFiles.removeAbandoned(in: directory)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == [names[2]])
    }
    @Test("The lock is checked before measuring: it passes when free or held by another run, and is 73 on no directory")
    func lockChecked() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try DirectoryLock.check(directory)
        // Held by another run: the check passes, and does not wait.
        try DirectoryLock.withLock(on: directory) { () throws(BenchError) in try DirectoryLock.check(directory) }
        let file = directory.appendingPathComponent("file")
        try "x".write(to: file, atomically: false, encoding: .utf8)
        #expect(throws: BenchError.self) { try DirectoryLock.check(file) }
    }
}
