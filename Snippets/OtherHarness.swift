import PKCEBackends
import PKCEBenchCore

// bench's default suite, each case checked and then run through the very loop bench times: what
// a harness with a main of its own (package-benchmark, say) needs from PKCEBenchCore. Here, one
// pass of a thousand operations per case, timed with the standard clock.
var checksum: UInt64 = 0
for benchmarkCase in try BenchmarkCase.defaultSuite(of: try allBackends()) {
    if let failure = Correctness.check(benchmarkCase.backend) {
        print("\(benchmarkCase): not timed: \(failure)")
        continue
    }
    let loop = try CaseLoop(benchmarkCase)
    let elapsed = try ContinuousClock().measure { checksum &+= try loop.run(iterations: 1_000) }
    let (seconds, attoseconds) = (elapsed / 1_000).components
    print("\(benchmarkCase): \(seconds * 1_000_000_000 + attoseconds / 1_000_000_000) ns per operation")
}
// The loops' results, used, so that no optimiser removes the work.
print("checksum \(checksum)")
