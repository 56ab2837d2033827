import ArgumentParser
import Foundation
import PKCEBackends
import PKCEBenchKit

/// `bench ab`: this build against another, measured side by side.
struct AB: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ab",
        abstract: "Measure this build and another bench side by side, and compare them case by case.",
        discussion: """
            For each of --processes pairs, starts a worker of each build; the two take every sample \
            in turns, back to back, each build first in every other turn, so that both see the \
            machine alike. Each pair gives a case the median log ratio of its turns; a t-test over \
            the pairs gives the change and its 95% confidence interval. A case regressed when the \
            change is at least --threshold percent (default 1) and significant at --alpha over all \
            cases together (Holm); improved symmetrically; unchanged when the interval lies within \
            the threshold; otherwise inconclusive. Writes ab-baseline.csv, ab-current.csv (each \
            with its .samples.csv), ab-comparison.csv and ab.html (the page latest.html is for a \
            run) to the output directory. Exit codes: 0 no \
            regression, 1 a regression, 2 inconclusive (measure again), 65 or 66 for a baseline \
            that is not a bench of this worker protocol.

            The defaults differ from a run's: --samples 1200 (per case and build), --sample-time \
            0.25, --warmup 1, --processes 20 (pairs of processes); with --quick, 40 samples in 4 \
            pairs.

            With --metric instructions, each build's worker counts every case's instructions per \
            operation under Callgrind instead, one build after the other (counts repeat exactly, \
            so there is nothing to pair); a case regressed when its count grew by --threshold \
            percent (default 0.1) or more. The sampling options (--samples, --sample-time, \
            --warmup, --processes, --quick) and --alpha do not apply then; 64 for --threads above 1 \
            or an AVX-512 build on either side, 69 without valgrind.
            """)

    @Argument(
        help: ArgumentHelp(
            "The baseline build's bench executable, such as ../main/.build/release/bench.", valueName: "baseline-bench")
    )
    var baselineBench: String

    @OptionGroup var selection: SelectionOptions
    @OptionGroup var measurement: MeasurementOptions
    @OptionGroup var metric: MetricOptions
    @OptionGroup var criteria: CriteriaOptions
    @OptionGroup var directory: DirectoryOptions
    @OptionGroup var format: FormatOptions

    func run() throws {
        ABRunner.prepareProcess()
        let metric = try metric.metric()
        let selection = try selection.selection()
        let counter =
            metric == .instructions
            ? try InstructionCounter.forCounting(
                executable: SuiteRun.executable, targetCPU: BuildConfiguration.targetCPU, selection: selection,
                interruption: { InterruptSignals.received }) : nil
        var runner = try ABRunner(
            selection: selection, measurement: measurement,
            criteria: try criteria.criteria(defaultThreshold: metric == .instructions ? metric.defaultThreshold : 1),
            directory: directory, format: format, baselineExecutable: baselineBench)
        runner.instructionCounter = counter
        try runner.runAndExit()
    }
}

extension ABRunner {
    /// Readies this process for workers: signals stop the run, and a worker that dies cannot take
    /// this process with it through a write to its pipe.
    static func prepareProcess() {
        InterruptSignals.install()
        signal(SIGPIPE, SIG_IGN)
    }

    /// A runner of this build's shipped backends with the command line's options, as `bench ab`
    /// and `bench pair` use it.
    init(
        selection: Selection, measurement: MeasurementOptions, criteria: ComparisonCriteria,
        directory: DirectoryOptions, format: FormatOptions, baselineExecutable: String
    ) throws {
        self.init(
            backends: try shippedBackends(), selection: selection,
            plan: try measurement.plan(standard: .ab, quick: .abQuick),
            pairs: try measurement.processCount(standard: ABRunner.standardPairs, quick: ABRunner.quickPairs),
            criteria: criteria, output: ResultsDirectory(path: directory.path), format: try format.format(),
            baselineExecutable: baselineExecutable, currentExecutable: SuiteRun.executable,
            currentFacts: .current(libraryVersions: loadedLibraryVersions()),
            environment: { RunEnvironment.capture(libraryVersions: loadedLibraryVersions()) },
            standardOutput: { print($0, terminator: "") },
            progress: ProgressPrinter(caseCount: 0))
        interruption = { InterruptSignals.received }
    }

    /// Runs, and exits with the comparison's status when it is not 0.
    func runAndExit() throws {
        let status = try run()
        if status != .ok {
            throw ExitCode(status.rawValue)
        }
    }
}
