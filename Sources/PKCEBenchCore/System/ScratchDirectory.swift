import Foundation

/// Makes a new directory under the system's temporary directory, `0700`, for the files of the
/// processes a run starts; the caller removes it. `purpose` names it in an error (`.cannotWrite`).
///
/// `mkdir` with the mode, not `FileManager`, which makes the directory under the umask and sets
/// the mode after: for that moment another user could have entered it under umask 0.
func makeScratchDirectory(for purpose: String) throws(BenchError) -> URL {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pkcebench-\(UUID().uuidString)")
    guard mkdir(directory.path, 0o700) == 0 else {
        throw .cannotWrite(
            directory.path, "cannot create a directory for \(purpose): \(String(cString: strerror(errno)))")
    }
    return directory
}
