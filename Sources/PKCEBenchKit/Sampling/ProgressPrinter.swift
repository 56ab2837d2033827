import Foundation

/// Reports a run's progress on standard error.
///
/// On a terminal, one line is rewritten in place with the current case and the time left; to a
/// file or pipe, such as a CI log, one line is written per case calibrated and per case finished.
public final class ProgressPrinter {
    private let isTerminal: Bool
    private let write: (String) -> Void
    private let caseCount: Int
    private let prefix: String
    private let quietOffTerminal: Bool
    private var calibratedCount = 0
    private var lastDraw: UInt64 = 0

    /// Creates a printer.
    ///
    /// - Parameters:
    ///   - caseCount: How many cases the run has.
    ///   - prefix: Put before every progress line, such as `process 2/5: `.
    ///   - quietOffTerminal: Off a terminal, print nothing but failures: for a measuring process
    ///     whose parent reports on it.
    ///   - isTerminal: Whether standard error is a terminal.
    ///   - write: Where the text goes; standard error by default.
    public init(
        caseCount: Int,
        prefix: String = "",
        quietOffTerminal: Bool = false,
        isTerminal: Bool = isatty(STDERR_FILENO) != 0,
        write: @escaping (String) -> Void = { FileHandle.standardError.write(Data($0.utf8)) }
    ) {
        self.caseCount = caseCount
        self.prefix = prefix
        self.quietOffTerminal = quietOffTerminal
        self.isTerminal = isTerminal
        self.write = write
    }

    /// Prints a line of its own, clearing the progress line first on a terminal.
    public func note(_ line: String) {
        write((isTerminal ? "\r\u{1B}[K" : "") + line + "\n")
    }

    /// Clears the progress line, once the run is over.
    public func finish() {
        if isTerminal { write("\r\u{1B}[K") }
    }

    /// On a terminal, shows which case is being calibrated; otherwise, a line with its iterations.
    public func calibrated(_ key: CaseKey, iterations: Int, nanosecondsPerOperation: Double) {
        calibratedCount += 1
        if isTerminal {
            draw("\(prefix)calibrating \(calibratedCount)/\(caseCount): \(key)")
        } else if !quietOffTerminal {
            let estimate = NumberFormat.nanoseconds(nanosecondsPerOperation)
            write("calibrated \(key): \(iterations) iterations per sample, about \(estimate) ns/op\n")
        }
    }

    /// A line naming the case and why it failed, always.
    public func failed(_ key: CaseKey, reason: String) {
        note("FAILED \(key): \(reason)")
    }

    /// On a terminal, the share of samples taken, the case, and the time left.
    public func sampled(_ key: CaseKey, done: Int, of total: Int, remainingSeconds: Double) {
        guard isTerminal else { return }
        let percent = done * 100 / max(total, 1)
        draw(
            "\(prefix)sampling \(percent)% (\(done)/\(total)) \(key), "
                + "about \(Int(remainingSeconds.rounded(.up))) s left")
    }

    /// Off a terminal, a line with the case's median and its spread.
    public func finished(_ key: CaseKey, nanosecondsPerOperation: [Double]) {
        guard !isTerminal && !quietOffTerminal, let statistics = Statistics(nanosecondsPerOperation) else { return }
        let median = NumberFormat.nanoseconds(statistics.median)
        let cv = String(format: "%.1f", statistics.coefficientOfVariation * 100)
        write("measured \(key): median \(median) ns/op ±\(cv)% over \(statistics.count) samples\n")
    }

    /// A measuring process (or, in `bench ab`, a pair of them) starts: a line off a terminal, the
    /// progress line on one.
    public func process(_ index: Int, of count: Int, remainingSeconds: Double?, unit: String = "process") {
        let left = remainingSeconds.map { ", about \(Int($0.rounded(.up))) s left" } ?? ""
        if isTerminal {
            draw("measuring in \(unit) \(index + 1) of \(count)\(left)", force: true)
        } else {
            write("measuring in \(unit) \(index + 1) of \(count)\(left)\n")
        }
    }

    /// Redraws the progress line, at most 20 times a second unless forced.
    private func draw(_ line: String, force: Bool = false) {
        let now = MonotonicClock.now()
        guard force || now - lastDraw > 50_000_000 else { return }
        lastDraw = now
        write("\r\u{1B}[K" + line)
    }
}
