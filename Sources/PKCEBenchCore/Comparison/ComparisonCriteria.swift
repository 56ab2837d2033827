import Foundation

/// When a change counts.
package struct ComparisonCriteria: Sendable, Equatable {
    /// The smallest change that counts as a regression or an improvement, as a fraction: 0.05 is 5%.
    package var threshold: Double
    /// The family-wise significance level: the chance that a comparison of equal builds reports
    /// any case as regressed (or any as improved) is at most this, over all its cases and looks
    /// together.
    package var alpha: Double
    /// The confidence of the upper bound that must lie below the threshold for a case to pass:
    /// a case slower by the threshold passes with probability at most `1 − confidence`.
    package var confidence: Double

    /// Creates criteria; the defaults are a 5% threshold, a 1% significance level and 95%
    /// confidence.
    package init(threshold: Double = 0.05, alpha: Double = 0.01, confidence: Double = 0.95) {
        self.threshold = threshold
        self.alpha = alpha
        self.confidence = confidence
    }
}
