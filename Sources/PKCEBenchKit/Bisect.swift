import ArgumentParser
import Foundation
import PKCEBenchCore
import PKCEBenchReports

struct Bisect: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bisect",
        abstract: "Find the first commit at which a case changed, by comparing builds of the range two at a time.",
        discussion: """
            Builds the commits it needs, one after another in one worktree and build directory under \
            $XDG_CACHE_HOME/pkcebench/builds (~/.cache/...), so that each costs only what changed, and \
            keeps each build there by commit. Compares --good with --bad first, as bench ab --against \
            does (paired processes, both builds linked again in a fresh random order of their \
            functions for every pair; with --metric instructions, exact counts under Callgrind): the \
            case must be slower or faster by at least --threshold (default \
            \(CriteriaOptions.defaultText(.time, .byProcess)), or \
            \(CriteriaOptions.defaultText(.instructions, .byProcess)) for counts). Then each step \
            compares the middle of the range with --good, asking only whether it changed that way, \
            and halves the range; the first changed commit is compared with its parent at the end. \
            When that says the same, the parent (unless it is --good) is compared with --good again, \
            and the halving resumes below it, once, if it changed. Each comparison is one sequential test of twice \
            bench ab's looks (one still open after --max-pairs is measured for as many pairs again), \
            at half --alpha, as at most two comparisons can name a commit. Follows first parents: the \
            commits that landed on the branch. Prints each step, with the change it could detect, \
            and the commit; writes each comparison's files to bisect/step-N in the output directory. Exit \
            codes: 0 a commit found, 2 none (noise, no change between the ends, or a change spread \
            over several commits, as the last line says), 64 bad options, 65 a commit whose bench \
            speaks no worker protocol \(WorkerProtocol.version), 69 without git, swift or valgrind, \
            70 a build that fails.

            The sampling defaults are bench ab's: --samples 600, --sample-time 0.25, --warmup 1, \
            --processes 20 pairs per look, --max-pairs 80 (160 with the second attempt).
            """)

    @Option(help: ArgumentHelp("A commit at which the case is as it was (a branch, tag or commit).", valueName: "ref"))
    var good: String

    @Option(help: ArgumentHelp("A later commit at which it changed.", valueName: "ref"))
    var bad: String

    @Option(
        name: .customLong("case"),
        help: ArgumentHelp("The case, as bench list names it: operation/backend/size.", valueName: "name"))
    var caseName: String

    @OptionGroup var sampling: SamplingOptions
    @OptionGroup var gate: GateOptions
    @OptionGroup var metric: MetricOptions
    @OptionGroup var criteria: CriteriaOptions
    @OptionGroup var directory: DirectoryOptions
    @OptionGroup var progress: ProgressOptions

    func run() throws {
        Presenter.prepareProcess()
        let key = try caseKey()
        let criteria = Bisection.criteria(try self.criteria.criteria(of: metric.metric, pairing: .byProcess))
        let printer = ProgressPrinter(caseCount: 0, style: progress.style)
        let builds = try CommitBuilds.ofThisProgram()
        let good = try builds.commit(self.good)
        let bad = try builds.commit(self.bad)
        let range = try builds.commits(after: good, upTo: bad)
        guard !range.isEmpty else { throw BenchError(.usage, "no commit follows \(good.short) up to \(bad.short)") }
        let counter = try InstructionCounter.ofThisProgram(counting: metric.metric, of: Selection(keys: [key]))
        var paired = try PairedSampling(sampling, gate)
        paired.looks = Bisection.schedule(paired.looks)
        let comparison = CommitComparison(
            sampling: paired, progress: progress.style, criteria: criteria, counter: counter)
        try builds.lock(progress: printer, cancellation: .signals)
        printer.info(
            "bisecting \(key) over \(range.count) commit(s) after \(good.short) up to \(bad.short), "
                + "about \(Int((log2(Double(range.count))).rounded(.up)) + 2) comparisons")

        let steps = StepLog(output: URL(fileURLWithPath: directory.path).appendingPathComponent("bisect"))
        let bisection = Bisection(
            commits: [good] + range, threshold: criteria.threshold,
            compare: { older, newer, direction throws(BenchError) in
                let sides = try BothSides { side throws(BenchError) in
                    try steps.build(side == .baseline ? older : newer, with: builds, progress: printer)
                }
                return try compare(
                    sides, direction: direction, key: key, with: comparison, output: steps.nextDirectory())
            },
            report: { step in
                // Each line as it is decided, also into a pipe.
                FileHandle.standardOutput.write(Data((Self.line(for: step, number: steps.count) + "\n").utf8))
            })
        switch try bisection.run() {
        case .found(let step):
            let change = step.change.map { " (\(Self.percent($0)))" } ?? ""
            print("first changed: \(step.newer.id) \(step.newer.subject)\(change)")
        case .undecided(let reason):
            print("undecided: \(reason)")
            throw ExitCode(ExitStatus.inconclusive.rawValue)
        }
    }

    /// `operation/backend/size`, with `×threads` as reports write it.
    private func caseKey() throws(BenchError) -> CaseKey {
        guard let key = CaseKey(name: caseName) else {
            throw BenchError(.usage, "--case takes a case's name, operation/backend/size such as sha256/swift/64")
        }
        let selection = Selection(keys: [key], threads: key.threads)
        guard try !selection.cases(from: CommandContext.backends).isEmpty else {
            throw BenchError(.usage, "this bench has no case \(key): bench list names them")
        }
        return key
    }

    /// Compares two commits' builds in `direction` (the newer as the current side for a slowdown,
    /// as the baseline for a speed-up), or with `nil`, newer against older in either direction.
    private func compare(
        _ builds: BothSides<DescribedBuild>, direction: Bisection.Direction?, key: CaseKey,
        with comparison: CommitComparison, output: URL
    ) throws(BenchError) -> Bisection.Step {
        let older = builds.baseline
        let newer = builds.current
        let (baseline, current) = direction == .faster ? (newer, older) : (older, newer)
        let (compared, pairs) = try comparison.compare(baseline: baseline, current: current, key: key, output: output)
        return Bisection.Step(
            older: older.commit, newer: newer.commit, asked: direction, verdict: compared?.verdict,
            change: compared?.change, detectable: compared?.detectable, pairs: pairs)
    }

    static func line(for step: Bisection.Step, number: Int) -> String {
        let question = step.direction.map { " \($0.rawValue)?" } ?? ""
        let change = step.change.map { ", \(percent($0))" } ?? ""
        let pairs = step.pairs.map { ", \($0) pairs" } ?? ""
        let detectable = step.detectable.map { ", detectable \(percent($0))" } ?? ""
        return "step \(number): \(step.newer.short) against \(step.older.short)\(question) "
            + "\(step.decision.rawValue)\(change)\(pairs)\(detectable)"
    }

    static func percent(_ change: Double) -> String {
        (change >= 0 ? "+" : "−") + String(format: "%.2f%%", abs(change) * 100)
    }
}

/// The builds a bisection made, and the directory of each comparison's files.
private final class StepLog {
    let output: URL
    private(set) var count = 0
    private var kept: [String: DescribedBuild] = [:]

    init(output: URL) { self.output = output }

    func nextDirectory() -> URL {
        count += 1
        return output.appendingPathComponent("step-\(count)")
    }

    /// `commit`'s build, once its workers are known to speak this bench's protocol.
    func build(
        _ commit: CommitBuilds.Commit, with builds: CommitBuilds, progress: ProgressPrinter
    ) throws(BenchError) -> DescribedBuild {
        if let build = kept[commit.id] { return build }
        let built = try builds.build(commit, progress: progress, cancellation: .signals)
        if let seconds = built.buildSeconds {
            progress.info("built \(commit.short) in \(Int(seconds.rounded())) s")
        }
        let build = try DescribedBuild(built)
        kept[commit.id] = build
        return build
    }
}
