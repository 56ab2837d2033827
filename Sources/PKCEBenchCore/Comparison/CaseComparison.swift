package struct CaseComparison: Sendable, Equatable {
    package let key: CaseKey
    /// Median nanoseconds per operation.
    package let baselineMedian: Double?
    package let currentMedian: Double?
    /// `current / baseline − 1`, positive is slower, as ``method`` estimates it.
    package let change: Double?
    /// The interval the gate read (see ``GateDecision/interval``).
    package let interval: ClosedRange<Double>?
    /// The smallest slowdown the comparison would have flagged as `regressed` with 80%
    /// probability, given the case's spread at the look that decided it.
    package let detectable: Double?
    /// See ``GateDecision/pValue``.
    package let pValue: Double?
    package let method: ComparisonMethod
    package internal(set) var verdict: Verdict
    /// Instructions per operation, in a comparison of instruction counts.
    package var baselineInstructions: Double? = nil
    package var currentInstructions: Double? = nil
    /// The look (from 1) that decided the case, in a comparison of paired processes.
    package var look: Int? = nil
}
