import Foundation

/// When a change counts.
public struct ComparisonCriteria: Sendable, Equatable {
    /// The smallest change that counts as a regression or an improvement, as a fraction: 0.05 is 5%.
    public var threshold: Double
    /// The family-wise significance level: the chance that a comparison of equal builds reports
    /// any case as regressed (or any as improved) is at most this, over all its cases and looks
    /// together.
    public var alpha: Double
    /// The confidence of the upper bound that must lie below the threshold for a case to pass:
    /// a case slower by the threshold passes with probability at most `1 − confidence`.
    public var confidence: Double

    /// Creates criteria; the defaults are a 5% threshold, a 1% significance level and 95%
    /// confidence.
    public init(threshold: Double = 0.05, alpha: Double = 0.01, confidence: Double = 0.95) {
        self.threshold = threshold
        self.alpha = alpha
        self.confidence = confidence
    }
}
