import ArgumentParser
import Foundation
import PKCEBenchCore
import PKCEBenchReports

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
    @OptionGroup var sampling: SamplingOptions
    @OptionGroup var metric: MetricOptions
    @OptionGroup var directory: DirectoryOptions
    @OptionGroup var store: StoreOptions
    @OptionGroup var format: FormatOptions
    @OptionGroup var progress: ProgressOptions

    @Option(
        name: .customLong("baseline"),
        help: ArgumentHelp(
            "Compare the run with this summary CSV (and its .samples.csv); a name (no '/', no .csv) means "
                + "baseline-NAME.csv in the output directory.",
            valueName: "file|name"))
    var baseline: String?

    @Flag(
        name: .customLong("save-baseline"),
        help: ArgumentHelp(
            "Also make this run a baseline: baseline.csv and its samples in the output directory; "
                + "--save-baseline NAME makes baseline-NAME.csv, which --baseline NAME reads."))
    var saveBaseline = false

    /// The NAME of `--save-baseline NAME`, which ``BenchCommand/normalized(_:)`` moves here.
    @Option(name: .customLong("save-baseline-name"), help: .hidden)
    var saveBaselineName: String?

    @OptionGroup var criteria: CriteriaOptions

    func validate() throws {
        try usage { () throws(BenchError) in
            _ = try baselineToSave()
            _ = try baselinePath()
        }
    }

    /// The summary file that `--baseline` names: a path, or a named baseline's in the output directory.
    private func baselinePath() throws(BenchError) -> String? {
        guard let baseline else { return nil }
        if baseline.contains("/") || baseline.hasSuffix(".csv") { return baseline }
        return (directory.path as NSString).appendingPathComponent(try BaselineName(baseline).fileName)
    }

    private func baselineToSave() throws(BenchError) -> BaselineName? {
        if let saveBaselineName { return try BaselineName(saveBaselineName) }
        return saveBaseline ? .unnamed : nil
    }

    func run() throws {
        let store = try store.store()
        let metric = metric.metric
        let selection = try selection.selection()
        let results = ResultsDirectory(path: directory.path)
        let progress = try ProgressPrinter(of: selection, style: progress.style)
        let plan = try Session.Plan.thisProgram(
            selection: selection, plan: sampling.plan(), processes: sampling.processCount(), metric: metric,
            progress: progress,
            against: try baselinePath().map { ($0, try criteria.criteria(of: metric, pairing: .independent)) },
            results: results, store: store)
        try format.present(
            plan, to: results, progress: progress, saveAsBaseline: try baselineToSave(), store: store)
    }
}
