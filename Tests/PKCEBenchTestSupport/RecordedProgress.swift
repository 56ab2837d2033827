import PKCEBenchCore

/// A progress observer that keeps what it is told, a line an event, for tests of the core, which
/// has no printer of its own: `info` and `note` as given, the others as `calibrated KEY`,
/// `failed KEY: REASON`, `sampled KEY`, `finished KEY`, `UNIT N of M` (`process 1 of 5`, `pair 2 of 20`)
/// and `finish`.
package final class RecordedProgress: ProgressObserver {
    package private(set) var lines: [String] = []
    package let isQuiet: Bool
    /// Called with each line as it is recorded.
    private let onLine: (String) -> Void

    package init(quiet: Bool = false, onLine: @escaping (String) -> Void = { _ in }) {
        self.isQuiet = quiet
        self.onLine = onLine
    }

    private func record(_ line: String) {
        lines.append(line)
        onLine(line)
    }

    package func note(_ line: String) { record(line) }
    package func info(_ line: String) { record(line) }
    package func finish() { record("finish") }
    package func calibrated(_ key: CaseKey, iterations: Int, nanosecondsPerOperation: Double) {
        record("calibrated \(key)")
    }
    package func failed(_ key: CaseKey, reason: String) { record("failed \(key): \(reason)") }
    package func sampled(_ key: CaseKey, done: Int, of total: Int, remainingSeconds: Double) {
        record("sampled \(key)")
    }
    package func finished(_ key: CaseKey, nanosecondsPerOperation: [Double]) { record("finished \(key)") }
    package func process(_ index: Int, of count: Int, remainingSeconds: Double?, unit: String) {
        record("\(unit) \(index + 1) of \(count)")
    }
}
