import Foundation
import PKCEBenchKit

/// A new, empty directory under the system's temporary directory: tests write nowhere else.
public func temporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("pkcebench-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// Runs made up from a seeded generator: realistic noise, but the same numbers on every test run.
public enum SyntheticRun {
    /// The default suite's cases for the four shipped backends: 56 of them.
    public static let keys: [CaseKey] = ["openssl", "sodium", "swift", "crypto"].flatMap { backend in
        BenchmarkOperation.allCases.flatMap { operation in
            operation.defaultSizes.map { CaseKey(backend: backend, operation: operation, size: $0, threads: 1) }
        }
    }

    /// A run of every case in ``keys`` with `samples` samples each.
    ///
    /// Each case's samples are its base time times 1 + 2% Gaussian noise, with one sample in ten
    /// slowed by up to a further 30%, as a preempted sample on a shared machine is.
    ///
    /// - Parameters:
    ///   - runID: The run's id.
    ///   - build: `release` or `debug`.
    ///   - openssl: The OpenSSL version to record.
    ///   - targetCPU: The compile target to record; empty as in reports older than the column.
    ///   - seed: Picks the noise; the same seed gives the same run.
    ///   - scale: Multiplies the samples of the cases it names.
    public static func report(
        runID: String = "20261122T000000Z-abc1234", build: String = "release",
        openssl: String = "OpenSSL 3.0.19 27 Jan 2026", targetCPU: String = "x86-64", seed: UInt64 = 1,
        samples: Int = 30,
        scale: [CaseKey: Double] = [:]
    ) -> RunReport {
        var generator = SplitMix64(seed: seed)
        let environment = RunEnvironment(
            runID: runID, timestamp: "2026-11-22T00:00:00Z", commit: "abc1234", build: build, targetCPU: targetCPU,
            cpu: "Test CPU",
            cpuFlags: "sha_ni avx2", cores: 2, kernel: "6.1.0", swift: "6.3.1", openssl: openssl, libsodium: "1.0.18")
        let measurements = keys.enumerated().map { index, key in
            let base = 100.0 + 37.0 * Double(index)
            let values = (0..<samples).map { _ in
                var value = base * (1 + 0.02 * generator.nextGaussian())
                if generator.nextUnit() < 0.1 { value *= 1 + 0.3 * generator.nextUnit() }
                return value * (scale[key] ?? 1)
            }
            return CaseMeasurement(key: key, iterations: 1000, nanosecondsPerOperation: values, failure: nil)
        }
        return RunReport(environment: environment, measurements: measurements)
    }
}

/// A small, fast, seedable generator (Steele, Lea and Flood's SplitMix64).
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    mutating func nextUnit() -> Double {
        Double(next() >> 11) / Double(1 << 53)
    }

    /// Standard normal, by the Box–Muller transform.
    mutating func nextGaussian() -> Double {
        let u1 = max(nextUnit(), .leastNonzeroMagnitude)
        let u2 = nextUnit()
        return (-2 * log(u1)).squareRoot() * cos(2 * .pi * u2)
    }
}
