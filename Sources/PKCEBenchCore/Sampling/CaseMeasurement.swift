package struct CaseMeasurement: Sendable, Equatable {
    package enum Outcome: Sendable, Equatable {
        /// The samples, in the order taken.
        case sampled([Sample])
        /// Counted under Callgrind, from calls of `iterations` and twice as many.
        case counted(iterations: Int, instructionsPerOperation: Double)
        /// Not measured; any samples taken are discarded.
        case failed(reason: String)
    }

    package let key: CaseKey
    /// What was measured, or would have been had the case not failed: a failed case of a counted
    /// run is still a row of that run.
    package let metric: Metric
    package let outcome: Outcome

    package init(key: CaseKey, samples: [Sample], failure: String?) {
        self.key = key
        metric = .time
        outcome = failure.map { .failed(reason: $0) } ?? .sampled(samples)
    }

    private init(key: CaseKey, metric: Metric, outcome: Outcome) {
        self.key = key
        self.metric = metric
        self.outcome = outcome
    }

    package static func counted(_ key: CaseKey, iterations: Int, instructionsPerOperation: Double) -> CaseMeasurement {
        CaseMeasurement(
            key: key, metric: .instructions,
            outcome: .counted(iterations: iterations, instructionsPerOperation: instructionsPerOperation))
    }

    package static func failed(_ key: CaseKey, reason: String, metric: Metric = .time) -> CaseMeasurement {
        CaseMeasurement(key: key, metric: metric, outcome: .failed(reason: reason))
    }

    package var samples: [Sample] {
        if case .sampled(let samples) = outcome { samples } else { [] }
    }

    package var failure: String? {
        if case .failed(let reason) = outcome { reason } else { nil }
    }

    package var nanosecondsPerOperation: [Double] {
        samples.map(\.nanosecondsPerOperation)
    }

    /// Heap allocations per operation over all samples, or `nil` when any sample was not counted.
    package var allocationsPerOperation: Double? {
        let samples = samples
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
        switch outcome {
        case .counted(let iterations, _): return iterations
        case .failed: return 0
        case .sampled(let samples):
            let sorted = samples.map(\.iterations).sorted()
            return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
        }
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

/// Protocol 3's form of a measurement, which workers of every build since send and read: the
/// fields of the struct this type replaced, an absent optional left out.
extension CaseMeasurement: Codable {
    private enum CodingKeys: String, CodingKey {
        case key, metric, samples, failure, instructionsPerOperation, countedIterations
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        key = try container.decode(CaseKey.self, forKey: .key)
        metric = try container.decode(Metric.self, forKey: .metric)
        let samples = try container.decode([Sample].self, forKey: .samples)
        if let reason = try container.decodeIfPresent(String.self, forKey: .failure) {
            outcome = .failed(reason: reason)
        } else if let instructions = try container.decodeIfPresent(Double.self, forKey: .instructionsPerOperation) {
            let iterations = try container.decodeIfPresent(Int.self, forKey: .countedIterations) ?? 0
            outcome = .counted(iterations: iterations, instructionsPerOperation: instructions)
        } else {
            outcome = .sampled(samples)
        }
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(key, forKey: .key)
        try container.encode(metric, forKey: .metric)
        try container.encode(samples, forKey: .samples)
        switch outcome {
        case .sampled: break
        case .failed(let reason): try container.encode(reason, forKey: .failure)
        case .counted(let iterations, let instructions):
            try container.encode(instructions, forKey: .instructionsPerOperation)
            try container.encode(iterations, forKey: .countedIterations)
        }
    }
}
