import PKCE
@testable import PKCEBenchCore
import PKCEBenchTestSupport
import Testing

@Suite("Calibration and sampling")
struct SamplerTests {
    static let plan = SamplingPlan(warmup: .milliseconds(1), sampleTime: .milliseconds(1), samples: 5)

    @Test("Every case gets its samples, calibrated to the sample time", arguments: [1, 4])
    func samplesEveryCase(threads: Int) throws {
        let cases = [
            BenchmarkCase(backend: SwiftBackend(), operation: .sha256, size: 64, threads: threads),
            BenchmarkCase(backend: SwiftBackend(), operation: .challenge, size: 43, threads: threads),
        ]
        // 5 ms samples: with four threads on two cores under ThreadSanitizer, while other tests'
        // processes load the machine, a single iteration can outlast ten 1 ms samples and end the
        // calibration at one iteration.
        let plan = SamplingPlan(warmup: .milliseconds(1), sampleTime: .milliseconds(5), samples: 5)
        let measurements = try Sampler(cases: cases, plan: plan).run()
        #expect(measurements.map(\.key) == cases.map(\.key))
        for measurement in measurements {
            #expect(measurement.failure == nil)
            #expect(measurement.nanosecondsPerOperation.count == 5)
            #expect(measurement.iterations > 1)
            #expect(measurement.nanosecondsPerOperation.allSatisfy { $0 > 0 && $0.isFinite })
        }
    }

    @Test("A backend whose randomness fails mid-run fails its own cases; the others complete")
    func failureMidRun() throws {
        // The randomness breaks once its case is calibrated, however fast the machine calls it.
        let failing = FailingLaterBackend()
        let cases = [
            BenchmarkCase(backend: failing, operation: .random, size: 32),
            BenchmarkCase(backend: SwiftBackend(), operation: .random, size: 32),
            BenchmarkCase(backend: failing, operation: .sha256, size: 64),
        ]
        let observer = RecordedProgress { line in
            if line.hasPrefix("calibrated random/failing-later") { failing.failFromNow() }
        }
        let measurements = try Sampler(cases: cases, plan: Self.plan, observer: observer).run()
        #expect(measurements[0].failure == FailingLaterBackend.error.logDescription)
        #expect(measurements[0].nanosecondsPerOperation.isEmpty)
        #expect(measurements[1].failure == nil)
        #expect(measurements[1].nanosecondsPerOperation.count == 5)
        // Hashing needs no randomness: the same backend's sha256 case is unaffected.
        #expect(measurements[2].failure == nil)
    }

    @Test("Allocations are counted around the timed loop of every thread, and only there", arguments: [1, 3])
    func countsAllocations(threads: Int) throws {
        // The test backend's "allocations" are its sha256 calls: exactly one per operation, if the
        // counter is read on the measuring thread just before and after the loop, and every
        // thread's count is added up. Calibration and warm-up call sha256 too, and must not count.
        var sampler = Sampler(
            cases: [BenchmarkCase(backend: CallCountingBackend(), operation: .sha256, size: 64, threads: threads)],
            plan: Self.plan)
        sampler.allocationCounter = CallCountingBackend.counter
        let measurement = try #require(try sampler.run().first)
        #expect(measurement.samples.count == 5)
        for sample in measurement.samples {
            #expect(sample.allocations == sample.iterations * threads)
        }
        #expect(measurement.allocationsPerOperation == 1)

        // Without a counter, nothing is claimed.
        let uncounted = try Sampler(
            cases: [BenchmarkCase(backend: SwiftBackend(), operation: .sha256, size: 64)], plan: Self.plan
        ).run()
        #expect(uncounted.first?.samples.allSatisfy { $0.allocations == nil } == true)
        #expect(uncounted.first?.allocationsPerOperation == nil)
    }

    @Test("A signal stops the run between samples")
    func interruption() {
        let cases = [BenchmarkCase(backend: SwiftBackend(), operation: .sha256, size: 64)]
        let error = #expect(throws: BenchError.self) {
            try Sampler(cases: cases, plan: Self.plan, cancellation: Cancellation { 2 }).run()
        }
        #expect(error?.kind == .interrupted)
    }

    @Test("A case's loop runs outside the sampler too, as Benchmarks/ runs it")
    func caseLoop() throws {
        let loop = try CaseLoop(BenchmarkCase(backend: SwiftBackend(), operation: .verify, size: 43))
        // Every presented verifier matches its stored challenge: one point each.
        #expect(try loop.run(iterations: 100) == 100)
        let failing = try CaseLoop(
            BenchmarkCase(backend: FailingLaterBackend(failingAfter: 0), operation: .random, size: 32))
        #expect(throws: FailingLaterBackend.error) { try failing.run(iterations: 1) }
    }

    @Test("The empty case is measured like any other")
    func overheadIsMeasured() throws {
        let overhead = try #require(try HarnessOverhead.measure(plan: Self.plan))
        #expect(overhead.count == 5)
        #expect(overhead.median > 0 && overhead.median.isFinite)
    }
}
