/// Calibrates, warms up and samples cases, the samples of all of them in one shuffled order
/// (the article "Method", "Interleaving", says why).
package struct Sampler {
    /// The cases to measure; they all run on the same number of threads.
    package let cases: [BenchmarkCase]
    package let plan: SamplingPlan
    package var observer: (any ProgressObserver)?
    /// Asked between samples whether to stop.
    package let cancellation: Cancellation
    /// The number this process's samples carry, when several processes measure one run.
    package var process = 0
    package var allocationCounter: AllocationCounter?

    package init(
        cases: [BenchmarkCase],
        plan: SamplingPlan,
        observer: (any ProgressObserver)? = nil,
        cancellation: Cancellation = .never
    ) {
        precondition(Set(cases.map(\.threads)).count <= 1, "cases of one run share their thread count")
        self.cases = cases
        self.plan = plan
        self.observer = observer
        self.cancellation = cancellation
    }

    /// Returns one measurement per case, in the order of ``cases``. A case whose workload throws
    /// is reported as failed and the others go on.
    package func run() throws(BenchError) -> [CaseMeasurement] {
        guard !cases.isEmpty else { return [] }
        let session = try calibrated()
        var samples = [[Sample]](repeating: [], count: cases.count)
        var schedule = cases.indices.filter { session.failures[$0] == nil }.flatMap {
            Array(repeating: $0, count: plan.samples)
        }
        schedule.shuffle()
        let started = MonotonicClock.now()
        for (done, index) in schedule.enumerated() where session.failures[index] == nil {
            try cancellation.check()
            let key = cases[index].key
            guard let sample = session.sample(index) else {
                observer?.failed(key, reason: session.failures[index] ?? "")
                continue
            }
            samples[index].append(sample)
            let spent = Double(MonotonicClock.now() - started) / 1e9
            let remaining = spent / Double(done + 1) * Double(schedule.count - done - 1)
            observer?.sampled(key, done: done + 1, of: schedule.count, remainingSeconds: remaining)
            if samples[index].count == plan.samples {
                observer?.finished(key, nanosecondsPerOperation: samples[index].map(\.nanosecondsPerOperation))
            }
        }
        return cases.indices.map { index in
            CaseMeasurement(key: cases[index].key, samples: samples[index], failure: session.failures[index])
        }
    }

    /// Calibrates and warms up every case, and returns them ready to be sampled one at a time, in
    /// whatever order the caller chooses.
    package func calibrated() throws(BenchError) -> SamplingSession {
        let session = SamplingSession(
            cases: cases,
            threads: SamplingThreads(threads: cases.first?.threads ?? 1, allocationCounter: allocationCounter),
            process: process)
        for (index, benchmark) in cases.enumerated() {
            try cancellation.check()
            do {
                let (count, perOperation) = try calibrate(benchmark, index: index, threads: session.threads)
                session.iterations[index] = count
                observer?.calibrated(benchmark.key, iterations: count, nanosecondsPerOperation: perOperation)
            } catch {
                session.failures[index] = logDescription(of: error)
                observer?.failed(benchmark.key, reason: logDescription(of: error))
            }
        }
        return session
    }

    /// Finds the iterations per thread that make one sample last ``SamplingPlan/sampleTime``, then
    /// warms the case up for ``SamplingPlan/warmup`` and refines the estimate.
    ///
    /// The estimate is the fastest time per iteration seen, not the last: a measurement that
    /// another process interrupted says nothing about the case, and would make the samples short.
    private func calibrate(_ benchmark: BenchmarkCase, index: Int, threads: SamplingThreads) throws -> (Int, Double) {
        let target = plan.sampleTime.nanoseconds
        func measure(_ iterations: Int) throws -> Double {
            Double(try threads.measure(benchmark, index: index, iterations: iterations).elapsed)
        }
        // Grow until one measurement lasts a tenth of a sample, long enough to estimate from, and
        // doubling the iterations nearly doubles the time. Without the second condition a fixed
        // cost per measurement (waking the threads, a descheduled process) could pass for the
        // cost of the case and make every sample one iteration long.
        var iterations = 1
        var elapsed = try measure(iterations)
        while true {
            if elapsed >= target / 10 {
                let doubled = try measure(iterations * 2)
                let scales = doubled >= elapsed * 1.5
                iterations *= 2
                elapsed = doubled
                if scales || elapsed >= target * 10 { break }
            } else {
                let growth = elapsed > 0 ? min(10, max(2, (target / 10) / elapsed * 1.5)) : 10
                iterations = Int((Double(iterations) * growth).rounded(.up))
                elapsed = try measure(iterations)
            }
        }
        var fastest = elapsed / Double(iterations)
        iterations = max(1, Int((target / fastest).rounded()))

        let warmupEnd = MonotonicClock.now() + UInt64(plan.warmup.nanoseconds)
        repeat {
            elapsed = try measure(iterations)
            fastest = min(fastest, elapsed / Double(iterations))
        } while MonotonicClock.now() < warmupEnd
        return (max(1, Int((target / fastest).rounded())), fastest / Double(benchmark.threads))
    }
}
