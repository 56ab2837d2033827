/// What a run measures of each case.
package enum Metric: String, Sendable, CaseIterable, Codable {
    /// Wall-clock nanoseconds per operation, sampled: the figure users feel, noisy on a shared machine.
    case time
    /// Instructions per operation, counted under Callgrind: exact and repeatable, but of a CPU that
    /// Valgrind emulates, not of this one (the InstructionCounts article).
    case instructions
}
