import ArgumentParser
import PKCEBenchCore
import PKCEBenchReports

struct Baseline: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Replace baseline.csv and baseline.samples.csv in the output directory, atomically.",
        discussion: """
            Without a file, runs the suite (with the same options as 'bench run') and saves it as \
            the baseline as well as the latest run. With a file, promotes that run and the samples \
            beside it without measuring anything.
            """)

    @Argument(help: ArgumentHelp("A summary CSV to promote, such as results/latest.csv.", valueName: "file"))
    var source: String?

    @Option(
        help: ArgumentHelp(
            "Save it as baseline-NAME.csv (and its samples), a baseline that --baseline NAME reads, instead of "
                + "baseline.csv.",
            valueName: "name"))
    var name: String?

    @OptionGroup var selection: SelectionOptions
    @OptionGroup var sampling: SamplingOptions
    @OptionGroup var metric: MetricOptions
    @OptionGroup var directory: DirectoryOptions
    @OptionGroup var format: FormatOptions
    @OptionGroup var progress: ProgressOptions

    func validate() throws {
        try usage { () throws(BenchError) in _ = try baselineName() }
    }

    private func baselineName() throws(BenchError) -> BaselineName {
        try name.map { name throws(BenchError) in try BaselineName(name) } ?? .unnamed
    }

    func run() throws {
        let results = ResultsDirectory(path: directory.path)
        let name = try baselineName()
        guard let source else {
            let selection = try selection.selection()
            let progress = try ProgressPrinter(of: selection, style: progress.style)
            let plan = try Session.Plan.thisProgram(
                selection: selection, plan: sampling.plan(), processes: sampling.processCount(), metric: metric.metric,
                progress: progress, results: results)
            return try format.present(plan, to: results, progress: progress, saveAsBaseline: name)
        }
        try results.prepare()
        try results.promoteToBaseline(summaryAt: source, as: name)
        print("\(source) is now \(name): \(results.baseline(name).path)")
    }
}
