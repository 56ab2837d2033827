import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A `bench worker --serve` process, seen from the run that started it.
final class ServingWorker {
    /// What to call it in messages: `the baseline's worker 3`.
    let name: String
    /// Its cases, in its order.
    private(set) var keys: [CaseKey] = []
    /// Why a case failed in it, by its index.
    private(set) var failures: [Int: String] = [:]
    private let process: ChildProcess
    private let interruption: () -> Int32?
    private let timeout: Double
    private var pending: [UInt8] = []
    /// Where the worker's standard error goes: its last line explains a failure, in one line of ours.
    private let errors: String

    /// Starts the worker and waits until it has calibrated its cases.
    ///
    /// - Parameters:
    ///   - readyTimeout: Seconds to wait for the worker to start and calibrate every case.
    ///   - timeout: Seconds to wait for any one sample.
    /// - Throws: ``BenchError``: 70 when it cannot start, exits, breaks the protocol or does not
    ///   answer in time; 130 or 143 when a signal stopped the run.
    init(
        executable: String, arguments: [String], name: String, readyTimeout: Double, timeout: Double,
        interruption: @escaping () -> Int32?
    ) throws(BenchError) {
        self.name = name
        self.interruption = interruption
        self.timeout = timeout
        errors =
            FileManager.default.temporaryDirectory.appendingPathComponent(
                "pkcebench-worker-\(UUID().uuidString).stderr"
            ).path
        process = try ChildProcess(
            executable: executable, arguments: arguments, streams: .pipes(standardError: errors))
        while true {
            let line = try readLine(within: readyTimeout)
            let words = line.split(separator: " ", maxSplits: 2).map(String.init)
            switch words.first {
            case "case":
                let parts = line.split(separator: " ").map(String.init)
                guard parts.count == 5, let operation = BenchmarkOperation(rawValue: parts[1]),
                    let size = Int(parts[3]), let threads = Int(parts[4])
                else { throw broken(line) }
                keys.append(CaseKey(backend: parts[2], operation: operation, size: size, threads: threads))
            case "calibrated":
                continue
            case "failed":
                guard words.count >= 2, let index = Int(words[1]) else { throw broken(line) }
                failures[index] = words.count == 3 ? words[2] : "failed"
            case "ready":
                return
            default:
                throw broken(line)
            }
        }
    }

    deinit {
        unlink(errors)
    }

    /// Takes one sample of the case at `index` of this worker.
    ///
    /// - Returns: The sample, or `nil` when the case failed (``failures`` says why).
    /// - Throws: As ``init(executable:arguments:name:readyTimeout:timeout:interruption:)``.
    func sample(_ index: Int, process processIndex: Int) throws(BenchError) -> Sample? {
        try send("sample \(index)\n")
        let line = try readLine(within: timeout)
        let words = line.split(separator: " ", maxSplits: 2).map(String.init)
        if words.first == "failed", words.count >= 2, Int(words[1]) == index {
            failures[index] = words.count == 3 ? words[2] : "failed"
            return nil
        }
        let parts = line.split(separator: " ").map(String.init)
        guard parts.count == 5, parts[0] == "sample", Int(parts[1]) == index, let nanoseconds = Double(parts[2]),
            nanoseconds.isFinite, nanoseconds >= 0, let iterations = Int(parts[3])
        else { throw broken(line) }
        return Sample(
            iterations: iterations, nanosecondsPerOperation: nanoseconds, process: processIndex,
            allocations: Int(parts[4]))
    }

    /// Tells the worker to exit and waits for it.
    func finish() {
        try? send("quit\n")
        _ = process.wait()
    }

    private func send(_ line: String) throws(BenchError) {
        var bytes = Array(line.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { write(process.input, $0.baseAddress, $0.count) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { throw stopped() }
            bytes = bytes.dropFirst(written)
        }
    }

    /// The next line the worker writes, waiting at most `seconds` for it.
    private func readLine(within seconds: Double) throws(BenchError) -> String {
        let deadline = MonotonicClock.now() + UInt64(seconds * 1e9)
        while true {
            if let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: pending[..<newline], as: UTF8.self)
                pending.removeSubrange(...newline)
                return line
            }
            if let signal = interruption() {
                // A worker waiting for its next line would not see a signal sent to this process
                // alone (kill, not a terminal's Ctrl-C): stop it for good.
                process.stop(with: SIGKILL)
                throw InterruptSignals.error(for: signal)
            }
            guard MonotonicClock.now() < deadline else {
                process.stop(with: SIGKILL)
                throw BenchError(.backendFailed, "\(name) did not answer within \(Int(seconds)) s")
            }
            var descriptor = pollfd(fd: process.output, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, 100)
            if ready < 0 && errno != EINTR { throw stopped() }
            guard ready > 0 else { continue }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let count = chunk.withUnsafeMutableBytes { read(process.output, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { throw stopped() }
            pending += chunk[..<count]
        }
    }

    /// The worker closed its output: it exited, or is about to.
    private func stopped() -> BenchError {
        switch process.wait() {
        case .exited(let code):
            if let signal = InterruptSignals.signalNumber(forExitStatus: code) {
                return InterruptSignals.error(for: signal)
            }
            return BenchError(.backendFailed, "\(name) exited with \(code)\(lastError)")
        case .signalled(let signal):
            if signal == SIGINT || signal == SIGTERM { return InterruptSignals.error(for: signal) }
            return BenchError(.backendFailed, "\(name) died of signal \(signal)\(lastError)")
        }
    }

    /// `: ` and the last line the worker wrote to its standard error, without its `bench: `, if any.
    private var lastError: String {
        guard let bytes = try? ReportFiles.contents(of: errors),
            let last = String(decoding: bytes.suffix(4096), as: UTF8.self).split(whereSeparator: \.isNewline).last
        else { return "" }
        let line = last.hasPrefix("bench: ") ? last.dropFirst(7) : last[...]
        return ": " + line.prefix(300)
    }

    private func broken(_ line: String) -> BenchError {
        process.stop(with: SIGKILL)
        return BenchError(.backendFailed, "\(name) broke the worker protocol: '\(line.prefix(80))'")
    }
}
