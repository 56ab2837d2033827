/// The machine a run was made on and how its binary was compiled: two runs are of one machine when
/// their hosts are equal, every fact alike. That is the one answer to "the same machine?" that
/// each analysis of runs asks: a series of `bench history --changes`, the run-to-run spread,
/// `bench backfill`'s resume and `--confirm`. What changes on one machine over time (its kernel,
/// Swift, libraries) is not its host but its environment (``RunEnvironment``).
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
}
