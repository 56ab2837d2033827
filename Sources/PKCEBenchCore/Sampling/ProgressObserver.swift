/// What a run says of its progress as it measures and builds: the command line shows it on
/// standard error (`ProgressPrinter`, in PKCEBenchKit); the core only calls it, and formats
/// nothing for a person.
package protocol ProgressObserver: AnyObject {
    /// Whether only warnings and failures are shown (`--quiet`): the workers' own progress lines
    /// are then kept from standard error too.
    var isQuiet: Bool { get }
    /// A warning or a failure, which every style shows.
    func note(_ line: String)
    /// What the run is doing or has done.
    func info(_ line: String)
    /// The run is over: a progress line drawn in place is cleared.
    func finish()
    /// A case's loop was calibrated to `iterations` per sample.
    func calibrated(_ key: CaseKey, iterations: Int, nanosecondsPerOperation: Double)
    /// A case failed, with why.
    func failed(_ key: CaseKey, reason: String)
    /// `done` of a case's `total` samples are taken.
    func sampled(_ key: CaseKey, done: Int, of total: Int, remainingSeconds: Double)
    /// A case's samples are all taken.
    func finished(_ key: CaseKey, nanosecondsPerOperation: [Double])
    /// Measuring process `index` of `count` (or, in `bench ab`, a pair of them: `unit`) starts.
    func process(_ index: Int, of count: Int, remainingSeconds: Double?, unit: String)
}

extension ProgressObserver {
    /// Measuring process `index` of `count` starts.
    package func process(_ index: Int, of count: Int, remainingSeconds: Double?) {
        process(index, of: count, remainingSeconds: remainingSeconds, unit: "process")
    }
}
