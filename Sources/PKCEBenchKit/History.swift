import ArgumentParser
import Foundation
import PKCEBenchCore
import PKCEBenchReports

struct History: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print each case's median over the last runs in history.csv, or the steps in its series.",
        discussion: """
            With --changes, finds the steps in each case's series of runs (E-divisive means with a \
            permutation test, on each run's fastest sample corrected for the whole host's drift) and \
            exits with 1 when a regression of at least the threshold begins after --since (or anywhere, \
            without it). With --confirm, each such alert is measured again, the build of the commit \
            after its step against the build of the commit before as bench ab --against compares them \
            (builds kept as bench bisect keeps them, the files in confirm/alert-N of the output \
            directory), and reported confirmed, not-reproduced or undecided: exit 1 only for a \
            confirmed one, else 2 for an undecided one. The article "Tracking regressions over time" \
            gives the rule and its error rates. With --store (or $PKCEBENCH_STORE), reads the history \
            from that PostgreSQL database instead of history.csv.
            """,
        subcommands: [Import.self, Export.self, Push.self])

    @OptionGroup var filter: CaseFilterOptions
    @OptionGroup var directory: DirectoryOptions
    @OptionGroup var store: StoreOptions
    @OptionGroup var format: FormatOptions

    @Option(
        parsing: .unconditional,
        help:
            "How many of the most recent runs to show. (default: 10; with --changes, 100 of each host, at most \(Self.mostRunsTested): the test's cost grows with their square)"
    )
    var last: Int?

    /// The most runs of each host that `--changes` tests: each permutation costs the square of a
    /// series' length, so 500 runs take about 25 times as long as the default 100.
    static let mostRunsTested = 500

    @Option(
        help: ArgumentHelp(
            "Also draw median ns/op over the runs as an SVG file; with --changes, each series with its steps.",
            valueName: "file.svg"))
    var chart: String?

    @Flag(help: "Find the steps in each case's series of runs, and name the runs and commits either side.")
    var changes = false

    @Option(
        help: ArgumentHelp(
            "With --changes, alert only on regressions that begin after this run (its id) or commit (a hash or git revision).",
            valueName: "run|ref"))
    var since: String?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            """
            With --changes, the smallest step, in percent, to report. \
            (default: \(Self.defaultText(.time)) for time, \(Self.defaultText(.instructions)) for instruction counts)
            """))
    var threshold: Double?

    @Option(
        name: .customLong("metric"), help: "With --changes, the runs' metric: time or instructions. (default: time)")
    var metricOption: Metric?

    var metric: Metric { metricOption ?? .time }

    @Flag(
        help: ArgumentHelp(
            "With --changes, measure each alert again: build the commits either side of its step and compare them as "
                + "bench ab --against does; only a confirmed regression exits with 1."))
    var confirm = false

    static func defaultText(_ metric: Metric) -> String {
        let value = ComparisonCriteria.defaultHistoryThresholdPercent(of: metric)
        return value == value.rounded() ? String(Int(value)) : String(value)
    }

    func validate() throws {
        try usage { () throws(BenchError) in _ = try filter.selection() }
        if let last, last < 1 { throw ValidationError("--last must be at least 1, not \(last)") }
        if changes, let last, last > Self.mostRunsTested {
            throw ValidationError(
                "--last with --changes must be at most \(Self.mostRunsTested) runs, not \(last): "
                    + "the test's cost grows with the square of a series' length")
        }
        if !changes {
            let given = [
                ("--since", since != nil), ("--threshold", threshold != nil), ("--metric", metricOption != nil),
                ("--confirm", confirm),
            ]
            if let (name, _) = given.first(where: \.1) { throw ValidationError("\(name) needs --changes") }
        }
        if let threshold, !(threshold.isFinite && threshold >= 0 && threshold < 1000) {
            throw ValidationError("--threshold must be a percentage from 0 to 1000, not \(threshold)")
        }
    }

    func run() throws {
        let selection = try filter.selection()
        let format = format.format
        let exports = try self.format.exports()
        try exports.check()
        let history: [RunResult]
        if let store = try store.store() {
            history = SummaryRow.runs(of: try store.rows())
        } else {
            let path = ResultsDirectory(path: directory.path).history.path
            guard ReportFiles.exists(path) else {
                throw BenchError(.missingInput, "\(path): no such file; every run of bench appends to it")
            }
            history = try ReportFiles.runs(inHistoryAt: path)
        }
        if changes {
            try findChanges(in: history, include: try selection.rowMatcher())
            return
        }
        let trends = HistoryTrend.trends(history, lastRuns: last ?? 10, include: try selection.rowMatcher())
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

    private func findChanges(in history: [RunResult], include: (CaseKey) -> Bool) throws {
        let threshold = (threshold ?? ComparisonCriteria.defaultHistoryThresholdPercent(of: metric)) / 100
        var window: HistoryChanges.Since?
        if let since {
            guard let found = HistoryChanges.since(since, in: history) else {
                throw BenchError(.usage, "--since \(since): no run with that id or commit in the history")
            }
            window = found
        }
        // Each permutation costs the square of a series' length; 100 runs of 64 cases took 1.3 s here.
        let analysis = ChangePointAnalysis.standard(threshold: threshold)
        var changes = HistoryChanges(
            series: analysis.series(of: history, metric: metric, lastRuns: last ?? 100, include: include),
            threshold: threshold, since: window)
        if confirm && !changes.alerts.isEmpty {
            Presenter.prepareProcess()
            try self.confirm(&changes)
        }
        if let chart { try ReportFiles.write(ChangePointChart.svg(changes), to: chart) }
        try self.format.exports().write { ChangePointFormatter.render(changes, as: $0) }
        Terminal.write(ChangePointFormatter.render(changes, as: format.format), as: format.format)
        if !changes.standingAlerts.isEmpty { throw ExitCode(ExitStatus.regression.rawValue) }
        let undecided = changes.confirmations.values.contains { $0.outcome == .undecided }
        try (undecided ? ExitStatus.inconclusive : .ok).exitUnlessOK()
    }

    /// Measures each alert again: the build of the commit after its step against the build of
    /// the commit before, on its case, with `bench ab`'s defaults for the metric.
    private func confirm(_ changes: inout HistoryChanges) throws {
        let builds = try CommitBuilds.ofThisProgram()
        // bench ab's defaults: --confirm takes no sampling or progress options.
        let progress = ProgressPrinter.Style.standardError()
        let printer = ProgressPrinter(caseCount: 0, style: progress)
        try builds.lock(progress: printer, cancellation: .signals)
        // This machine, and this bench's build configuration.
        let here = RunEnvironment.capture(libraries: [:]).host
        var kept: [String: DescribedBuild] = [:]
        for (index, alert) in changes.alerts.enumerated() {
            let (series, changePoint) = alert
            let confirmation: HistoryChanges.Confirmation
            if series.host.machine != here {
                // Another machine's step says nothing about a comparison made on this one.
                confirmation = .init(outcome: .undecided, change: nil, reason: "its runs were made on another host")
            } else {
                let result = Result { () throws(BenchError) in
                    try measureAgain(
                        series, changePoint, builds: builds, kept: &kept, progress: progress, printer: printer,
                        output: URL(fileURLWithPath: directory.path).appendingPathComponent(
                            "confirm/alert-\(index + 1)"))
                }
                switch result {
                case .success(let measured):
                    confirmation = measured
                case .failure(let error) where error.kind == .interrupted || error.kind == .terminated:
                    throw error
                case .failure(let error):
                    // A commit that does not build, or too old a one: this alert cannot be measured again.
                    confirmation = .init(outcome: .undecided, change: nil, reason: error.message)
                }
            }
            changes.confirmations[HistoryChanges.alertID(series, changePoint)] = confirmation
        }
    }

    /// The build of the commit after `changePoint` against the build of the commit before, on the
    /// series' case, with `bench ab`'s defaults for the metric.
    private func measureAgain(
        _ series: CaseSeries, _ changePoint: ChangePoint, builds: CommitBuilds, kept: inout [String: DescribedBuild],
        progress: ProgressPrinter.Style, printer: ProgressPrinter, output: URL
    ) throws(BenchError) -> HistoryChanges.Confirmation {
        // A hash alone: a known commit, not a dirty one (its build is not the commit's), never a ref.
        guard changePoint.lastBefore.commit.isClean, changePoint.firstAfter.commit.isClean,
            let before = changePoint.lastBefore.commit.hash, let after = changePoint.firstAfter.commit.hash
        else {
            return .init(outcome: .undecided, change: nil, reason: "a run either side has no commit to build")
        }
        var ends: [CommitBuilds.Commit] = []
        for hash in [before, after] {
            switch try builds.lineage(of: hash) {
            case .onThisBranch(let commit):
                ends.append(commit)
            case .notOnThisBranch:
                return .init(outcome: .undecided, change: nil, reason: "\(hash) is not on this branch")
            case .historyTooShallow:
                return .init(
                    outcome: .undecided, change: nil,
                    reason: "history too shallow to find \(hash): fetch with depth 0 (git fetch --unshallow)")
            }
        }
        func build(_ commit: CommitBuilds.Commit) throws(BenchError) -> DescribedBuild {
            if let build = kept[commit.id] { return build }
            let build = try DescribedBuild(
                builds.build(commit, progress: printer, cancellation: .signals))
            kept[commit.id] = build
            return build
        }
        printer.info("measuring again \(series.key) between \(before) and \(after)")
        let counter = try InstructionCounter.ofThisProgram(counting: metric, of: Selection(keys: [series.key]))
        let comparison = CommitComparison(
            sampling: .standard, progress: progress,
            criteria: ComparisonCriteria(
                threshold: ComparisonCriteria.defaultThresholdPercent(of: metric, pairing: .byProcess) / 100),
            counter: counter)
        let (compared, _) = try comparison.compare(
            baseline: build(ends[0]), current: build(ends[1]), key: series.key, output: output)
        let outcome: HistoryChanges.Confirmation.Outcome =
            switch compared?.verdict {
            case .regressed?: .confirmed
            case .unchanged?, .improved?: .notReproduced
            default: .undecided
            }
        return .init(outcome: outcome, change: compared?.change)
    }

}
