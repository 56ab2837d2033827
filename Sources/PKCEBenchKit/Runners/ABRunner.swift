import Foundation
import PKCEBenchCore
import PKCEBenchReports

/// `bench ab` and `bench pair`: checks the baseline and the output directory, measures both sides
/// with the ``Pipeline``, compares them case by case, and writes the reports.
package struct ABRunner {
    package var pipeline: Pipeline
    /// The two sides, and how they are measured and decided.
    package var sideBySide: Pipeline.SideBySide
    package var output: ResultsDirectory
    package var format: OutputFormat
    package var exports = OutputFiles()
    package var currentFacts: WorkerProtocol.BuildFacts
    /// Called once the inputs have been checked.
    package var environment: () -> RunEnvironment
    package var standardOutput: (String) -> Void
    /// The baseline build's commit, when its executable is not in a checkout of it.
    package var baselineCommit: String? = nil

    /// The baseline executable is checked first (its hello and description), then the export
    /// files, the output directory and this build's backends; nothing is measured until all pass.
    /// The article "Comparing two builds" lists each failure and its exit code.
    package func run() throws(BenchError) -> Comparison {
        let pipeline = pipeline
        let sides = sideBySide.sides
        let baselineExecutable = sides.executable(of: .baseline)
        let progress = pipeline.progress
        let baselineFacts = try WorkerProtocol.check(executableAt: baselineExecutable)
        if case .relinked(_, let current) = sides {
            _ = try WorkerProtocol.check(executableAt: current.executable)
        }
        guard baselineFacts.build == currentFacts.build else {
            throw BenchError(
                .malformedInput,
                "cannot compare \(baselineExecutable) (\(baselineFacts.build) build) with this \(currentFacts.build) "
                    + "build: figures of a debug build say nothing about a release build")
        }
        if sideBySide.counter != nil {
            guard baselineFacts.metrics.contains(.instructions) else {
                throw .malformed(
                    baselineExecutable,
                    "cannot count instructions: its workers offer no instructions metric")
            }
            try InstructionCounter.requireCountable(targetCPU: baselineFacts.targetCPU, of: baselineExecutable)
        }
        try exports.check()
        try output.prepare(checkingHistory: false)
        let current = environment()
        let cases = try pipeline.selection.cases(from: pipeline.backends)
        guard !cases.isEmpty else { throw BenchError(.usage, "the options select no case") }
        SuiteRunner.warnIfDebug(current, progress: progress)
        let measured = try pipeline.measure(cases, as: .sideBySide(sideBySide))
        try pipeline.cancellation.check()

        let runs = BothSides { side in
            var environment =
                side == .current
                ? current
                : RunEnvironment.baseline(
                    baselineFacts, at: baselineExecutable, commit: baselineCommit, beside: current)
            // Counted rows record the CPU features and libraries each worker saw under Valgrind.
            measured.counted[side]?.record(in: &environment)
            return RunResult(
                environment: environment, measurements: side == .current ? measured.current : measured.baseline ?? [])
        }
        // Two backends' cases take one name in the comparison, so that each meets its
        // counterpart; the reports keep the backends' own names.
        let compared = BothSides { side in
            runs[side].named(sides.name(of: side), backend: sides.comparedBackend)
        }
        let comparison = try Comparison(
            baseline: compared.baseline, current: compared.current,
            criteria: sideBySide.criteria, pairing: .byProcess, looks: sideBySide.looks,
            gateDecisions: Dictionary(
                uniqueKeysWithValues: measured.decisions.map {
                    ($0.key.withBackend(sides.comparedBackend), $0.value)
                }),
            layout: sides.layout)

        try output.save(baseline: runs.baseline, current: runs.current, comparison: comparison)
        let names = ResultsDirectory.ABFiles.self
        progress.info(
            "wrote \(names.baseline), \(names.current) (and their samples), \(names.comparison), \(names.page) to "
                + output.url.path)

        try exports.write { ComparisonFormatter.render(comparison, as: $0) }
        comparison.warnings.forEach(progress.note)
        standardOutput(ComparisonFormatter.render(comparison, as: format))
        try SuiteRunner.requireNoFailures(runs.baseline, runs.current)
        return comparison
    }
}
