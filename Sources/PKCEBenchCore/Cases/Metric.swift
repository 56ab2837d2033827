/// What a run measures of each case.
package enum Metric: String, Sendable, CaseIterable, Codable {
    /// Wall-clock nanoseconds per operation, sampled: the figure users feel, noisy on a shared machine.
    case time
    /// Instructions per operation, counted under Callgrind: exact and repeatable, but of a CPU that
    /// Valgrind emulates, not of this one (see <doc:InstructionCounts>).
    case instructions

    /// The default threshold of a comparison, in percent: 5 for timings of independent runs; 0.1
    /// for instruction counts, which repeat exactly, so that a 0.2% change is caught.
    package var defaultThreshold: Double {
        switch self {
        case .time: 5
        case .instructions: 0.1
        }
    }
}
