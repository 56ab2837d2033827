import Foundation

/// A fresh copy of each side's executable for every pair of worker processes in `bench ab`, at
/// paths of the same length, so that where the page cache and the stack place each side's code
/// and data varies between pairs, which the comparison averages, instead of biasing every pair;
/// for builds that `bench ab --against` made, a fresh link in a random order of their functions
/// (``LinkCommand``), so that where the linker places the code varies too (the article
/// "Comparing two builds" has the measurements).
final class ExecutableCopies {
    private let directory: String?

    /// Makes a private temporary directory for the copies; when it cannot, `warn` is told and the
    /// workers run the executables in place.
    init(warn: (String) -> Void) {
        var template = Array((NSTemporaryDirectory() + "/pkcebench-ab.XXXXXX").utf8CString)
        directory = template.withUnsafeMutableBufferPointer { buffer in
            mkdtemp(buffer.baseAddress!).map { String(cString: $0) }
        }
        if directory == nil {
            warn(
                "warning: cannot make a temporary directory for fresh copies of the executables; running them in place")
        }
    }

    deinit {
        if let directory { try? FileManager.default.removeItem(atPath: directory) }
    }

    /// A fresh executable for `side` of `sides`: linked again in the order `seed` gives when the
    /// side is relinked, else a copy of its executable, or the executable itself when it cannot
    /// be copied.
    ///
    /// - Throws: ``BenchError``: `.buildFailed` when a side that is relinked cannot be.
    func fresh(_ side: Side, of sides: Sides, seed: UInt32) throws(BenchError) -> String {
        let executable = sides.executable(of: side)
        guard let linkCommand = sides.linkCommand(of: side) else {
            guard let folder = emptyFolder(for: side),
                (try? FileManager.default.copyItem(atPath: executable, toPath: folder + "/bench")) != nil
            else { return executable }
            return folder + "/bench"
        }
        guard let folder = emptyFolder(for: side) else {
            throw BenchError(.buildFailed, "cannot link \(executable) again: no temporary directory for it")
        }
        try linkCommand.link(to: folder + "/bench", seed: seed)
        return folder + "/bench"
    }

    /// `side`'s folder in the temporary directory, emptied of the last pair's executable.
    private func emptyFolder(for side: Side) -> String? {
        guard let directory else { return nil }
        let folder = directory + "/side-\(side.rawValue)"
        try? FileManager.default.removeItem(atPath: folder)
        guard (try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)) != nil
        else { return nil }
        return folder
    }
}
