import Foundation

package struct CaseComparison: Sendable, Equatable {
    package let key: CaseKey
    /// The baseline's median nanoseconds per operation, when it has one.
    package let baselineMedian: Double?
    /// The current median nanoseconds per operation, when it has one.
    package let currentMedian: Double?
    /// The estimated change, `current / baseline − 1`, positive is slower: from the pairs' turns,
    /// or the processes' fastest samples net of the whole run's shift (runs made apart), or, by
    /// the threshold method, of the median.
    package let change: Double?
    /// The interval the gate read, when the processes allowed one: each end a one-sided bound at
    /// the criteria's confidence (95%) spent over the looks; a case passes when the upper end
    /// lies below the threshold (see ``SequentialGate``).
    package let interval: ClosedRange<Double>?
    /// The smallest slowdown the comparison would have flagged as `regressed` with 80%
    /// probability, given the case's spread at the look that decided it.
    package let detectable: Double?
    /// The one-sided p-value of "no change" in the direction of ``change``, adjusted by Holm's
    /// method over the cases compared at that look and by the number of looks: significant
    /// below alpha.
    package let pValue: Double?
    package let method: ComparisonMethod
    package internal(set) var verdict: Verdict
    /// The baseline's instructions per operation, in a comparison of instruction counts.
    package var baselineInstructions: Double? = nil
    /// The current instructions per operation, in a comparison of instruction counts.
    package var currentInstructions: Double? = nil
    /// The look (from 1) that decided the case, in a comparison of paired processes.
    package var look: Int? = nil
}
