/// The machine a run was made on and how its binary was compiled: what decides whether two runs'
/// figures are of one machine. Each question a comparison of runs asks of it is one method here.
package struct Host: Sendable, Hashable {
    /// The CPU model, from `/proc/cpuinfo`.
    package var cpu: String
    /// The CPU features that change these results (`sha_ni avx2 avx512f`), those present, space-separated.
    package var cpuFlags: String
    /// Logical cores available to the process.
    package var cores: Int
    package var build: BuildConfiguration
    /// As ``BuildConfiguration/targetCPU`` gives it.
    package var targetCPU: String

    package init(cpu: String, cpuFlags: String, cores: Int, build: BuildConfiguration, targetCPU: String) {
        self.cpu = cpu
        self.cpuFlags = cpuFlags
        self.cores = cores
        self.build = build
        self.targetCPU = targetCPU
    }

    /// The same CPU model with the same listed flags.
    package func isSameMachine(as other: Host) -> Bool {
        cpu == other.cpu && cpuFlags == other.cpuFlags
    }

    /// The same machine running binaries of the same build configuration: what `bench backfill`
    /// counts a run of toward a commit, and what `bench history --changes --confirm` measures again.
    package func isSameMachineAndBuild(as other: Host) -> Bool {
        isSameMachine(as: other) && build == other.build
    }

    /// One series of ``ChangePointAnalysis``: the same machine, build configuration and target CPU;
    /// cores aside.
    package func isSameSeries(as other: Host) -> Bool {
        isSameMachineAndBuild(as: other) && targetCPU == other.targetCPU
    }

    /// Feeds `hasher` what ``isSameSeries(as:)`` compares.
    package func hashSeries(into hasher: inout Hasher) {
        hasher.combine(cpu)
        hasher.combine(cpuFlags)
        hasher.combine(build)
        hasher.combine(targetCPU)
    }
}
