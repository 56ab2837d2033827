/// The samples of one case, or why it has none.
package struct CaseMeasurement: Sendable, Codable {
    /// The case measured.
    package let key: CaseKey
    /// The samples, in the order taken; empty when the case failed.
    package let samples: [Sample]
    /// Why the case failed, if it did; its samples are then discarded.
    package let failure: String?
    /// Instructions per operation, when the case was counted under Callgrind rather than timed;
    /// ``samples`` is then empty.
    package private(set) var instructionsPerOperation: Double?
    /// The iterations of the shorter of the two counted calls, when the case was counted.
    package private(set) var countedIterations: Int?
    /// What was measured, or would have been had the case not failed: a failed case of a counted
    /// run is still a row of that run.
    package private(set) var metric = Metric.time

    /// A case with its samples, or a failure.
    package init(key: CaseKey, samples: [Sample], failure: String?) {
        self.key = key
        self.samples = failure == nil ? samples : []
        self.failure = failure
    }

    /// A case counted under Callgrind: `instructionsPerOperation` from calls of `iterations` and
    /// twice as many.
    package static func counted(_ key: CaseKey, iterations: Int, instructionsPerOperation: Double) -> CaseMeasurement {
        var measurement = CaseMeasurement(key: key, samples: [], failure: nil)
        measurement.instructionsPerOperation = instructionsPerOperation
        measurement.countedIterations = iterations
        measurement.metric = .instructions
        return measurement
    }

    /// A case measured in one process, every sample with the same iterations.
    package init(key: CaseKey, iterations: Int, nanosecondsPerOperation: [Double], failure: String?) {
        self.init(
            key: key,
            samples: nanosecondsPerOperation.map { Sample(iterations: iterations, nanosecondsPerOperation: $0) },
            failure: failure)
    }

    /// A case that was not measured, and why, in a run that measures `metric`.
    package static func failed(_ key: CaseKey, reason: String, metric: Metric = .time) -> CaseMeasurement {
        var measurement = CaseMeasurement(key: key, samples: [], failure: reason)
        measurement.metric = metric
        return measurement
    }

    /// Nanoseconds per operation of each sample, in the order taken.
    package var nanosecondsPerOperation: [Double] {
        samples.map(\.nanosecondsPerOperation)
    }

    /// Heap allocations per operation over all samples, or `nil` when any sample was not counted.
    package var allocationsPerOperation: Double? {
        guard !samples.isEmpty else { return nil }
        // In floating point: a sum of another build's counts must not trap on overflow.
        var allocations = 0.0
        var operations = 0.0
        for sample in samples {
            guard let counted = sample.allocations else { return nil }
            allocations += Double(counted)
            operations += Double(sample.iterations) * Double(key.threads)
        }
        return operations > 0 ? allocations / operations : nil
    }

    /// The median of the samples' iterations: calibration picks them anew in each process. For a
    /// counted case, the iterations of its shorter counted call.
    package var iterations: Int {
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
