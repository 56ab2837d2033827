import ArgumentParser
import Foundation
import PKCEBenchCore
import PKCEBenchReports

struct History: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print each case's median over the last runs in history.csv, and optionally chart it.")

    @OptionGroup var filter: CaseFilterOptions
    @OptionGroup var directory: DirectoryOptions
    @OptionGroup var format: FormatOptions

    @Option(parsing: .unconditional, help: "How many of the most recent runs to show.")
    var last = 10

    @Option(help: ArgumentHelp("Also draw median ns/op over the runs as an SVG file.", valueName: "file.svg"))
    var chart: String?

    func validate() throws {
        try usage { () throws(BenchError) in _ = try filter.selection() }
        guard last >= 1 else { throw ValidationError("--last must be at least 1, not \(last)") }
    }

    func run() throws {
        let selection = try filter.selection()
        let format = format.format
        let exports = try self.format.exports()
        try exports.check()
        let path = ResultsDirectory(path: directory.path).history.path
        guard ReportFiles.exists(path) else {
            throw BenchError(.missingInput, "\(path): no such file; every run of bench appends to it")
        }
        let history = SummaryRow.runs(of: try ReportFiles.readHistory(at: path))
        let trends = HistoryTrend.trends(history, lastRuns: last, include: try selection.rowMatcher())
        if let chart {
            let charted = Set(trends.map(\.key))
            let runs = Set(trends.flatMap { $0.points.map(\.runID) })
            let svg = HistoryChart.svg(
                history.filter { runs.contains($0.environment.runID) }.map { run in
                    var run = run
                    run.summaries.removeAll { !charted.contains($0.key) }
                    return run
                })
            try ReportFiles.write(svg, to: chart)
        }
        try exports.write { HistoryFormatter.render(trends, as: $0) }
        Terminal.write(HistoryFormatter.render(trends, as: format), as: format)
    }
}
