import Dispatch
import Foundation

/// Threads that run one case's workload at once, for one sample at a time.
///
/// Each thread prepares and keeps its own workload for every case it runs, so no workload is
/// ever shared between threads. A sample's time runs from the first thread's start to the last
/// thread's end, both read on the sampling threads, so waking them up is not timed. A pool of one
/// thread runs its samples on the caller's thread instead: the same loop and clock reads, without
/// two thread wake-ups per sample, which would take a large share of `bench ab`'s 0.25 ms samples.
///
/// `@unchecked Sendable`: `command` and `reports` are only touched with `lock` held. The lock is
/// an `NSLock` rather than `Synchronization.Mutex` because ThreadSanitizer cannot see the
/// ordering `Mutex`'s futex gives on Linux, and reports its critical sections as races.
final class SamplingThreads: @unchecked Sendable {
    private enum Command: Sendable {
        case run(index: Int, benchmark: BenchmarkCase, iterations: Int)
        case stop
    }

    private struct Report: Sendable {
        var start: UInt64 = 0
        var end: UInt64 = 0
        var allocations: UInt64 = 0
        var checksum: UInt64 = 0
        var error: (any Error)?
    }

    struct Measurement {
        /// Nanoseconds from the first thread's start to the last thread's end.
        var elapsed: UInt64
        /// Heap allocations of the timed loops, all threads together; `nil` when not counted.
        var allocations: UInt64?
    }

    let count: Int
    private let allocationCounter: AllocationCounter?
    private let lock = NSLock()
    private var command = Command.stop
    private var reports: [Report]
    private let go: [DispatchSemaphore]
    private let finished = DispatchSemaphore(value: 0)
    /// The caller's workloads, when the pool runs on the caller's thread.
    private var callerWorkloads: [Int: any Workload] = [:]
    /// The caller's results, kept so that no loop's work is unobserved.
    private var callerChecksum: UInt64 = 0

    /// Starts `count` threads, which wait for ``measure(_:index:iterations:)``.
    init(threads count: Int, allocationCounter: AllocationCounter? = nil) {
        precondition(count >= 1, "sampling needs at least one thread")
        self.count = count
        self.allocationCounter = allocationCounter
        self.reports = Array(repeating: Report(), count: count)
        self.go = (0..<count).map { _ in DispatchSemaphore(value: 0) }
        guard count > 1 else { return }
        for number in 0..<count {
            let thread = Thread { [self] in work(as: number) }
            thread.name = "bench-sampling-\(number)"
            thread.start()
        }
    }

    /// Stops the threads once they finish what they are doing.
    func shutdown() {
        lock.withLock { command = .stop }
        go.forEach { $0.signal() }
    }

    /// Runs `iterations` operations of `benchmark` on each thread, all at once; `index` identifies
    /// the case, so that each thread keeps its workload.
    ///
    /// - Throws: The first error a thread reports, from preparing its workload or running it.
    func measure(_ benchmark: BenchmarkCase, index: Int, iterations: Int) throws -> Measurement {
        if count == 1 {
            let report = Self.run(
                benchmark, iterations: iterations, in: &callerWorkloads, index: index, allocationCounter)
            if let error = report.error { throw error }
            callerChecksum &+= report.checksum
            return Measurement(
                elapsed: report.end - report.start, allocations: allocationCounter.map { _ in report.allocations })
        }
        lock.withLock { command = .run(index: index, benchmark: benchmark, iterations: iterations) }
        go.forEach { $0.signal() }
        for _ in 0..<count { finished.wait() }
        let reports = lock.withLock { self.reports }
        if let error = reports.lazy.compactMap(\.error).first {
            throw error
        }
        let start = reports.map(\.start).min() ?? 0
        let end = reports.map(\.end).max() ?? 0
        return Measurement(
            elapsed: end - start,
            allocations: allocationCounter.map { _ in reports.reduce(0) { $0 + $1.allocations } })
    }

    private func work(as number: Int) {
        var workloads: [Int: any Workload] = [:]
        while true {
            go[number].wait()
            guard case .run(let index, let benchmark, let iterations) = lock.withLock({ command }) else { return }
            let report = Self.run(benchmark, iterations: iterations, in: &workloads, index: index, allocationCounter)
            lock.withLock { reports[number] = report }
            finished.signal()
        }
    }

    /// One thread's timed loop, with the workloads that thread keeps.
    private static func run(
        _ benchmark: BenchmarkCase, iterations: Int, in workloads: inout [Int: any Workload], index: Int,
        _ allocationCounter: AllocationCounter?
    ) -> Report {
        var report = Report()
        do {
            let workload = try workloads[index] ?? benchmark.makeWorkload()
            workloads[index] = workload
            let allocationsBefore = allocationCounter?.threadAllocations() ?? 0
            report.start = MonotonicClock.now()
            report.checksum = try workload.run(iterations: iterations)
            report.end = MonotonicClock.now()
            report.allocations = (allocationCounter?.threadAllocations() ?? 0) &- allocationsBefore
        } catch {
            report.error = error
        }
        return report
    }
}
