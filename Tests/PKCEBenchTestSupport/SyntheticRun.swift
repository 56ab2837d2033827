import Foundation
import PKCEBenchCore

/// A new, empty directory under the system's temporary directory: tests write nowhere else.
///
/// It lies in one directory per test process, which goes when the process exits, so that a test
/// run leaves nothing behind, whichever tests clean up after themselves.
package func temporaryDirectory() throws -> URL {
    TestProcessDirectory.removedAtExit
    let url = TestProcessDirectory.url.appendingPathComponent(UUID().uuidString)
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

private enum TestProcessDirectory {
    static let url = FileManager.default.temporaryDirectory.appendingPathComponent("pkcebench-\(UUID().uuidString)")

    /// Registers the removal once, when the first directory is made.
    static let removedAtExit: Void = {
        atexit { try? FileManager.default.removeItem(at: TestProcessDirectory.url) }
    }()
}

/// Runs made up from a seeded generator: realistic noise, but the same numbers on every test run.
package enum SyntheticRun {
    /// The default suite's cases for the four shipped backends: 64 of them.
    package static let keys: [CaseKey] = ["openssl", "sodium", "swift", "crypto"].flatMap { backend in
        BenchmarkOperation.allCases.flatMap { operation in
            operation.defaultSizes.map { CaseKey(backend: backend, operation: operation, size: $0, threads: 1) }
        }
    }

    /// A run of every case in ``keys`` with `samples` samples each, taken by `processes`
    /// measuring processes in turn.
    ///
    /// Each case's samples are its base time times its process's bias (1 + `processBias`
    /// Gaussian noise, as code layout gives a process) times 1 + `noise` Gaussian noise, with one
    /// sample in ten slowed by up to a further 30%, as a preempted sample on a shared machine is.
    ///
    /// - Parameters:
    ///   - runID: The run's id.
    ///   - build: `release` or `debug`.
    ///   - openssl: The OpenSSL version to record.
    ///   - targetCPU: The compile target to record; empty as in reports older than the column.
    ///   - kernel: The kernel release to record.
    ///   - seed: Picks the noise; the same seed gives the same run.
    ///   - samples: Samples per case.
    ///   - processes: How many processes took them, in equal blocks.
    ///   - processBias: The standard deviation of a process's bias.
    ///   - noise: The standard deviation of a sample's own noise.
    ///   - busy: Slows every sample of the run by 1 + `busy` × (1 to 3): a run made while other
    ///     tenants had the machine, whose fastest samples move too.
    ///   - scale: Multiplies the samples of the cases it names.
    ///   - failed: Cases that failed, with this reason, instead of being measured.
    package static func report(
        runID: String = "20261122T000000.000Z-abc1234-00000000", build: BuildConfiguration = .release,
        openssl: String = "OpenSSL 3.0.19 27 Jan 2026", targetCPU: String = "x86-64", kernel: String = "6.1.0",
        seed: UInt64 = 1,
        samples: Int = 30, processes: Int = 5, processBias: Double = 0.003, noise: Double = 0.02, busy: Double = 0,
        scale: [CaseKey: Double] = [:], failed: [CaseKey: String] = [:]
    ) -> RunResult {
        var generator = SplitMix64(seed: seed)
        let environment = RunEnvironment(
            runID: runID, timestamp: "2026-11-22T00:00:00.000Z", commit: RecordedCommit(recorded: "abc1234"),
            build: build,
            targetCPU: targetCPU,
            cpu: "Test CPU",
            cpuFlags: "sha_ni avx2", cores: 2, kernel: kernel, swift: "6.3.1",
            libraries: ["openssl": openssl, "sodium": "libsodium 1.0.18", "swift": "PKCE (pure Swift)"])
        let measurements = keys.enumerated().map { index, key in
            let base = 100.0 + 37.0 * Double(index)
            let biases = (0..<processes).map { _ in 1 + processBias * generator.nextGaussian() }
            let values = (0..<samples).map { sample in
                let process = sample * processes / samples
                var value = base * biases[process] * (1 + noise * generator.nextGaussian())
                if generator.nextUnit() < 0.1 { value *= 1 + 0.3 * generator.nextUnit() }
                if busy > 0 { value *= 1 + busy * (1 + 2 * generator.nextUnit()) }
                return Sample(
                    iterations: 1000, nanosecondsPerOperation: value * (scale[key] ?? 1), process: process)
            }
            return failed[key].map { CaseMeasurement.failed(key, reason: $0) }
                ?? CaseMeasurement(key: key, samples: values, failure: nil)
        }
        return RunResult(environment: environment, measurements: measurements)
    }

    /// Earlier runs of the build that ``report(runID:build:openssl:targetCPU:kernel:seed:samples:processes:processBias:noise:busy:scale:failed:)``
    /// makes, on its host: a history with `runs` runs of one commit, whose cases' spread between
    /// runs is then measured. Each case of each run moves by its own 1% (log-normal) on top, the run
    /// effect that runs made apart show and the tests put on the runs they compare.
    package static func history(runs: Int = 6) -> [RunResult] {
        var generator = SplitMix64(seed: 999)
        return (0..<runs).map { run in
            report(
                runID: String(format: "20261121T0000%02d.000Z-abc1234-%08x", run, run), seed: 1000 + UInt64(run),
                scale: Dictionary(uniqueKeysWithValues: keys.map { ($0, exp(0.01 * generator.nextGaussian())) }))
        }
    }

    /// A history of `runs` runs, one a minute, each of its own commit unless `commits` says
    /// otherwise: `commits[i]` is run i's. Its samples have 0.5% noise, so that a case's fastest
    /// sample moves by a few tenths of a percent from run to run, as on a quiet host.
    ///
    /// - Parameters:
    ///   - scale: Multiplies the samples of a run, by its index, in the cases it names.
    ///   - openssl: The OpenSSL version a run records, by its index; the default otherwise.
    package static func series(
        runs: Int, commits: [String]? = nil, scale: (Int) -> [CaseKey: Double] = { _ in [:] },
        openssl: (Int) -> String? = { _ in nil }
    ) -> [RunResult] {
        (0..<runs).map { index in
            let commit = commits?[index] ?? String(format: "c%06d", index)
            let minute = String(format: "%02d:%02d", index / 60, index % 60)
            var run = report(
                runID: "20261120T\(minute.filter { $0 != ":" })00.000Z-\(commit)-0000000\(index % 10)",
                openssl: openssl(index) ?? "OpenSSL 3.0.19 27 Jan 2026", seed: 2000 + UInt64(index), noise: 0.005,
                scale: scale(index))
            run.environment.recordedCommit = RecordedCommit(recorded: commit)
            run.environment.timestamp = "2026-11-20T\(minute):00.000Z"
            return run
        }
    }

    /// The spread between runs that ``history(runs:)`` measures, as `bench compare` reads it.
    package static func runToRun(runs: Int = 6) -> RunToRunSpread {
        let rows = history(runs: runs).flatMap { run in
            run.summaries.map { (environment: run.environment, summary: $0) }
        }
        return RunToRunSpread(history: rows, like: report().environment, excluding: [])
    }

    /// Two builds measured side by side, as `bench ab` measures them: `pairs` pairs of processes,
    /// each taking `turns` samples per case of each build back to back.
    ///
    /// The machine's load drifts between turns and slows both samples of a turn alike (by up to
    /// `drift`, here 40% by default, far more than any change sought); each process carries its
    /// own small bias; each sample its own 2% noise.
    ///
    /// - Returns: The baseline's report and the current build's.
    package static func pairedReports(
        seed: UInt64 = 1, pairs: Int = 20, turns: Int = 20, drift: Double = 0.4, processBias: Double = 0.003,
        scale: [CaseKey: Double] = [:]
    ) -> (baseline: RunResult, current: RunResult) {
        var generator = SplitMix64(seed: seed)
        var samples: [[CaseMeasurement]] = [[], []]
        for (index, key) in keys.enumerated() {
            let base = 100.0 + 37.0 * Double(index)
            var taken: [[Sample]] = [[], []]
            for pair in 0..<pairs {
                let biases = (0..<2).map { _ in 1 + processBias * generator.nextGaussian() }
                for _ in 0..<turns {
                    let load = 1 + drift * generator.nextUnit()
                    for build in 0..<2 {
                        let value =
                            base * load * biases[build] * (1 + 0.02 * generator.nextGaussian())
                            * (build == 1 ? scale[key] ?? 1 : 1)
                        taken[build].append(Sample(iterations: 1000, nanosecondsPerOperation: value, process: pair))
                    }
                }
            }
            for build in 0..<2 { samples[build].append(CaseMeasurement(key: key, samples: taken[build], failure: nil)) }
        }
        let reports = ["20261122T000000Z-abc1234-baseline", "20261122T000000Z-abc1234"].enumerated().map {
            build, runID in
            RunResult(
                environment: RunEnvironment(
                    runID: runID, timestamp: "2026-11-22T00:00:00.000Z", commit: RecordedCommit(recorded: "abc1234"),
                    build: .release,
                    cpu: "Test CPU", cpuFlags: "sha_ni avx2", cores: 2, kernel: "6.1.0", swift: "6.3.1",
                    libraries: ["openssl": "OpenSSL 3.0.19 27 Jan 2026", "sodium": "libsodium 1.0.18"]),
                measurements: samples[build])
        }
        return (reports[0], reports[1])
    }
}

/// Noise for made-up runs, from the core's seeded generator.
extension SplitMix64 {
    /// Uniform in [0, 1).
    package mutating func nextUnit() -> Double {
        Double(next() >> 11) / Double(1 << 53)
    }

    /// Standard normal, by the Box–Muller transform.
    package mutating func nextGaussian() -> Double {
        let u1 = max(nextUnit(), .leastNonzeroMagnitude)
        let u2 = nextUnit()
        return (-2 * log(u1)).squareRoot() * cos(2 * .pi * u2)
    }
}

extension CaseSummary {
    /// A timed case's summary with the figures a comparison of runs made apart reads, its median
    /// and its fastest sample; the other times are the median's.
    package static func timed(_ key: CaseKey, median: Double, fastest: Double, samples: Int = 0) -> CaseSummary {
        let times = Times(
            median: median, p10: median, p90: median, fastest: fastest, mean: median, standardDeviation: 0,
            coefficientOfVariation: 0, operationsPerSecond: 1e9 / median, megabytesPerSecond: nil)
        return CaseSummary(key: key, metric: .time, samples: samples, outcome: .timed(times))
    }
}

extension CaseMeasurement {
    /// A case timed in one process, every sample with the same iterations.
    package init(key: CaseKey, iterations: Int, nanosecondsPerOperation: [Double], failure: String?) {
        self.init(
            key: key,
            samples: nanosecondsPerOperation.map { Sample(iterations: iterations, nanosecondsPerOperation: $0) },
            failure: failure)
    }
}
