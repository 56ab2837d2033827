import Foundation
import PKCEBenchCore

/// An exclusive `flock(2)` on a directory's own descriptor (no lock file to leave behind or remove),
/// held while a run reads and rewrites its files, so that concurrent runs take turns; the kernel
/// releases it when the process ends, killed or not.
enum DirectoryLock {
    /// Runs `body` while holding the lock on `directory`, waiting for other holders first.
    ///
    /// - Throws: ``BenchError`` (`.cannotWrite`) when the directory cannot be opened or locked, or what `body`
    ///   throws.
    static func withLock<Result>(
        on directory: URL, _ body: () throws(BenchError) -> Result
    ) throws(BenchError) -> Result {
        let descriptor = try lock(directory, waiting: true)
        defer { close(descriptor) }
        return try body()
    }

    /// Checks, before a run measures, that `directory` can be locked (a file system may lack
    /// `flock`): takes the lock and lets it go, or finds another run holding it.
    ///
    /// - Throws: ``BenchError`` (`.cannotWrite`) when the directory cannot be opened or locked.
    static func check(_ directory: URL) throws(BenchError) {
        close(try lock(directory, waiting: false))
    }

    /// The descriptor of `directory`, locked; without `waiting`, also when another holds the lock.
    private static func lock(_ directory: URL, waiting: Bool) throws(BenchError) -> Int32 {
        let descriptor = open(directory.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw .cannotWrite(directory.path, String(cString: strerror(errno)))
        }
        while flock(descriptor, waiting ? LOCK_EX : LOCK_EX | LOCK_NB) != 0 {
            if !waiting && errno == EWOULDBLOCK { break }
            guard errno == EINTR else {
                let reason = String(cString: strerror(errno))
                close(descriptor)
                throw .cannotWrite(directory.path, "cannot lock it: \(reason)")
            }
        }
        return descriptor
    }
}
