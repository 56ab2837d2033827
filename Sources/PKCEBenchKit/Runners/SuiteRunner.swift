import PKCEBenchCore
import PKCEBenchReports

/// One run of the suite, from the correctness check to the reports: what `bench`, `bench run` and
/// `bench baseline` do, with the backends passed in so that tests can give it a broken one.
package struct SuiteRunner {
    package var pipeline: Pipeline
    /// How the cases' figures are taken.
    package var source: SampleSource
    package var results: ResultsDirectory
    package var format: OutputFormat
    package var exports = OutputFiles()
    package var baseline: (path: String, criteria: ComparisonCriteria)?
    package var saveAsBaseline: BaselineName?
    /// Called once the inputs have been checked.
    package var environment: () -> RunEnvironment
    package var standardOutput: (String) -> Void

    /// Bad inputs fail before anything is measured; a case that fails during the run is reported as
    /// failed, the other cases complete, and all are written.
    ///
    /// - Returns: What the comparison with the baseline came to; `clear` without one.
    package func run() throws(BenchError) -> Comparison.Outcome {
        // The inputs first: a bad baseline must not leave a new, empty output directory behind.
        let baselineRun = try baseline.map { baseline throws(BenchError) in
            try ReportFiles.run(summaryAt: baseline.path)
        }
        var environment = environment()
        var runToRun = RunToRunSpread.unmeasured
        if let baselineRun {
            try Comparison.requireSameBuild(baselineRun, "this run", build: environment.build)
            try Comparison.requireSameMetric(baselineRun, "this run", metric: source.metric)
            // The history this run will append to measures the spread between runs; it is read
            // before measuring, so that a malformed one costs nothing.
            if source.metric == .time {
                runToRun = try RunToRunSpread(
                    historyAt: results.history.path, required: false, like: environment,
                    excluding: [environment.runID, baselineRun.recordedEnvironment?.runID ?? ""])
            }
        }
        try exports.check()
        try results.prepare()
        let cases = try pipeline.selection.cases(from: pipeline.backends)
        Self.warnIfDebug(environment, progress: pipeline.progress)
        let measured = try pipeline.measure(cases, as: .alone(source))
        // Counted rows record the CPU features and libraries the worker saw under Valgrind.
        measured.counted[.current]?.record(in: &environment)
        let run = RunResult(environment: environment, measurements: measured.current)

        var comparison: Comparison?
        if let baseline, let baselineRun {
            comparison = try Comparison(
                baseline: baselineRun, current: run, criteria: baseline.criteria,
                runToRun: runToRun)
        }

        // A signal that came after the last sample still means: write nothing.
        try pipeline.cancellation.check()
        let written = try results.save(
            run, asBaseline: saveAsBaseline, comparison: comparison, changes: try changes(upTo: run))
        pipeline.progress.info(
            "wrote \(written.map(\.lastPathComponent).joined(separator: ", ")) to \(results.url.path)")

        // Two CSV documents in one stream would be neither, so CSV gets the comparison only; the
        // JSON document of a comparison holds this run's results too.
        let rendered = { (format: OutputFormat) -> String in
            guard let comparison else { return SummaryFormatter.render(run, as: format) }
            let results =
                format == .table || format == .markdown
                ? SummaryFormatter.render(run, as: format) + "\n" : ""
            return results + ComparisonFormatter.render(comparison, as: format)
        }
        try exports.write(rendered)
        comparison?.warnings.forEach(pipeline.progress.note)
        standardOutput(rendered(format))
        try Self.requireNoFailures(run)
        return comparison?.outcome ?? .clear
    }

    /// The steps in each case's series up to `run`, for `latest.html`: the last 100 runs of its
    /// host, build and metric in the history, and `run`, as `bench history --changes` finds them;
    /// `nil` while every series is too short to tell.
    private func changes(upTo run: RunResult) throws(BenchError) -> HistoryChanges? {
        guard ReportFiles.exists(results.history.path) else { return nil }
        let metric = source.metric
        let host = SeriesHost(run: run, metric: metric)
        let earlier = try ReportFiles.runs(inHistoryAt: results.history.path)
        let threshold = ComparisonCriteria.defaultHistoryThresholdPercent(of: metric) / 100
        let series = ChangePointAnalysis.standard(threshold: threshold)
            .series(of: earlier + [run], metric: metric, lastRuns: 100).filter { $0.host == host }
        guard series.contains(where: { !$0.isTooShort }) else { return nil }
        return HistoryChanges(series: series, threshold: threshold, since: nil)
    }

    static func warnIfDebug(_ environment: RunEnvironment, progress: any ProgressObserver) {
        if environment.build != .release {
            progress.note(
                "warning: this is a debug build; its figures are not representative (use swift run -c release bench)")
        }
    }

    /// Fails with 70, naming them, when any case of `runs` failed; called once the reports are
    /// written.
    static func requireNoFailures(_ runs: RunResult...) throws(BenchError) {
        let failed = runs.flatMap(\.failedCases).map(\.description)
        if !failed.isEmpty {
            throw BenchError(.backendFailed, "\(failed.count) case(s) failed: \(failed.joined(separator: ", "))")
        }
    }
}
