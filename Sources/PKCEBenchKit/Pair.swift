import ArgumentParser
import PKCEBenchCore
import PKCEBenchReports

struct Pair: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pair",
        abstract: "Measure one backend against another side by side, and compare them case by case.",
        discussion: """
            Measures as 'bench ab' does, with this build on both sides: for each of --processes \
            pairs, a worker measures every selected case of BACKEND and another the same case of \
            BASELINE-BACKEND; they take their samples in turns, back to back, so that whatever the \
            machine does lands on both alike, and the trimmed mean over the pairs gives the ratio. \
            Use it to tell whether one backend is faster than another on a noisy machine, where \
            the medians of one run can differ by more than the backends do. The comparison names \
            each case's backend 'BACKEND-vs-BASELINE-BACKEND', with BASELINE-BACKEND's median as \
            the baseline; the verdicts and looks are 'bench ab''s: 'regressed' means BACKEND is \
            slower by at least --threshold percent \
            (default \(CriteriaOptions.defaultText(.time, .byProcess))), significantly; 'unchanged' that \
            it is not slower by that much; 'improved' that it is also faster by at least that \
            much, significantly. --filter and --skip match BACKEND's case names; the baseline side \
            measures their counterparts. Writes the files 'bench ab' writes. Exit codes: 0 BACKEND \
            is nowhere slower, 1 it is slower in some case, 2 a case still open after --max-pairs.

            The defaults are 'bench ab''s: --samples 600 (per case, backend and look), \
            --sample-time 0.25, --warmup 1, --processes 20 (pairs of processes per look), \
            --max-pairs 80; with --quick, 40 samples in 4 pairs and one look.
            """)

    @Argument(
        help: ArgumentHelp(
            "The backend measured against: \(CommandContext.backendNames.joined(separator: ", "))."))
    var baselineBackend: String

    @Argument(help: ArgumentHelp("The backend measured."))
    var backend: String

    @OptionGroup var selection: SelectionOptions
    @OptionGroup var sampling: SamplingOptions
    @OptionGroup var gate: GateOptions
    @OptionGroup var criteria: CriteriaOptions
    @OptionGroup var directory: DirectoryOptions
    @OptionGroup var format: FormatOptions
    @OptionGroup var progress: ProgressOptions

    func validate() throws {
        try usage { () throws(BenchError) in _ = try pairedSelection() }
    }

    /// The selection of the measured backend's cases, with the pair, checked.
    private func pairedSelection() throws(BenchError) -> Selection {
        var selection = try selection.selection()
        guard selection.backends.isEmpty else {
            throw BenchError(.usage, "bench pair takes its two backends as arguments, not --backend")
        }
        for name in [baselineBackend, backend] where !CommandContext.backendNames.contains(name) {
            throw BenchError(
                .usage,
                "unknown backend '\(name)'; valid backends: \(CommandContext.backendNames.joined(separator: ", "))")
        }
        guard baselineBackend != backend else {
            throw BenchError(.usage, "bench pair needs two different backends, not \(backend) twice")
        }
        selection.backends = [backend]
        return selection
    }

    func run() throws {
        Presenter.prepareProcess()
        let progress = ProgressPrinter(caseCount: 0, style: progress.style)
        let plan = Session.Plan.thisProgram(
            .backends(baseline: baselineBackend, current: backend, executable: benchExecutable),
            selection: try pairedSelection(), sampling: try PairedSampling(sampling, gate),
            criteria: try criteria.criteria(of: .time, pairing: .byProcess), progress: progress)
        try format.present(plan, to: ResultsDirectory(path: directory.path), progress: progress)
    }
}
