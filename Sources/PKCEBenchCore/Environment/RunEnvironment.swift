internal import CPKCEHarness
import Foundation

/// How and where a run was made: recorded in every row of its reports, so that results are
/// never compared without knowing what differed.
package struct RunEnvironment: Sendable, Equatable {
    /// `<UTC timestamp>-<short commit>-<nonce>`, such as `20261122T041556.042Z-5106788-4f0c2a9e`:
    /// names the run's files. The nonce, 32 random bits, keeps apart runs that start in the same
    /// millisecond, as concurrent runs in one results directory do.
    package var runID: String
    /// When the run started, ISO 8601 in UTC with milliseconds.
    package var timestamp: String
    /// The short git commit of the working tree, `-dirty` appended when tracked files are
    /// modified, or `unknown` outside a git checkout.
    package var commit: String
    /// `release` or `debug`: the configuration this binary was compiled in.
    package var build: String
    /// The instruction set the Swift code was compiled for, as ``BuildConfiguration/targetCPU``
    /// gives it: `x86-64` unless a flag such as `-target-cpu native` asked for more.
    package var targetCPU: String
    /// The CPU model, from `/proc/cpuinfo`.
    package var cpu: String
    /// The CPU features that change these results (`sha_ni avx2 avx512f`), those present, space-separated.
    package var cpuFlags: String
    /// Logical cores available to this process.
    package var cores: Int
    /// The kernel release, from `uname -r`.
    package var kernel: String
    /// The version of the Swift compiler that built this binary.
    package var swift: String
    /// The library each backend runs, by backend name, as its `PKCEBackend.library` says:
    /// `["openssl": "OpenSSL 3.0.22 25 Aug 2026", "sodium": "libsodium 1.0.18", …]`. A backend that
    /// names none is left out.
    package var libraries: [String: String]

    /// Creates an environment from known values; ``capture(libraries:at:)`` reads the real ones.
    package init(
        runID: String, timestamp: String, commit: String, build: String,
        targetCPU: String = BuildConfiguration.targetCPU, cpu: String, cpuFlags: String,
        cores: Int, kernel: String, swift: String, libraries: [String: String]
    ) {
        self.runID = runID
        self.timestamp = timestamp
        self.commit = commit
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
    /// `PKCEBackend.library`, by backend name, and `date` is the start of the run.
    package static func capture(libraries: [String: String], at date: Date = Date()) -> RunEnvironment {
        let commit = SystemFacts.gitCommit()
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        // `2026-11-22T04:15:56.042Z`; in the run's id `20261122T041556.042Z`, safe in file names.
        let timestamp = formatter.string(from: date)
        // Eight hex digits from the system's CSPRNG tell apart runs that start in one millisecond.
        let nonce = String(format: "%08x", UInt32.random(in: .min ... .max))
        return RunEnvironment(
            runID: "\(timestamp.filter { $0 != "-" && $0 != ":" })-\(commit)-\(nonce)",
            timestamp: timestamp,
            commit: commit,
            build: BuildConfiguration.current,
            targetCPU: BuildConfiguration.targetCPU,
            cpu: SystemFacts.cpuModel(),
            cpuFlags: SystemFacts.cpuFlags(),
            cores: ProcessInfo.processInfo.activeProcessorCount,
            kernel: SystemFacts.kernelRelease(),
            swift: SwiftVersion.current,
            libraries: libraries.filter { !$0.value.isEmpty })
    }

    /// The facts whose difference makes timings incomparable, by name, for warnings: `cpu`,
    /// `kernel`, `target_cpu`, `swift`, and each backend's library as `NAME library`.
    /// `target_cpu` is empty in reports written before the column existed: unknown, not
    /// different. A different kernel release is usually another machine or host, even where the
    /// CPU's model name is the same: every case can move with it, C libraries too.
    package var comparableFacts: [String: String] {
        var facts = ["cpu": cpu, "kernel": kernel, "target_cpu": targetCPU, "swift": swift]
        for (backend, library) in libraries {
            facts["\(backend) library"] = library
        }
        return facts
    }
}

/// The configuration this module was compiled in.
package enum BuildConfiguration {
    package static var current: String {
        #if DEBUG
        "debug"
        #else
        "release"
        #endif
    }

    /// The instruction set the Swift code was compiled for: `x86-64`, `x86-64-v2`, `x86-64-v3`
    /// (AVX2) or `x86-64-v4` (AVX-512), the x86-64 microarchitecture levels; `arm64` and others
    /// by name.
    ///
    /// `swift build` compiles for the baseline of the architecture; `-Xswiftc -target-cpu
    /// -Xswiftc native` for the build machine. Swift's `#if` cannot tell them apart, but the
    /// compiler hands its target CPU to the C headers it imports, whose predefined macros can.
    package static var targetCPU: String {
        String(cString: CPKCEHarness_targetCPU())
    }
}
