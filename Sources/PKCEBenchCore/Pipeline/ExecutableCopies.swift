import Foundation

/// A fresh copy of each side's executable for every pair of worker processes in `bench ab`, at
/// paths of the same length, so that where the page cache and the stack place each side's code
/// and data varies between pairs, which the comparison averages, instead of biasing every pair
/// (the article "Comparing two builds" has the measurements).
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

    /// A fresh copy of `executable` for side `side` (0 or 1), or `executable` itself when it
    /// cannot be copied.
    func copy(of executable: String, side: Int) -> String {
        guard let directory else { return executable }
        let folder = directory + "/side-\(side)"
        let copy = folder + "/bench"
        let files = FileManager.default
        try? files.removeItem(atPath: folder)
        do {
            try files.createDirectory(atPath: folder, withIntermediateDirectories: false)
            try files.copyItem(atPath: executable, toPath: copy)
            return copy
        } catch {
            return executable
        }
    }
}
