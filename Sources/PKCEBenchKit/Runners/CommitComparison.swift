import Foundation
import PKCEBenchCore
import PKCEBenchReports

extension RevisionBuild {
    /// `revision`'s build of this program's product, in this configuration, from the repository
    /// of the current directory, in the cache of `bench ab --against`.
    static func ofThisProgram(_ revision: String) throws(BenchError) -> RevisionBuild {
        try RevisionBuild(
            revision: revision, in: FileManager.default.currentDirectoryPath,
            configuration: BuildConfiguration.current,
            product: URL(fileURLWithPath: benchExecutable).lastPathComponent, cache: RevisionBuild.defaultCache())
    }
}

extension CommitBuilds {
    /// The builds of this program's product like ``RevisionBuild/ofThisProgram(_:)``'s.
    static func ofThisProgram() throws(BenchError) -> CommitBuilds {
        try CommitBuilds(like: RevisionBuild.ofThisProgram("HEAD"))
    }
}

/// A commit's kept build, with what its worker says of it.
struct DescribedBuild {
    let kept: CommitBuilds.Kept
    let facts: WorkerProtocol.BuildFacts

    var commit: CommitBuilds.Commit { kept.commit }

    /// Asks the build's worker for its facts, which a worker of another protocol cannot give.
    ///
    /// - Throws: ``BenchError``: `.malformedInput` naming the commit.
    init(_ kept: CommitBuilds.Kept) throws(BenchError) {
        self.kept = kept
        do {
            facts = try WorkerProtocol.check(executableAt: kept.executable)
        } catch  where error.kind == .interrupted || error.kind == .terminated {
            throw error
        } catch {
            throw .malformed(
                "commit \(kept.commit.short)",
                "its bench speaks no worker protocol \(WorkerProtocol.version): it is older than this bench reaches")
        }
    }

    /// The environment of a run of this build on this machine, recording its commit.
    var environment: RunEnvironment {
        var environment = RunEnvironment.capture(libraries: facts.libraries, buildCommit: commit.short)
        environment.build = facts.build
        environment.targetCPU = facts.targetCPU
        environment.swift = facts.swift
        return environment
    }
}

/// Two commits' kept builds compared on one case as `bench ab --against` compares two builds
/// (paired processes, both linked again in a fresh order for every pair; or exact counts under
/// Callgrind): what `bench bisect` and `bench history --changes --confirm` measure.
struct CommitComparison {
    var sampling: PairedSampling
    var progress: ProgressPrinter.Style
    var criteria: ComparisonCriteria
    /// Set to count instructions rather than time.
    var counter: InstructionCounter?

    /// Compares `current` with `baseline` on `key`, writing `bench ab`'s files to `output`.
    ///
    /// - Returns: The case's comparison (`nil` when either build lacks the case) and how many
    ///   pairs decided it, for a timed one.
    func compare(
        baseline: DescribedBuild, current: DescribedBuild, key: CaseKey, output: URL
    ) throws(BenchError) -> (compared: CaseComparison?, pairs: Int?) {
        guard baseline.facts.swift == current.facts.swift else {
            throw BenchError(
                .malformedInput,
                "cannot compare \(baseline.commit.short) (Swift \(baseline.facts.swift)) with \(current.commit.short) "
                    + "(Swift \(current.facts.swift)): the compiler would be measured too; remove the cache of builds")
        }
        let progress = ProgressPrinter(caseCount: 0, style: progress)
        // The current side is another build too: its own facts, not this process's.
        let plan = Session.Plan.thisProgram(
            .relinked(baseline: baseline.kept.linkCommand, current: current.kept.linkCommand),
            selection: Selection(
                backends: [key.backend], operations: [key.operation], sizes: [key.size], keys: [key],
                threads: key.threads),
            sampling: sampling, criteria: criteria, counter: counter, baselineCommit: baseline.commit.short,
            progress: progress, current: Session.Build(facts: current.facts, environment: current.environment))
        let presenter = Presenter(
            results: ResultsDirectory(path: output.path), format: .table, progress: progress, standardOutput: { _ in })
        guard let comparison = try presenter.run(plan).comparison else { return (nil, nil) }
        let compared = comparison.cases.first { $0.key == key }
        return (compared, compared?.look.map { comparison.looks.pairs(atLook: $0) })
    }
}
