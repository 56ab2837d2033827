package struct ComparisonCriteria: Sendable, Equatable {
    /// The smallest change that counts as a regression or an improvement, as a fraction: 0.05 is 5%.
    package var threshold: Double
    /// The family-wise significance level, over all cases and looks together.
    package var alpha: Double
    /// The confidence of the upper bound that must lie below the threshold for a case to pass.
    package var confidence: Double

    /// `threshold` is a fraction; the command line's ``defaultThresholdPercent(of:pairing:)`` is in
    /// percent.
    package init(threshold: Double, alpha: Double = 0.01, confidence: Double = 0.95) {
        self.threshold = threshold
        self.alpha = alpha
        self.confidence = confidence
    }
}

extension ComparisonCriteria {
    /// The threshold, in percent, of a comparison whose `--threshold` is not given: the one place
    /// it is decided, and what every command's help says. Counts repeat exactly; runs made apart
    /// also differ by what the host did between them.
    package static func defaultThresholdPercent(of metric: Metric, pairing: Pairing) -> Double {
        switch (metric, pairing) {
        case (.instructions, _): 0.1
        case (.time, .byProcess): 1
        case (.time, .independent): 5
        }
    }

    /// The smallest step, in percent, that `bench history --changes` reports when `--threshold` is
    /// not given. A step is the difference of segments of several runs, so it can be smaller than a
    /// change between two runs: 2%, the minimum of Mozilla's Perfherder; counts repeat exactly.
    package static func defaultHistoryThresholdPercent(of metric: Metric) -> Double {
        switch metric {
        case .instructions: defaultThresholdPercent(of: .instructions, pairing: .independent)
        case .time: 2
        }
    }
}
