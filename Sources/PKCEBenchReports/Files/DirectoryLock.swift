import Foundation
import PKCEBenchKit

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

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
    /// - Throws: ``BenchError`` (73) when the directory cannot be opened or locked, or what `body`
    ///   throws.
    static func withLock<Result>(
        on directory: URL, _ body: () throws(BenchError) -> Result
    ) throws(BenchError) -> Result {
        let descriptor = open(directory.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw .cannotWrite(directory.path, String(cString: strerror(errno)))
        }
        defer { close(descriptor) }
        while flock(descriptor, LOCK_EX) != 0 {
            guard errno == EINTR else {
                throw .cannotWrite(directory.path, "cannot lock it: \(String(cString: strerror(errno)))")
            }
        }
        return try body()
    }
}
