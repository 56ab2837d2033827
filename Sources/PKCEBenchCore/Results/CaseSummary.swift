/// What one case of a run came to in one metric, computed once from its measurement or read back
/// from a report. A case both timed and counted is two summaries, one per metric.
package struct CaseSummary: Sendable, Equatable {
    package var key: CaseKey
    /// What was measured, or would have been had the case not failed.
    package var metric: Metric
    package var samples: Int
    /// Operations per thread in each sample: the median, as each process calibrates anew.
    package var iterations: Int
    /// Heap allocations per operation over every sample; `nil` where they were not counted.
    package var allocationsPerOperation: Double?
    package var outcome: Outcome

    package enum Outcome: Sendable, Equatable {
        case timed(Times)
        /// Instructions per operation under Callgrind.
        case counted(instructionsPerOperation: Double)
        case failed(reason: String)
    }

    /// A timed case's figures over its samples: times in nanoseconds per operation.
    package struct Times: Sendable, Equatable {
        package var median: Double
        package var p10: Double
        package var p90: Double
        package var fastest: Double
        package var mean: Double
        package var standardDeviation: Double
        /// As a fraction.
        package var coefficientOfVariation: Double
        /// From the median, aggregated over all threads; `nil` for a median of 0.
        package var operationsPerSecond: Double?
        /// `size × operationsPerSecond / 10⁶` for the operations that hash or draw bytes.
        package var megabytesPerSecond: Double?

        package init(_ statistics: Statistics, of key: CaseKey) {
            median = statistics.median
            p10 = statistics.p10
            p90 = statistics.p90
            fastest = statistics.min
            mean = statistics.mean
            standardDeviation = statistics.standardDeviation
            coefficientOfVariation = statistics.coefficientOfVariation
            operationsPerSecond = statistics.median > 0 ? 1e9 / statistics.median : nil
            if key.operation.reportsByteThroughput, let operationsPerSecond {
                megabytesPerSecond = Double(key.size) * operationsPerSecond / 1e6
            }
        }

        package init(
            median: Double, p10: Double, p90: Double, fastest: Double, mean: Double, standardDeviation: Double,
            coefficientOfVariation: Double, operationsPerSecond: Double?, megabytesPerSecond: Double?
        ) {
            self.median = median
            self.p10 = p10
            self.p90 = p90
            self.fastest = fastest
            self.mean = mean
            self.standardDeviation = standardDeviation
            self.coefficientOfVariation = coefficientOfVariation
            self.operationsPerSecond = operationsPerSecond
            self.megabytesPerSecond = megabytesPerSecond
        }
    }

    package init(
        key: CaseKey, metric: Metric, samples: Int = 0, iterations: Int = 0, allocationsPerOperation: Double? = nil,
        outcome: Outcome
    ) {
        self.key = key
        self.metric = metric
        self.samples = samples
        self.iterations = iterations
        self.allocationsPerOperation = allocationsPerOperation
        self.outcome = outcome
    }

    package init(_ measurement: CaseMeasurement) {
        let outcome: Outcome
        switch measurement.outcome {
        case .failed(let reason):
            outcome = .failed(reason: reason)
        case .counted(_, let instructions):
            outcome = .counted(instructionsPerOperation: instructions)
        case .sampled(let samples):
            if let statistics = Statistics(samples.map(\.nanosecondsPerOperation)) {
                outcome = .timed(Times(statistics, of: measurement.key))
            } else {
                outcome = .failed(reason: "no samples were taken")
            }
        }
        self.init(
            key: measurement.key, metric: measurement.metric, samples: measurement.nanosecondsPerOperation.count,
            iterations: measurement.iterations, allocationsPerOperation: measurement.allocationsPerOperation,
            outcome: outcome)
    }

    package var times: Times? {
        if case .timed(let times) = outcome { times } else { nil }
    }

    package var instructionsPerOperation: Double? {
        if case .counted(let instructions) = outcome { instructions } else { nil }
    }

    package var failure: String? {
        if case .failed(let reason) = outcome { reason } else { nil }
    }

    package var isOK: Bool { failure == nil }
}
