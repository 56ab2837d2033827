import ArgumentParser
import PKCEBenchKit
import PKCEBenchReports

/// The default subcommand: check the backends, measure the selected cases, write the reports,
/// and compare with a baseline when asked.
struct Run: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check every backend, measure the selected cases and write CSV reports (the default).",
        discussion: """
            Writes <run>.csv, <run>.samples.csv, latest.csv, latest.samples.csv, latest.svg and \
            latest.html (one self-contained page: table, charts, sample distributions and, with \
            --baseline, the comparison) to the output directory and appends the run to history.csv. \
            With --baseline, compares the run with that file, as 'bench compare' does: exit 1 when a \
            case regressed, 2 when one is inconclusive.
            """)

    @OptionGroup var selection: SelectionOptions
    @OptionGroup var measurement: MeasurementOptions
    @OptionGroup var metric: MetricOptions
    @OptionGroup var directory: DirectoryOptions
    @OptionGroup var format: FormatOptions
    @OptionGroup var progress: ProgressOptions

    @Option(
        name: .customLong("baseline"),
        help: ArgumentHelp("Compare the run with this summary CSV (and its .samples.csv).", valueName: "file"))
    var baselinePath: String?

    @Flag(name: .customLong("save-baseline"), help: "Also make this run the baseline: baseline.csv and its samples.")
    var saveBaseline = false

    @OptionGroup var criteria: CriteriaOptions

    func run() throws {
        let metric = try metric.metric()
        var runner = try SuiteRunner(
            selection: selection.selection(), plan: measurement.plan(), processes: measurement.processCount(),
            results: ResultsDirectory(path: directory.path), format: format.format(), metric: metric,
            progress: progress.style)
        runner.baseline = try baselinePath.map {
            ($0, try criteria.criteria(defaultThreshold: metric.defaultThreshold))
        }
        runner.saveAsBaseline = saveBaseline
        runner.exports = try format.exports()
        try runner.run().exitUnlessOK()
    }
}
