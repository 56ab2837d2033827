/// One sample: a timed run of a case's operation, `iterations` times on each thread.
package struct Sample: Sendable, Equatable, Codable {
    /// Operations per thread.
    package var iterations: Int
    /// The sample's wall time over `iterations × threads`.
    package var nanosecondsPerOperation: Double
    /// Which of the run's measuring processes took it, from 0.
    package var process: Int
    /// Heap allocations during the timed loops, all threads together; `nil` when not counted.
    package var allocations: Int?

    package init(iterations: Int, nanosecondsPerOperation: Double, process: Int = 0, allocations: Int? = nil) {
        self.iterations = iterations
        self.nanosecondsPerOperation = nanosecondsPerOperation
        self.process = process
        self.allocations = allocations
    }
}
