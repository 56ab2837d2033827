/// What one case of a run came to: the figures every report shows of it, computed once from its
/// measurement, or read back from a report.
///
/// Times are nanoseconds per operation over the case's samples; they are `nil` when the case
/// failed or its instructions were counted instead (``metric`` is then `instructions`).
package struct CaseSummary: Sendable, Equatable {
    /// The case.
    package var key: CaseKey
    /// What was measured, or would have been had the case not failed.
    package var metric: Metric
    /// Why the case failed; `nil` when it did not.
    package var failure: String?
    /// The number of samples taken.
    package var samples: Int
    /// Operations per thread in each sample: the median over the samples, since each measuring
    /// process calibrates anew.
    package var iterations: Int
    /// The median of the samples.
    package var median: Double?
    /// The 10th percentile.
    package var p10: Double?
    /// The 90th percentile.
    package var p90: Double?
    /// The fastest sample.
    package var fastest: Double?
    /// The mean.
    package var mean: Double?
    /// The sample standard deviation.
    package var standardDeviation: Double?
    /// The coefficient of variation: the standard deviation over the mean.
    package var coefficientOfVariation: Double?
    /// Operations per second from the median, aggregated over all threads.
    package var operationsPerSecond: Double?
    /// `size × operationsPerSecond / 10⁶` for the operations that hash or draw bytes; `nil` for
    /// the verifier operations.
    package var megabytesPerSecond: Double?
    /// Heap allocations per operation over every sample; `nil` where they were not counted.
    package var allocationsPerOperation: Double?
    /// Instructions per operation under Callgrind, when ``metric`` is `instructions`.
    package var instructionsPerOperation: Double?

    /// A summary with no figures yet: a case that measured `metric`.
    package init(key: CaseKey, metric: Metric = .time) {
        self.key = key
        self.metric = metric
        samples = 0
        iterations = 0
    }

    /// The summary of a measured, counted or failed case.
    package init(_ measurement: CaseMeasurement) {
        self.init(key: measurement.key, metric: measurement.metric)
        iterations = measurement.iterations
        samples = measurement.nanosecondsPerOperation.count
        allocationsPerOperation = measurement.allocationsPerOperation
        switch measurement.outcome {
        case .failed(let reason):
            failure = reason
        case .counted(_, let instructions):
            instructionsPerOperation = instructions
        case .sampled(let samples):
            guard let statistics = Statistics(samples.map(\.nanosecondsPerOperation)) else {
                failure = "no samples were taken"
                break
            }
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
    }

    /// Whether the case has results.
    package var isOK: Bool { failure == nil && (median != nil || instructionsPerOperation != nil) }
}
