import Benchmark
import PKCE
import PKCEBackends
import PKCEBenchCore

/// Every case of `bench`'s default suite (operation × backend × size, from the harness's own
/// case list), each running the very loop `bench` times, a thousand operations per iteration.
///
/// Wall clock and throughput are per operation (package-benchmark divides by the scaling
/// factor); `mallocCountTotal` per iteration is deterministic and gated by `Thresholds/`.
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal],
        timeUnits: .nanoseconds,
        warmupIterations: 5,
        scalingFactor: .kilo,
        maxDuration: .seconds(1),
        maxIterations: 1_000,
        // Allocation counts do not vary from run to run: any change is a change.
        thresholds: [.mallocCountTotal: .init(relative: [:], absolute: [.p90: 0])]
    )

    let cases: [BenchmarkCase]
    do {
        cases = try BenchmarkCase.defaultSuite(of: try allBackends())
    } catch {
        fatalError("a backend cannot be set up: \(error)")
    }
    for benchmarkCase in cases {
        // The case's one name, as bench's reports and `bench list` give it: `challenge/sodium/43`
        // (package-benchmark writes it as `challenge_sodium_43` in threshold file names).
        let name = benchmarkCase.description
        // Correctness before speed, as in `bench`: a backend that gives a wrong answer is not timed.
        let loop: CaseLoop
        do {
            if let failure = Correctness.check(benchmarkCase.backend) {
                throw CorrectnessFailure(backend: benchmarkCase.backend.name, reason: failure)
            }
            loop = try CaseLoop(benchmarkCase)
        } catch {
            Benchmark(name) { benchmark in benchmark.error(String(describing: error)) }
            continue
        }
        Benchmark(name) { benchmark throws in
            blackHole(try loop.run(iterations: benchmark.scaledIterations.count))
        }
    }
}

struct CorrectnessFailure: Error, CustomStringConvertible {
    let backend: String
    let reason: String
    var description: String { "\(backend) failed its correctness check: \(reason)" }
}
