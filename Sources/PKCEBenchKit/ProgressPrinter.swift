import Foundation
import PKCEBenchCore
import PKCEBenchReports

/// Reports a run's progress on standard error: one line rewritten in place on a terminal, a line
/// per event to a file or pipe (or `TERM=dumb`), only warnings and failures with `--quiet`.
package final class ProgressPrinter: ProgressObserver {
    package enum Style: Sendable, Equatable {
        case redraw
        case lines
        case quiet

        /// What standard error can show: ``redraw`` on a terminal whose `TERM` is not `dumb`,
        /// ``lines`` otherwise.
        package static func standardError(
            isTerminal: Bool = isatty(STDERR_FILENO) != 0,
            environment: [String: String] = ProcessInfo.processInfo.environment
        ) -> Style {
            isTerminal && environment["TERM"] != "dumb" ? .redraw : .lines
        }
    }

    package let style: Style

    package var isQuiet: Bool { style == .quiet }
    private let write: (String) -> Void
    private let caseCount: Int
    private let prefix: String
    private var calibratedCount = 0
    private var lastDraw: UInt64 = 0

    /// - Parameter prefix: Put before every progress line, such as `process 2/5: `.
    package init(
        caseCount: Int,
        prefix: String = "",
        style: Style = .standardError(),
        write: @escaping (String) -> Void = { FileHandle.standardError.write(Data($0.utf8)) }
    ) {
        self.caseCount = caseCount
        self.prefix = prefix
        self.style = style
        self.write = write
    }

    /// A warning or a failure: a line of its own, in every style.
    package func note(_ line: String) {
        // The line may quote a worker's or a file's text: shown, never obeyed.
        write((style == .redraw ? "\r\u{1B}[K" : "") + printable(line) + "\n")
    }

    /// What the run is doing or has done: a line of its own, except when quiet.
    package func info(_ line: String) {
        if style != .quiet { note(line) }
    }

    /// Clears the progress line, once the run is over.
    package func finish() {
        if style == .redraw { write("\r\u{1B}[K") }
    }

    /// When redrawn, shows which case is being calibrated; as lines, a line with its iterations.
    package func calibrated(_ key: CaseKey, iterations: Int, nanosecondsPerOperation: Double) {
        calibratedCount += 1
        switch style {
        case .redraw:
            draw("\(prefix)calibrating \(calibratedCount)/\(caseCount): \(key)")
        case .lines:
            let estimate = NumberFormat.nanoseconds(nanosecondsPerOperation)
            write("calibrated \(key): \(iterations) iterations per sample, about \(estimate) ns/op\n")
        case .quiet:
            break
        }
    }

    /// A line naming the case and why it failed, always.
    package func failed(_ key: CaseKey, reason: String) {
        note("FAILED \(key): \(reason)")
    }

    /// When redrawn, the share of samples taken, the case, and the time left.
    package func sampled(_ key: CaseKey, done: Int, of total: Int, remainingSeconds: Double) {
        guard style == .redraw else { return }
        let percent = done * 100 / max(total, 1)
        draw(
            "\(prefix)sampling \(percent)% (\(done)/\(total)) \(key), "
                + "about \(Int(remainingSeconds.rounded(.up))) s left")
    }

    /// As lines, a line with the case's median and its spread.
    package func finished(_ key: CaseKey, nanosecondsPerOperation: [Double]) {
        guard style == .lines, let statistics = Statistics(nanosecondsPerOperation) else { return }
        let median = NumberFormat.nanoseconds(statistics.median)
        let cv = String(format: "%.1f", statistics.coefficientOfVariation * 100)
        write("measured \(key): median \(median) ns/op ±\(cv)% over \(statistics.count) samples\n")
    }

    /// A measuring process (or, in `bench ab`, a pair of them) starts.
    package func process(_ index: Int, of count: Int, remainingSeconds: Double?, unit: String) {
        let left = remainingSeconds.map { ", about \(Int($0.rounded(.up))) s left" } ?? ""
        switch style {
        case .redraw: draw("measuring in \(unit) \(index + 1) of \(count)\(left)", force: true)
        case .lines: write("measuring in \(unit) \(index + 1) of \(count)\(left)\n")
        case .quiet: break
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
