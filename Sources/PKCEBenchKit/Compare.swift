import ArgumentParser
import Foundation
import PKCEBenchCore
import PKCEBenchReports

struct Compare: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Compare two runs case by case; exit 1 when a case regressed, 2 when one is inconclusive.",
        discussion: """
            Reads each summary CSV and the .samples.csv beside it when there is one. Each run \
            counts once, by its fastest sample of each case, the figure the history keeps. The \
            change of the whole run (the median over its cases) is taken out of every case and \
            reported: runs made apart drift alike on every case. The spread of each case between \
            runs, beyond that shift, comes from the history (--history; else the PostgreSQL store \
            that --store or $PKCEBENCH_STORE names; else history.csv beside the current file): its \
            newest 100 runs of this host, each against the one before, never \
            across a step of the case or a change of kernel, Swift or library, so one run a commit \
            is enough; a case needs 5 runs in a row. Without it, Welch's t-test on the logs of each \
            measuring process's fastest sample estimates the change, its bounds widened by a drift \
            floor, and only a change beyond it can be called. A case regressed when the change is \
            at least --threshold percent and \
            significant at --alpha over all cases together (Holm); improved symmetrically; \
            unchanged when the upper 95% bound lies below the threshold; otherwise inconclusive. A \
            whole run moved by the threshold, or one run measured on a busier machine, makes the \
            comparison inconclusive. Without samples, the threshold alone decides. Files of \
            instruction counts (bench --metric instructions) are compared exactly: a change of at \
            least --threshold (default \(CriteriaOptions.defaultText(.instructions, .independent))) \
            percent either way is a regression or an improvement.
            """)

    @Argument(help: ArgumentHelp("The baseline summary CSV.", valueName: "baseline"))
    var baselinePath: String

    @Argument(help: ArgumentHelp("The current summary CSV.", valueName: "current"))
    var currentPath: String

    @Option(
        help: ArgumentHelp(
            "The history whose runs of this host measure how far a case moves between runs (default: the store, when one is named, else history.csv beside the current file, when there is one).",
            valueName: "history.csv"))
    var history: String?

    @OptionGroup var store: StoreOptions

    @OptionGroup var criteria: CriteriaOptions
    @OptionGroup var format: FormatOptions

    func validate() throws {
        if history != nil && store.url != nil {
            throw ValidationError("give the history with --history or --store, not both")
        }
    }

    func run() throws {
        let historyStore = history == nil ? try store.store() : nil
        try format.exports().check()
        let baseline = try ReportFiles.run(summaryAt: baselinePath)
        let current = try ReportFiles.run(summaryAt: currentPath)
        let metric = try Comparison.requireSameMetric(baseline, current)
        let criteria = try criteria.criteria(of: metric, pairing: .independent)
        let historyPath =
            history
            ?? URL(fileURLWithPath: currentPath).deletingLastPathComponent().appendingPathComponent("history.csv").path
        let compared: Set = [baseline.recordedEnvironment?.runID ?? "", current.recordedEnvironment?.runID ?? ""]
        let runToRun: RunToRunSpread
        if metric == .instructions {
            // Instruction counts repeat exactly: no spread between runs to measure.
            runToRun = .unmeasured
        } else if let historyStore {
            runToRun = RunToRunSpread(
                rows: try historyStore.rows(), like: current.recordedEnvironment, excluding: compared)
        } else {
            runToRun = try RunToRunSpread(
                historyAt: historyPath, required: history != nil, like: current.recordedEnvironment,
                excluding: compared)
        }
        let plan = Session.Plan.stored(
            current, against: Session.Stored(baseline, criteria: criteria, runToRun: runToRun))
        try format.present(
            plan, to: nil, progress: ProgressPrinter(caseCount: 0, style: .quiet), warn: Terminal.note)
    }
}
