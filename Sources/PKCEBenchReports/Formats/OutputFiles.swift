import Foundation
import PKCEBenchCore

/// `--export-json`, `--export-markdown` and `--export-csv`, as hyperfine's `--export-*`: each file
/// holds exactly what `--format` with its format would print, written whole or not at all.
package struct OutputFiles: Sendable, Equatable {
    package var paths: [OutputFormat: String]

    package init(_ paths: [OutputFormat: String] = [:]) {
        self.paths = paths
    }

    /// Checks that every file can be written, before anything is measured.
    ///
    /// - Throws: `BenchError` (`.cannotWrite`) naming the first file that cannot be written.
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
