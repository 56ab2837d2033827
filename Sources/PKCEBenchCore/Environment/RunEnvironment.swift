import Foundation

/// How and where a run was made: recorded in every row of its reports, so that results are
/// never compared without knowing what differed.
package struct RunEnvironment: Sendable, Equatable {
    /// The text of a ``RunID``, such as `20261122T041556.042Z-5106788-4f0c2a9e`; rows written
    /// before its grammar may hold other text.
    package var runID: String
    /// When the run started, ISO 8601 in UTC with milliseconds.
    package var timestamp: String
    /// The short git commit: the one the executable was built from when it recorded one, else
    /// that of the working tree the run was made in (``commitSource`` says which).
    package var recordedCommit: RecordedCommit
    /// Where ``recordedCommit`` comes from; `nil` in reports older than the column.
    package var commitSource: CommitSource?
    /// The configuration this binary was compiled in.
    package var build: BuildConfiguration
    /// As ``BuildConfiguration/targetCPU`` gives it.
    package var targetCPU: String
    /// The CPU model, from `/proc/cpuinfo`.
    package var cpu: String
    /// The CPU features that change these results (`sha_ni avx2 avx512f`), those present, space-separated.
    package var cpuFlags: String
    /// Logical cores available to this process.
    package var cores: Int
    /// The kernel release, from `uname -r`.
    package var kernel: String
    package var swift: String
    /// Each backend's `PKCEBackend.library`, by backend name; a backend that names none is left out.
    package var libraries: [String: String]

    /// Creates an environment from known values; ``capture(libraries:buildCommit:at:)`` reads the real ones.
    package init(
        runID: String, timestamp: String, commit: RecordedCommit, build: BuildConfiguration,
        targetCPU: String = BuildConfiguration.targetCPU, cpu: String, cpuFlags: String,
        cores: Int, kernel: String, swift: String, libraries: [String: String], commitSource: CommitSource? = nil
    ) {
        self.runID = runID
        self.timestamp = timestamp
        self.recordedCommit = commit
        self.commitSource = commitSource
        self.build = build
        self.targetCPU = targetCPU
        self.cpu = cpu
        self.cpuFlags = cpuFlags
        self.cores = cores
        self.kernel = kernel
        self.swift = swift
        self.libraries = libraries
    }

    /// Reads the environment of this process, now; `libraries` holds the run's backends'
    /// `PKCEBackend.library`, by backend name, `buildCommit` the commit the executable was built
    /// from when it recorded one (an unknown one when it is not a commit,
    /// ``RecordedCommit/init(recorded:)``), and `date` is the start of the run.
    package static func capture(
        libraries: [String: String], buildCommit: String? = nil, at date: Date = Date()
    ) -> RunEnvironment {
        // A ref name or free text is not recorded: `--confirm` would hand it to git.
        let built = buildCommit.flatMap { $0.isEmpty ? nil : RecordedCommit(recorded: $0) }
        let commit = built ?? RecordedCommit.checkedOut()
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        // `2026-11-22T04:15:56.042Z`; in the run's id `20261122T041556.042Z`, safe in file names.
        let timestamp = formatter.string(from: date)
        return RunEnvironment(
            runID: RunID(startedAt: timestamp, commit: commit).description,
            timestamp: timestamp,
            commit: commit,
            build: BuildConfiguration.current,
            targetCPU: BuildConfiguration.targetCPU,
            cpu: SystemFacts.cpuModel(),
            cpuFlags: SystemFacts.cpuFlags(),
            cores: ProcessInfo.processInfo.activeProcessorCount,
            kernel: SystemFacts.kernelRelease(),
            swift: SwiftVersion.current,
            libraries: libraries.filter { !$0.value.isEmpty }, commitSource: built == nil ? .workingTree : .build)
    }

    /// The commit as the `commit` column records it: ``recordedCommit``'s text.
    package var commit: String { recordedCommit.description }

    /// The machine and build configuration: what ``cpu``, ``cpuFlags``, ``cores``, ``build`` and
    /// ``targetCPU`` record.
    package var host: Host {
        Host(cpu: cpu, cpuFlags: cpuFlags, cores: cores, build: build, targetCPU: targetCPU)
    }

    /// The facts whose difference makes timings incomparable, by name, for warnings: `cpu`,
    /// `kernel` (usually another host, even with the same CPU model), `target_cpu`, `swift`, and
    /// each backend's library as `NAME library`. An empty fact is unknown, not different.
    package var comparableFacts: [String: String] {
        var facts = ["cpu": cpu, "kernel": kernel, "target_cpu": targetCPU, "swift": swift]
        for (backend, library) in libraries {
            facts["\(backend) library"] = library
        }
        return facts
    }
}

/// Where a run's commit comes from.
package enum CommitSource: String, Sendable, Equatable {
    /// The executable recorded the commit it was built from (the PKCEBenchBuildCommit plugin).
    case build
    /// The executable recorded none: the commit of the working tree the run was made in, which
    /// may not be the build's.
    case workingTree = "working-tree"
}
