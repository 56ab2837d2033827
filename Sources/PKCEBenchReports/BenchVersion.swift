import PKCEBenchCore

/// What `bench --version` says.
package enum BenchVersion {
    package static let release = "0.1.0"

    /// One line: `bench 0.1.0 (release build for x86-64, Swift 6.3; worker protocol 3, report schema 2)`.
    ///
    /// Only facts fixed at compile time: argument-parser builds this in every process, the
    /// workers under Callgrind included, whose heap must not depend on running `swiftc --version`.
    package static var description: String {
        "bench \(release) (\(BuildConfiguration.current) build for \(BuildConfiguration.targetCPU), Swift "
            + "\(SwiftVersion.majorMinor); worker protocol \(WorkerProtocol.version), report schema "
            + "\(ReportSchema.version))"
    }
}
