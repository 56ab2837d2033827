import ArgumentParser
import Foundation
import PKCEBenchCore
import PKCEBenchReports

struct AB: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ab",
        abstract: "Measure this build and another bench side by side, and compare them case by case.",
        discussion: """
            After a warm-up pair whose samples are set aside, for each of --processes pairs, starts \
            a worker of each build; the two take every sample \
            in turns, back to back, each build first in every other turn, so that both see the \
            machine alike. Each pair gives a case the median log ratio of its turns; the 20% \
            trimmed mean of the pairs' figures, with Yuen's standard error, gives the change. The \
            gate asks one question first: is this build slower by at least --threshold percent \
            (default \(CriteriaOptions.defaultText(.time, .byProcess)))? A case regressed when it \
            is, significantly at --alpha over all cases \
            together (Holm) and over the looks; it passes when the upper one-sided 95% bound lies \
            below the threshold, and is then unchanged, or improved when also at least the \
            threshold faster, significantly. After each look the cases still open are measured in \
            --processes more pairs, up to --max-pairs (default 80); a case still open then is \
            inconclusive. Writes ab-baseline.csv, ab-current.csv (each with its .samples.csv), \
            ab-comparison.csv and ab.html (the page latest.html is for a run) to the output \
            directory. Exit codes: 0 no regression and every case decided, 1 a regression, 2 a case \
            still open after --max-pairs, 65 or 66 for a baseline that is not a bench of this \
            worker protocol.

            The defaults differ from a run's: --samples 600 (per case, build and look), \
            --sample-time 0.25, --warmup 1, --processes 20 (pairs of processes per look), \
            --max-pairs 80; with --quick, 40 samples in 4 pairs and one look.

            With --metric instructions, each build's worker counts every case's instructions per \
            operation under Callgrind instead, one build after the other (counts repeat exactly, \
            so there is nothing to pair); a case regressed when its count grew by --threshold \
            percent (default \(CriteriaOptions.defaultText(.instructions, .byProcess))) or more. The \
            sampling options (--samples, --sample-time, \
            --warmup, --processes, --quick) and --alpha do not apply then; 64 for --threads above 1 \
            or an AVX-512 build on either side, 69 without valgrind.
            """)

    @Argument(
        help: ArgumentHelp(
            "The baseline build's bench executable, such as ../main/.build/release/bench; or --against.",
            valueName: "baseline-bench"))
    var baselineBench: String?

    @Option(
        name: .customLong("against"),
        help: ArgumentHelp(
            "Instead of a baseline executable: build this git revision (a branch, tag or commit of the repository "
                + "of the current directory) and this checkout's commit (which must have no uncommitted changes) in "
                + "the configuration of this bench, each in a worktree under $XDG_CACHE_HOME/pkcebench/builds "
                + "(~/.cache/...) with every function in its own section, reuse those builds for the same commits, "
                + "and compare them, each pair of workers running both linked again in a fresh random order of "
                + "their functions. Fetches nothing.",
            valueName: "ref"))
    var against: String?

    func validate() throws {
        guard (baselineBench == nil) != (against == nil) else {
            throw ValidationError("bench ab compares with a baseline bench executable or with --against REF: give one")
        }
    }

    @OptionGroup var selection: SelectionOptions
    @OptionGroup var sampling: SamplingOptions
    @OptionGroup var gate: GateOptions
    @OptionGroup var metric: MetricOptions
    @OptionGroup var criteria: CriteriaOptions
    @OptionGroup var directory: DirectoryOptions
    @OptionGroup var format: FormatOptions
    @OptionGroup var progress: ProgressOptions

    func run() throws {
        Presenter.prepareProcess()
        let metric = metric.metric
        let selection = try selection.selection()
        let counter = try InstructionCounter.ofThisProgram(counting: metric, of: selection)
        let (sides, baselineCommit) = try sides()
        let progress = ProgressPrinter(caseCount: 0, style: progress.style)
        // A kept build lies outside any checkout: its commit is the one it was built from.
        let plan = Session.Plan.thisProgram(
            sides, selection: selection, sampling: try PairedSampling(sampling, gate),
            criteria: try criteria.criteria(of: metric, pairing: .byProcess), counter: counter,
            baselineCommit: baselineCommit, progress: progress)
        try format.present(plan, to: ResultsDirectory(path: directory.path), progress: progress)
    }

    /// The two builds: the baseline given and this one; or, with `--against`, that revision's
    /// and this checkout's commit's, each kept once built: built now unless kept (after the output
    /// files are checked), in the one worktree that `bench bisect` and `bench backfill` build in,
    /// the second over the first, so that it rebuilds only what the two commits change; and linked
    /// again for every pair.
    ///
    /// - Returns: The sides, and the baseline's commit when it was built here.
    private func sides() throws -> (Sides, baselineCommit: String?) {
        if let baselineBench { return (.builds(baseline: baselineBench, current: benchExecutable), nil) }
        guard let against else { throw ValidationError("bench ab needs a baseline bench executable or --against REF") }
        let revisions = (
            baseline: try RevisionBuild.ofThisProgram(against), current: try RevisionBuild.ofThisProgram("HEAD")
        )
        try revisions.current.requireCommitted()
        try format.exports().check()
        try ResultsDirectory(path: self.directory.path).prepare(checkingHistory: false)
        let builds = CommitBuilds(like: revisions.current)
        let progress = ProgressPrinter(caseCount: 0, style: progress.style)
        try builds.lock(progress: progress, cancellation: .signals)
        var kept: [CommitBuilds.Kept] = []
        for revision in [revisions.baseline, revisions.current] {
            let commit = try builds.commit(revision.commit)
            let build = try builds.build(
                commit, named: revision.name, progress: progress, cancellation: .signals)
            if let seconds = build.buildSeconds {
                progress.info("built \(revision.name) in \(Int(seconds.rounded())) s: \(build.executable)")
            } else {
                progress.info("reusing the build of \(revision.name): \(build.executable)")
            }
            kept.append(build)
        }
        if metric.metric == .time {
            progress.info(
                "each pair of workers runs both builds linked again in a fresh random order of their functions")
        }
        return (.relinked(baseline: kept[0].linkCommand, current: kept[1].linkCommand), kept[0].commit.short)
    }
}
