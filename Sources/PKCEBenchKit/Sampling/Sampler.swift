/// One sample: a timed run of a case's operation, `iterations` times on each thread.
public struct Sample: Sendable, Equatable {
    /// Operations per thread.
    public var iterations: Int
    /// The sample's wall time over `iterations × threads`.
    public var nanosecondsPerOperation: Double
    /// Which of the run's measuring processes took it, from 0.
    public var process: Int
    /// Heap allocations during the timed loops, all threads together; `nil` when not counted.
    public var allocations: Int?

    /// Creates a sample.
    public init(iterations: Int, nanosecondsPerOperation: Double, process: Int = 0, allocations: Int? = nil) {
        self.iterations = iterations
        self.nanosecondsPerOperation = nanosecondsPerOperation
        self.process = process
        self.allocations = allocations
    }
}

/// The samples of one case, or why it has none.
public struct CaseMeasurement: Sendable {
    /// The case measured.
    public let key: CaseKey
    /// The samples, in the order taken; empty when the case failed.
    public let samples: [Sample]
    /// Why the case failed, if it did; its samples are then discarded.
    public let failure: String?
    /// Instructions per operation, when the case was counted under Callgrind rather than timed;
    /// ``samples`` is then empty.
    public private(set) var instructionsPerOperation: Double?
    /// The iterations of the shorter of the two counted calls, when the case was counted.
    public private(set) var countedIterations: Int?
    /// What was measured, or would have been had the case not failed: a failed case of a counted
    /// run is still a row of that run.
    public private(set) var metric = Metric.time

    /// A case with its samples, or a failure.
    public init(key: CaseKey, samples: [Sample], failure: String?) {
        self.key = key
        self.samples = failure == nil ? samples : []
        self.failure = failure
    }

    /// A case counted under Callgrind: `instructionsPerOperation` from calls of `iterations` and
    /// twice as many.
    public static func counted(_ key: CaseKey, iterations: Int, instructionsPerOperation: Double) -> CaseMeasurement {
        var measurement = CaseMeasurement(key: key, samples: [], failure: nil)
        measurement.instructionsPerOperation = instructionsPerOperation
        measurement.countedIterations = iterations
        measurement.metric = .instructions
        return measurement
    }

    /// A case measured in one process, every sample with the same iterations.
    public init(key: CaseKey, iterations: Int, nanosecondsPerOperation: [Double], failure: String?) {
        self.init(
            key: key,
            samples: nanosecondsPerOperation.map { Sample(iterations: iterations, nanosecondsPerOperation: $0) },
            failure: failure)
    }

    /// A case that was not measured, and why, in a run that measures `metric`.
    public static func failed(_ key: CaseKey, reason: String, metric: Metric = .time) -> CaseMeasurement {
        var measurement = CaseMeasurement(key: key, samples: [], failure: reason)
        measurement.metric = metric
        return measurement
    }

    /// Nanoseconds per operation of each sample, in the order taken.
    public var nanosecondsPerOperation: [Double] {
        samples.map(\.nanosecondsPerOperation)
    }

    /// Heap allocations per operation over all samples, or `nil` when any sample was not counted.
    public var allocationsPerOperation: Double? {
        guard !samples.isEmpty else { return nil }
        var allocations = 0
        var operations = 0
        for sample in samples {
            guard let counted = sample.allocations else { return nil }
            allocations += counted
            operations += sample.iterations * key.threads
        }
        return operations > 0 ? Double(allocations) / Double(operations) : nil
    }

    /// The median of the samples' iterations: calibration picks them anew in each process. For a
    /// counted case, the iterations of its shorter counted call.
    public var iterations: Int {
        if let countedIterations { return countedIterations }
        let sorted = samples.map(\.iterations).sorted()
        return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
    }

    /// The measurements of one case from several processes as one: their samples in process
    /// order, or the first failure.
    ///
    /// - Precondition: every part measures `key`.
    static func merging(_ parts: [CaseMeasurement], key: CaseKey) -> CaseMeasurement {
        precondition(parts.allSatisfy { $0.key == key }, "merging measurements of different cases")
        if let failure = parts.lazy.compactMap(\.failure).first {
            return .failed(key, reason: failure)
        }
        return CaseMeasurement(key: key, samples: parts.flatMap(\.samples), failure: nil)
    }
}

/// A run stopped because the process received a signal.
public struct Interrupted: Error, Sendable {
    /// The signal: `SIGINT` or `SIGTERM`.
    public let signal: Int32
}

/// What a sampler tells about its progress, on the thread that runs it.
public protocol SamplingObserver: AnyObject {
    /// A case's iterations per sample are chosen and it is warmed up.
    func calibrated(_ key: CaseKey, iterations: Int, nanosecondsPerOperation: Double)
    /// A case failed and is measured no further.
    func failed(_ key: CaseKey, reason: String)
    /// One more sample was taken.
    func sampled(_ key: CaseKey, done: Int, of total: Int, remainingSeconds: Double)
    /// A case has all its samples.
    func finished(_ key: CaseKey, nanosecondsPerOperation: [Double])
}

/// Calibrates, warms up and samples cases, interleaving the samples of all of them.
///
/// The samples of all cases are taken in one shuffled order rather than case after case, so that
/// a drift of the machine (another tenant, a frequency change) spreads over every case alike
/// instead of landing on whichever ran at the time (google/benchmark PR #1163).
public struct Sampler {
    /// The cases to measure; they all run on the same number of threads.
    public let cases: [BenchmarkCase]
    /// How long and how often.
    public let plan: SamplingPlan
    /// Told about progress; may be `nil`.
    public var observer: (any SamplingObserver)?
    /// Asked between samples whether to stop; returns the signal received, if any.
    public let interruption: () -> Int32?
    /// The number this process's samples carry, when several processes measure one run.
    public var process = 0
    /// Counts the allocations of every sample, if given.
    public var allocationCounter: AllocationCounter?

    /// Creates a sampler.
    ///
    /// - Precondition: every case runs on the same number of threads.
    public init(
        cases: [BenchmarkCase],
        plan: SamplingPlan,
        observer: (any SamplingObserver)? = nil,
        interruption: @escaping () -> Int32? = { nil }
    ) {
        precondition(Set(cases.map(\.threads)).count <= 1, "cases of one run share their thread count")
        self.cases = cases
        self.plan = plan
        self.observer = observer
        self.interruption = interruption
    }

    /// Measures every case.
    ///
    /// A case whose workload throws is reported as failed and the others go on.
    ///
    /// - Returns: One measurement per case, in the order of ``cases``.
    /// - Throws: ``Interrupted`` when ``interruption`` reports a signal.
    public func run() throws(Interrupted) -> [CaseMeasurement] {
        guard !cases.isEmpty else { return [] }
        let session = try calibrated()
        var samples = [[Sample]](repeating: [], count: cases.count)
        var schedule = cases.indices.filter { session.failures[$0] == nil }.flatMap {
            Array(repeating: $0, count: plan.samples)
        }
        schedule.shuffle()
        let started = MonotonicClock.now()
        for (done, index) in schedule.enumerated() where session.failures[index] == nil {
            try checkInterruption()
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

    /// Calibrates and warms up every case, and returns them ready to be sampled one sample at a
    /// time, in whatever order the caller chooses: ``run()`` takes its shuffled schedule from
    /// it, and a `bench ab` worker the order its parent asks for.
    ///
    /// - Throws: ``Interrupted`` when ``interruption`` reports a signal.
    public func calibrated() throws(Interrupted) -> SamplingSession {
        let session = SamplingSession(
            cases: cases, pool: WorkerPool(threads: cases.first?.threads ?? 1, allocationCounter: allocationCounter),
            process: process)
        for (index, benchmark) in cases.enumerated() {
            try checkInterruption()
            do {
                let (count, perOperation) = try calibrate(benchmark, index: index, pool: session.pool)
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
    ///
    /// - Returns: The iterations, and the nanoseconds per operation the estimate rests on.
    private func calibrate(_ benchmark: BenchmarkCase, index: Int, pool: WorkerPool) throws -> (Int, Double) {
        let target = plan.sampleTime.nanoseconds
        func measure(_ iterations: Int) throws -> Double {
            Double(try pool.measure(benchmark, index: index, iterations: iterations).elapsed)
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

    private func checkInterruption() throws(Interrupted) {
        if let signal = interruption() {
            throw Interrupted(signal: signal)
        }
    }
}

/// Cases calibrated and warmed up, each sampled when asked: see ``Sampler/calibrated()``.
///
/// Not thread-safe: one caller takes the samples, one at a time.
public final class SamplingSession {
    /// The cases, in the sampler's order.
    public let cases: [BenchmarkCase]
    /// Operations per thread in one sample of each case; 0 for a case that failed.
    public internal(set) var iterations: [Int]
    /// Why each case failed, if it did; a failed case is sampled no more.
    public internal(set) var failures: [String?]
    let pool: WorkerPool
    private let process: Int

    init(cases: [BenchmarkCase], pool: WorkerPool, process: Int) {
        self.cases = cases
        self.pool = pool
        self.process = process
        self.iterations = Array(repeating: 0, count: cases.count)
        self.failures = Array(repeating: nil, count: cases.count)
    }

    deinit {
        pool.shutdown()
    }

    /// Takes one sample of the case at `index`.
    ///
    /// - Returns: The sample, or `nil` when the case has failed, now or before; ``failures`` says why.
    public func sample(_ index: Int) -> Sample? {
        guard failures[index] == nil else { return nil }
        let benchmark = cases[index]
        do {
            let measured = try pool.measure(benchmark, index: index, iterations: iterations[index])
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
