/// Cases calibrated and warmed up, each sampled when asked: see ``Sampler/calibrated()``.
///
/// Not thread-safe: one caller takes the samples, one at a time.
package final class SamplingSession {
    /// The cases, in the sampler's order.
    package let cases: [BenchmarkCase]
    /// Operations per thread in one sample of each case; 0 for a case that failed.
    package internal(set) var iterations: [Int]
    /// Why each case failed, if it did; a failed case is sampled no more.
    package internal(set) var failures: [String?]
    let threads: SamplingThreads
    private let process: Int

    init(cases: [BenchmarkCase], threads: SamplingThreads, process: Int) {
        self.cases = cases
        self.threads = threads
        self.process = process
        self.iterations = Array(repeating: 0, count: cases.count)
        self.failures = Array(repeating: nil, count: cases.count)
    }

    deinit {
        threads.shutdown()
    }

    /// Returns `nil` when the case has failed, now or before; ``failures`` says why.
    package func sample(_ index: Int) -> Sample? {
        guard failures[index] == nil else { return nil }
        let benchmark = cases[index]
        do {
            let measured = try threads.measure(benchmark, index: index, iterations: iterations[index])
            return Sample(
                iterations: iterations[index],
                nanosecondsPerOperation: Double(measured.elapsed) / Double(iterations[index] * benchmark.threads),
                process: process, allocations: measured.allocations.map { Int(clamping: $0) })
        } catch {
            failures[index] = logDescription(of: error)
            return nil
        }
    }
}
