import Foundation

/// Makes a new directory under the system's temporary directory, `0700`, for the files of the
/// processes a run starts; the caller removes it. `purpose` names it in an error (`.cannotWrite`).
func makeScratchDirectory(for purpose: String) throws(BenchError) -> URL {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pkcebench-\(UUID().uuidString)")
    do {
        try FileManager.default.createDirectory(
            at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    } catch {
        throw .cannotWrite(directory.path, "cannot create a directory for \(purpose)")
    }
    return directory
}
