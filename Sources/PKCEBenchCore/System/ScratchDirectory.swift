import Foundation

/// Makes a new directory under the system's temporary directory, for the files of the processes
/// a run starts (their reports, profiles and logs); the caller removes it when done.
///
/// - Parameter purpose: What it is for, as an error names it: `the measuring processes`.
/// - Throws: ``BenchError``: `.cannotWrite` when it cannot be made.
func makeScratchDirectory(for purpose: String) throws(BenchError) -> URL {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pkcebench-\(UUID().uuidString)")
    do {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    } catch {
        throw .cannotWrite(directory.path, "cannot create a directory for \(purpose)")
    }
    return directory
}
