import ArgumentParser
import PKCEBenchCore
import PKCEBenchReports

struct Export: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print a summary CSV as the JSON a CI benchmark tracker reads: Bencher or github-action-benchmark.",
        discussion: """
            bencher: Bencher Metric Format, one object per case name with latency (the median in \
            ns, p10 and p90 as lower_value and upper_value), throughput (ops/s) and allocations \
            (per operation); instructions for a counted run. For 'bencher run --adapter json'. \
            github-action-benchmark: its customSmallerIsBetter array, one entry per case with \
            the median ns/op (or instructions/op) as value and p10-p90 as range. Failed cases are \
            left out, with one warning line on stderr.
            """)

    @Argument(help: ArgumentHelp("A summary CSV, such as results/latest.csv.", valueName: "file.csv"))
    var path: String

    @Option(name: .customLong("format"), help: "The tracker's format.")
    var format: ExportFormat

    func run() throws {
        let runs = try ReportFiles.runs(inSummaryAt: path)
        let failed = Exporter.failedCases(runs)
        if !failed.isEmpty {
            Terminal.note("warning: \(failed.count) failed case(s) left out: \(failed.joined(separator: ", "))")
        }
        Terminal.write(Exporter.render(runs, as: format), as: .json)
    }
}
