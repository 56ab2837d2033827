import Foundation
import PKCEBenchCore
import PKCEBenchReports

/// Where a ``Session``'s outcome goes: the one place a command writes what it measured or
/// compared, to the results directory, the exports and standard output, with the comparison's
/// warnings, failing when a case failed. The command turns what it returns into its exit status.
package struct Presenter {
    /// Where the runs are kept: a run alone with the history and the `latest` files, two sides as
    /// `bench ab`'s files; `nil` for runs read from files, which stay where they are.
    package var results: ResultsDirectory?
    package var format: OutputFormat
    package var exports = OutputFiles()
    /// The name a run alone is also kept under as a baseline.
    package var saveAsBaseline: BaselineName?
    /// The PostgreSQL store a run alone is also appended to, after the results directory.
    package var store: HistoryStore?
    /// Where progress, and what was written where, go.
    package var progress: any ProgressObserver
    /// Where the comparison's warnings go.
    package var warn: (String) -> Void
    package var standardOutput: (String) -> Void

    package init(
        results: ResultsDirectory?, format: OutputFormat, progress: any ProgressObserver,
        warn: ((String) -> Void)? = nil, standardOutput: @escaping (String) -> Void
    ) {
        self.results = results
        self.format = format
        self.progress = progress
        self.warn = warn ?? progress.note
        self.standardOutput = standardOutput
    }

    /// Runs `plan`'s session: checks its inputs (``Session/init(_:)``), then the export files,
    /// then makes the output directory, and measures nothing until all pass (the articles
    /// "Comparing runs" and "Comparing two builds" list each failure and its exit code); then
    /// writes what it came to.
    ///
    /// - Throws: ``BenchError``: what ``Session`` throws; `.backendFailed`, naming them, when a
    ///   case failed, once everything is written.
    package func run(_ plan: Session.Plan) throws(BenchError) -> Session.Outcome {
        let session = try Session(plan)
        try exports.check()
        if case .sideBySide = plan {
            try results?.prepare(checkingHistory: false)
        } else {
            try results?.prepare()
        }
        let outcome = try session.run()
        try present(outcome)
        return outcome
    }

    /// Keeps the runs, writes the exports and standard output, and fails when a case failed.
    private func present(_ outcome: Session.Outcome) throws(BenchError) {
        let comparison = outcome.comparison
        if let results {
            if let baseline = outcome.baseline, let comparison {
                try results.save(baseline: baseline, current: outcome.current, comparison: comparison)
                let names = ResultsDirectory.ABFiles.self
                progress.info(
                    "wrote \(names.baseline), \(names.current) (and their samples), \(names.comparison), "
                        + "\(names.page) to \(results.url.path)")
            } else {
                let written = try results.save(
                    outcome.current, asBaseline: saveAsBaseline, comparison: comparison,
                    changes: try changes(upTo: outcome.current, in: results))
                progress.info(
                    "wrote \(written.map(\.lastPathComponent).joined(separator: ", ")) to \(results.url.path)")
            }
        }
        // Two CSV documents in one stream would be neither, so CSV gets the comparison only; the
        // JSON document of a comparison holds this run's results too. A run alone measured now
        // shows its results before the comparison in a table or Markdown.
        let showsResults = outcome.baseline == nil && results != nil
        let rendered = { (format: OutputFormat) -> String in
            guard let comparison else { return SummaryFormatter.render(outcome.current, as: format) }
            let results =
                showsResults && (format == .table || format == .markdown)
                ? SummaryFormatter.render(outcome.current, as: format) + "\n" : ""
            return results + ComparisonFormatter.render(comparison, as: format)
        }
        try exports.write(rendered)
        comparison?.warnings.forEach(warn)
        standardOutput(rendered(format))
        // A store that cannot take the run hides neither a failed case nor the comparison's verdict:
        // its line is then a note, and its code (75, 77) the exit status only when there is nothing else.
        var stored: BenchError?
        if let store, let results, outcome.baseline == nil {
            stored = keep(outcome.current, in: store, after: results)
        }
        let failed = outcome.measured.flatMap(\.failedCases).map(\.description)
        let decided = comparison.map { $0.outcome != .clear } ?? false
        if let stored {
            guard !failed.isEmpty || decided else { throw stored }
            warn("bench: \(stored.message)")
        }
        if !failed.isEmpty {
            throw BenchError(.backendFailed, "\(failed.count) case(s) failed: \(failed.joined(separator: ", "))")
        }
    }

    /// Appends `run`, already in `results`' history, to the store, then the history's other runs
    /// that the store lacks (``HistoryStore/append(_:andWaitingRunsOf:)``).
    ///
    /// - Returns: Why the store did not take them, saying that they wait in the results directory
    ///   for the next run with the store or `bench history push`; `nil` once stored.
    private func keep(_ run: RunResult, in store: HistoryStore, after results: ResultsDirectory) -> BenchError? {
        do {
            let earlier = try store.append(SummaryRow.rows(of: run), andWaitingRunsOf: results.history.path)
            let waited = earlier > 0 ? ", and \(earlier) earlier run(s) of \(results.history.path) it lacked" : ""
            progress.info("stored run \(run.environment.runID) in \(store.address)\(waited)")
            return nil
        } catch  where error.kind == .storeUnavailable || error.kind == .storeRefused {
            return BenchError(
                error.kind,
                "\(error.message); the run is in \(results.history.path), and the next run with the store, "
                    + "or 'bench history push', stores it")
        } catch {
            return BenchError(error.kind, "\(error.message); the run is in \(results.history.path)")
        }
    }

    /// The steps in each case's series up to `run`, for `latest.html`: the last 100 runs of its
    /// host, build and metric in the history, and `run`, as `bench history --changes` finds them;
    /// `nil` while every series is too short to tell.
    private func changes(upTo run: RunResult, in results: ResultsDirectory) throws(BenchError) -> HistoryChanges? {
        guard ReportFiles.exists(results.history.path) else { return nil }
        let metric = try run.metric()
        let host = SeriesHost(run: run, metric: metric)
        let earlier = try ReportFiles.runs(inHistoryAt: results.history.path)
        let threshold = ComparisonCriteria.defaultHistoryThresholdPercent(of: metric) / 100
        let series = ChangePointAnalysis.standard(threshold: threshold)
            .series(of: earlier + [run], metric: metric, lastRuns: 100).filter { $0.host == host }
        guard series.contains(where: { !$0.isTooShort }) else { return nil }
        return HistoryChanges(series: series, threshold: threshold, since: nil)
    }
}
