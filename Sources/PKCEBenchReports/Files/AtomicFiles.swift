import Foundation
import PKCEBenchCore

/// Writes several files so that each appears whole or not at all: each written and flushed under
/// a temporary name, then all renamed into place; a failure before the renames removes them.
///
/// The temporary name is `.NAME.PID.RANDOM.tmp`, made by `open` with `O_EXCL` and `O_NOFOLLOW`:
/// a file or link planted at the name another user could guess is never opened, nor written
/// through. The process ID lets ``removeAbandoned(in:)`` tell a dead run's files from a live one's.
struct AtomicFiles {
    private var pending: [(temporary: URL, final: URL)] = []

    /// Writes `contents` to a temporary file beside `url`, under a name with `suffix()` in it, and
    /// another while that name is taken.
    ///
    /// - Throws: ``BenchError`` (`cannotWrite`) when the file cannot be written; the files staged
    ///   before stay staged, and ``discard()`` removes them.
    mutating func stage(
        _ contents: String, at url: URL, suffix: () -> String = { String(UInt64.random(in: 0 ... .max), radix: 36) }
    ) throws(BenchError) {
        var temporary: URL
        var descriptor: Int32
        repeat {
            let suffix = suffix()
            temporary = url.deletingLastPathComponent()
                .appendingPathComponent(".\(url.lastPathComponent).\(getpid()).\(suffix).tmp")
            descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        } while descriptor < 0 && errno == EEXIST
        guard descriptor >= 0 else {
            throw .cannotWrite(url.path, String(cString: strerror(errno)))
        }
        pending.append((temporary, url))
        var bytes = Array(contents.utf8)
        let written = bytes.withUnsafeMutableBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let result = write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if result < 0 && errno == EINTR { continue }
                // write(2) returns 0 only when it cannot go on, and then sets no errno.
                guard result > 0 else { return result == 0 ? EIO : errno }
                offset += result
            }
            return fsync(descriptor) == 0 ? 0 : errno
        }
        close(descriptor)
        guard written == 0 else {
            throw .cannotWrite(url.path, String(cString: strerror(written)))
        }
    }

    /// Writes each of `files`, a destination and its contents, so that all appear or none does.
    ///
    /// - Throws: ``BenchError`` (`cannotWrite`); the files not yet renamed are removed.
    static func writeAll(_ files: [(URL, String)]) throws(BenchError) {
        var staged = AtomicFiles()
        defer { staged.discard() }
        for (url, contents) in files {
            try staged.stage(contents, at: url)
        }
        while let (temporary, final) = staged.pending.first {
            guard rename(temporary.path, final.path) == 0 else {
                throw .cannotWrite(final.path, String(cString: strerror(errno)))
            }
            staged.pending.removeFirst()
        }
    }

    mutating func discard() {
        for (temporary, _) in pending {
            unlink(temporary.path)
        }
        pending.removeAll()
    }

    /// Removes the temporary files in `directory` left by a process no longer running (one killed
    /// between staging and renaming, by a second Ctrl-C say); a live process's, mid-write, stay.
    static func removeAbandoned(in directory: URL) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        for name in names where name.hasPrefix(".") && name.hasSuffix(".tmp") {
            // `.NAME.PID.RANDOM.tmp`; before the random part, `.NAME.PID.tmp`.
            let parts = name.dropLast(4).split(separator: ".")
            guard let pid = parts.dropLast().last.flatMap({ pid_t($0) }) ?? parts.last.flatMap({ pid_t($0) }),
                pid > 0
            else { continue }
            if kill(pid, 0) != 0 && errno == ESRCH {
                unlink(directory.appendingPathComponent(name).path)
            }
        }
    }
}
