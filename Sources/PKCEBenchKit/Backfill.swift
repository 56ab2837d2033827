import ArgumentParser
import Foundation
import PKCEBenchCore
import PKCEBenchReports

struct Backfill: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backfill",
        abstract:
            "Measure each commit of a range and append its runs to the history, resuming where a backfill stopped.",
        discussion: """
            Measures the commits after A up to B along first parents (as git log --first-parent A..B \
            lists them), oldest first, every --every-th counted back from B, which is always \
            measured: builds each in one worktree and build directory under \
            $XDG_CACHE_HOME/pkcebench/builds (~/.cache/...), so that each costs only what changed \
            since the last, keeps the build by commit, and measures the selection --runs times with \
            that build's own bench worker processes, which check their backends first. Each run is \
            written as bench writes one (its report, latest.*, and its rows at the end of \
            history.csv, all or nothing), with the commit it measured. A commit whose history \
            already holds --runs runs of this host, build configuration and selection is skipped: \
            a backfill stopped by a signal or killed resumes where it stopped and loses no run \
            written. With --store, each run is also stored, and the runs the store holds count \
            too, whichever machine made them; --shard K/N measures the K-th of every N commits, so \
            that N machines measure a range between them (a share that stops waits until it is \
            started again). Cases a commit's build does not have are left out of its runs (its own bench \
            list says which it has). A commit that does not build, or whose bench speaks no worker \
            protocol \(WorkerProtocol.version), is skipped with a note, and the others measured. \
            Exit codes: 0 every commit measured, 64 bad options, 69 without git or swift, 70 a \
            commit skipped or a backend that fails, 73 an output that cannot be written, 75 and 77 \
            a store that cannot be reached or refuses (the runs made wait in history.csv), 130 \
            and 143 a signal.
            """)

    @Argument(help: ArgumentHelp("The commits after A up to B: A..B, each a branch, tag or commit.", valueName: "A..B"))
    var range: String

    @Option(help: ArgumentHelp("Measure every N-th commit, counted back from B.", valueName: "n"))
    var every = 1

    @Option(help: ArgumentHelp("Runs of each commit.", valueName: "k"))
    var runs = 1

    @Option(
        help: ArgumentHelp(
            "Measure the K-th of every N commits of the range, counted from the oldest: one of N machines' "
                + "shares. (default: 1/1)",
            valueName: "K/N"))
    var shard: String?

    @OptionGroup var selection: SelectionOptions
    @OptionGroup var sampling: SamplingOptions
    @OptionGroup var directory: DirectoryOptions
    @OptionGroup var store: StoreOptions
    @OptionGroup var progress: ProgressOptions

    func run() throws {
        InterruptSignals.install()
        signal(SIGPIPE, SIG_IGN)
        let ends = range.components(separatedBy: "..")
        guard ends.count == 2, !ends[0].isEmpty, !ends[1].isEmpty else {
            throw BenchError(.usage, "bench backfill takes a range A..B, such as v1.0..main, not '\(range)'")
        }
        guard (1...10_000).contains(every), (1...100).contains(runs) else {
            throw BenchError(.usage, "--every takes 1 to 10000 and --runs 1 to 100")
        }
        var shard = BackfillPlan.Shard.whole
        if let text = self.shard {
            guard let share = BackfillPlan.Shard(text) else {
                throw BenchError(.usage, "--shard takes K/N, with 1 <= K <= N <= 1000, not '\(text)'")
            }
            shard = share
        }
        let store = try store.store()
        let selection = try selection.selection()
        let plan = try sampling.plan()
        let processes = try sampling.processCount()
        let selected = try selection.cases(from: CommandContext.backends)
        guard !selected.isEmpty else { throw BenchError(.usage, "the options select no case") }
        let printer = ProgressPrinter(caseCount: 0, style: progress.style)
        let builds = try CommitBuilds.ofThisProgram()
        let range = BackfillPlan.picked(
            try builds.commits(after: builds.commit(ends[0]), upTo: builds.commit(ends[1])), every: every)
        guard !range.isEmpty else { throw BenchError(.usage, "no commit follows \(ends[0]) up to \(ends[1])") }
        let commits = shard.share(of: range)
        if shard != .whole {
            printer.info("share \(shard): \(commits.count) of the range's \(range.count) commit(s)")
        }
        // The store is read before each commit: one that is down stops the backfill before it builds.
        try store?.check()
        let results = ResultsDirectory(path: directory.path)
        try results.prepare()
        try builds.lock(progress: printer, cancellation: .signals)
        // This machine, and the configuration every commit is built in.
        var host = RunEnvironment.capture(libraries: CommandContext.libraries).host
        host.build = BuildConfiguration.current
        var measured = 0
        var skipped: [String] = []
        for (index, commit) in commits.enumerated() {
            let position = "\(index + 1)/\(commits.count) \(commit.short)"
            // What this commit's build measures of the selection, from its own bench.
            let build: DescribedBuild
            let cases: Set<CaseKey>
            switch Result(catching: { () throws(BenchError) in try prepare(commit, with: builds, progress: printer) }) {
            case .success(let prepared):
                // The cases both that build and this bench have: those a run of it holds.
                build = prepared.0
                cases = prepared.1.intersection(selected.map(\.key))
            case .failure(let error)
            where [.buildFailed, .workerFailed, .backendFailed, .malformedInput].contains(error.kind):
                // One commit that does not build, or is too old, does not stop the others.
                printer.note("skipped, \(error.message)")
                skipped.append(commit.short)
                continue
            case .failure(let error):
                throw error
            }
            guard !cases.isEmpty else {
                printer.info("\(position): its build has none of the selected cases")
                continue
            }
            // The store's runs of this commit too, whichever machine made them.
            let stored = try store?.runs(ofCommitsBeginning: String(commit.id.prefix(7))) ?? []
            let missing = BackfillPlan.runsMissing(
                of: commit, on: host, cases: cases, history: try Self.history(at: results.history.path) + stored,
                wanted: runs)
            guard missing > 0 else {
                printer.info("\(position): \(runs) run(s) in the history already")
                continue
            }
            for run in (runs - missing)..<runs {
                printer.info("\(position) (\(commit.subject)): run \(run + 1) of \(runs)")
                var source = MeasuringProcesses(
                    count: processes, command: (build.kept.executable, ["worker"]),
                    cancellation: .signals)
                source.isAnotherBuild = true
                // By key too, so that its workers are asked for no case its build does not have.
                var measurable = selection
                measurable.keys = cases.sorted()
                let progress = ProgressPrinter(caseCount: cases.count, style: progress.style)
                let session = Session.Plan.alone(
                    Pipeline(
                        backends: CommandContext.backends, selection: measurable, plan: plan, progress: progress,
                        cancellation: .signals),
                    .processes(source), environment: build.environment)
                var presenter = Presenter(
                    results: results, format: .table, progress: progress, standardOutput: { _ in })
                presenter.store = store
                _ = try presenter.run(session)
                measured += 1
            }
        }
        print("measured \(measured) run(s) of \(commits.count) commit(s); the history is \(results.history.path)")
        guard skipped.isEmpty else {
            throw BenchError(
                .buildFailed, "\(skipped.count) commit(s) not measured: \(skipped.joined(separator: ", "))")
        }
    }

    /// `commit`'s build, and what it measures of the selection, as its own `bench list` says.
    private func prepare(
        _ commit: CommitBuilds.Commit, with builds: CommitBuilds, progress: ProgressPrinter
    ) throws(BenchError) -> (DescribedBuild, Set<CaseKey>) {
        let built = try builds.build(commit, progress: progress, cancellation: .signals)
        if let seconds = built.buildSeconds {
            progress.info("built \(commit.short) in \(Int(seconds.rounded())) s")
        }
        return (try DescribedBuild(built), Set(try CommitBuilds.cases(of: built, selecting: selection.listArguments)))
    }

    /// The runs in `path`, or none when it is not there yet.
    private static func history(at path: String) throws(BenchError) -> [RunResult] {
        guard FileManager.default.fileExists(atPath: path) else { return [] }
        return try ReportFiles.runs(inHistoryAt: path)
    }
}

extension SelectionOptions {
    /// These options as a command line, for another build's `bench list`.
    var listArguments: [String] {
        var arguments: [String] = []
        for backend in filter.backendNames { arguments += ["--backend", backend] }
        for operation in filter.operationLists.joined() { arguments += ["--operation", operation.rawValue] }
        for size in filter.sizeValues { arguments += ["--size", size] }
        for pattern in filter.filters { arguments += ["--filter", pattern] }
        for pattern in filter.skips { arguments += ["--skip", pattern] }
        if threads != 1 { arguments += ["--threads", String(threads)] }
        return arguments
    }
}
