import Foundation
import PKCEBenchCore
import PKCEBenchReports
import PKCEBenchTestSupport

extension SyntheticRun {
    /// Writes ``SyntheticRun/history(runs:)`` as `history.csv` in `directory`, as runs of `bench`
    /// append to it.
    package static func writeHistory(runs: Int = 6, in directory: URL) throws {
        try writeHistory(of: history(runs: runs), in: directory)
    }

    /// Writes `runs` as `history.csv` in `directory`, as runs of `bench` append to it.
    package static func writeHistory(of runs: [RunResult], in directory: URL) throws {
        // Saved as bench saves its runs, into a results directory of their own; only the history stays.
        let results = ResultsDirectory(path: directory.appendingPathComponent("earlier-runs").path)
        try results.prepare()
        for run in runs { try results.save(run) }
        try FileManager.default.moveItem(at: results.history, to: directory.appendingPathComponent("history.csv"))
        try FileManager.default.removeItem(at: results.url)
    }
}

extension RunResult {
    /// The rows of its summary file, as `bench` writes them.
    package var rows: [SummaryRow] { SummaryRow.rows(of: self) }
    /// The rows of its samples file.
    package var sampleRows: [SampleRow] { SampleRow.rows(of: self) }
}
