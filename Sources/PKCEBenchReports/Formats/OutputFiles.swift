import Foundation
import PKCEBenchCore

/// Files that get, each in its own format, what standard output shows in another:
/// `--export-json`, `--export-markdown` and `--export-csv`, as hyperfine's `--export-*` do.
///
/// Each file holds exactly what `--format` with its format would print, and is written whole or
/// not at all, beside the results directory's reports.
package struct OutputFiles: Sendable, Equatable {
    package var paths: [OutputFormat: String]

    package init(_ paths: [OutputFormat: String] = [:]) {
        self.paths = paths
    }

    /// Checks that every file can be written, before anything is measured.
    ///
    /// - Throws: `BenchError` (`.cannotWrite`) naming the first file that cannot be written: its directory is
    ///   missing or not writable, or the path is a directory.
    package func check() throws(BenchError) {
        for (_, path) in sorted {
            let url = URL(fileURLWithPath: path)
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), isDirectory.boolValue {
                throw .cannotWrite(path, "it is a directory")
            }
            guard access(url.deletingLastPathComponent().path, W_OK) == 0 else {
                throw .cannotWrite(path, String(cString: strerror(errno)))
            }
        }
    }

    /// Writes every file, with what `render` gives for its format; all of them or none.
    ///
    /// - Throws: `BenchError` (`.cannotWrite`) when one cannot be written; then none is.
    package func write(_ render: (OutputFormat) -> String) throws(BenchError) {
        try AtomicFiles.writeAll(sorted.map { (URL(fileURLWithPath: $0.path), render($0.format)) })
    }

    /// The files, in the order of ``OutputFormat/allCases``.
    private var sorted: [(format: OutputFormat, path: String)] {
        OutputFormat.allCases.compactMap { format in paths[format].map { (format, $0) } }
    }
}
