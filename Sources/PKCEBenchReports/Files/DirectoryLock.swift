import Foundation
import PKCEBenchCore

/// An exclusive `flock(2)` on a directory itself, held while a run reads and rewrites the files in
/// it, so that concurrent runs into one results directory take turns instead of each writing back
/// `history.csv` without the other's rows.
///
/// The lock is on the directory's own descriptor, not on a lock file: nothing is left behind, and
/// there is no lock file whose removal could let two runs hold "the" lock at once. The kernel
/// releases it when the descriptor closes, also when the process is killed.
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

    /// Checks that `directory` can be locked, before a run measures for an hour to find at the end
    /// that it cannot write its files (on a file system without `flock`, say): takes the lock and
    /// lets it go at once, or finds another run holding it, which shows that it works too.
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
