import Foundation

/// A `bench worker` process seen from the run that started it: ``WorkerProtocol`` over its pipes.
final class WorkerConnection {
    /// What to call it in messages: `measuring process 2`, `the baseline's worker 3 (PATH)`.
    let name: String
    /// The job of the last request that carried one, which later replies answer.
    private var job: WorkerProtocol.Job?
    private let process: ChildProcess
    private let cancellation: Cancellation
    private var pending: [UInt8] = []
    /// What each read fills: made once, since `bench ab` reads a line per sample.
    private var chunk = [UInt8](repeating: 0, count: 16384)
    private let coder = WorkerProtocol.Coder()
    /// The file the worker's standard error goes to, whose last line explains a failure.
    private let errors: String?

    enum StandardError {
        /// To this process's: a measuring process's progress line, on a terminal.
        case shared
        /// To a temporary file, whose last line ends a failure's message.
        case captured
    }

    /// Starts a worker and reads its hello. `environment` is the worker's whole environment, as
    /// `NAME=value` (this process's when `nil`); `helloTimeout` is in seconds.
    ///
    /// - Throws: ``BenchError``: `.workerFailed` when it does not say this version's hello in time;
    ///   `.interrupted`, `.terminated`.
    init(
        executable: String, arguments: [String], environment: [String]? = nil, name: String,
        standardError: StandardError, helloTimeout: Double, cancellation: Cancellation
    ) throws(BenchError) {
        self.name = name
        self.cancellation = cancellation
        errors =
            standardError == .shared
            ? nil
            : FileManager.default.temporaryDirectory.appendingPathComponent(
                "pkcebench-worker-\(UUID().uuidString).stderr"
            ).path
        process = try ChildProcess(
            executable: executable, arguments: arguments, streams: .pipes(standardError: errors),
            environment: environment)
        let line = try readLine(within: helloTimeout, limit: WorkerProtocol.lineLimit)
        guard WorkerProtocol.isHello(line) else { throw broken(quoting: line) }
    }

    deinit {
        if let errors { unlink(errors) }
    }

    /// Sends `request` and reads the answer, waiting at most `seconds` for it (`nil`: until a
    /// signal). `caseCount`, the cases of the request's job, bounds the reply.
    ///
    /// - Throws: As ``init(executable:arguments:environment:name:standardError:helloTimeout:cancellation:)``;
    ///   `.backendFailed` with the worker's message when it refused the job (its backend failed its
    ///   check, or its build cannot make the selection); `.workerFailed` when the reply is wrong
    ///   (``WorkerProtocol/problem(with:answering:job:)``).
    func ask(
        _ request: WorkerProtocol.Request, within seconds: Double?, caseCount: Int = 0
    ) throws(BenchError) -> WorkerProtocol.Reply {
        switch request {
        case .measure(let job), .calibrate(let job), .count(let job): self.job = job
        case .describe, .sample, .quit: break
        }
        try send(coder.line(request))
        let line = try readLine(
            within: seconds, limit: WorkerProtocol.lineLimit(answering: request, caseCount: caseCount))
        guard let reply = coder.decode(WorkerProtocol.Reply.self, from: line) else { throw broken(quoting: line) }
        if let problem = WorkerProtocol.problem(with: reply, answering: request, job: job) {
            throw broken(problem)
        }
        if case .refused(_, let message) = reply {
            _ = awaitExit(within: Self.quitTimeout)
            throw BenchError(.backendFailed, "\(name) refused its job: \(message.prefix(300))")
        }
        return reply
    }

    /// The worker broke the protocol with `line`: it is stopped, and this is the error to throw.
    func broken(quoting line: String) -> BenchError {
        broken("'\(line.prefix(80))'")
    }

    /// The worker broke the protocol, as `what` says: it is stopped, and this is the error to throw.
    private func broken(_ what: String) -> BenchError {
        process.stop(with: SIGKILL)
        return BenchError(.workerFailed, "\(name) broke the worker protocol: \(what)")
    }

    /// How long a worker has to exit once told to, before it is stopped.
    static let quitTimeout: Double = 5

    /// Tells the worker to quit and waits for it to exit, stopping it after `seconds`.
    ///
    /// - Throws: ``BenchError``: `.workerFailed` unless it exits 0 in time (a sanitizer's report at
    ///   exit fails it); `.interrupted`, `.terminated`.
    func finish(within seconds: Double = quitTimeout) throws(BenchError) {
        _ = process.writeInput(Array(coder.line(WorkerProtocol.Request.quit).utf8))
        process.closeInput()
        guard let status = awaitExit(within: seconds) else {
            throw BenchError(.workerFailed, "\(name) did not exit within \(Int(seconds)) s of being told to")
        }
        if case .exited(0) = status { return }
        throw error(for: status)
    }

    /// How the worker ended, waiting up to `seconds`; `nil` when it had to be stopped.
    private func awaitExit(within seconds: Double) -> ChildProcess.Status? {
        let deadline = MonotonicClock.now() + UInt64(seconds * 1e9)
        while true {
            if let status = process.poll() { return status }
            guard MonotonicClock.now() < deadline else {
                process.stop(with: SIGKILL)
                return nil
            }
            usleep(1_000)
        }
    }

    private func send(_ line: String) throws(BenchError) {
        guard process.writeInput(Array(line.utf8)) else { throw stopped() }
    }

    /// The next line the worker writes, waiting at most `seconds` for it; a line longer than
    /// `limit` bytes breaks the protocol before more of it is kept.
    private func readLine(within seconds: Double?, limit: Int) throws(BenchError) -> String {
        let deadline = seconds.map { MonotonicClock.now() + UInt64($0 * 1e9) }
        var scanned = 0
        while true {
            if let newline = pending[scanned...].firstIndex(of: UInt8(ascii: "\n")), newline <= limit {
                let line = String(decoding: pending[..<newline], as: UTF8.self)
                pending.removeSubrange(...newline)
                return line
            }
            scanned = pending.count
            guard scanned <= limit else {
                pending = []
                throw broken("a line longer than \(limit) bytes")
            }
            if let signal = cancellation.signal {
                // A worker waiting for its next request would not see a signal sent to this
                // process alone (kill, not a terminal's Ctrl-C): stop it for good.
                process.stop(with: SIGKILL)
                throw InterruptSignals.error(for: signal)
            }
            if let deadline, MonotonicClock.now() >= deadline {
                process.stop(with: SIGKILL)
                throw BenchError(.workerFailed, "\(name) did not answer within \(Int(seconds ?? 0)) s")
            }
            var descriptor = pollfd(fd: process.output, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, 20)
            if ready < 0 && errno != EINTR { throw stopped() }
            guard ready > 0 else { continue }
            let count = chunk.withUnsafeMutableBytes { read(process.output, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { throw stopped() }
            pending += chunk[..<count]
        }
    }

    private func stopped() -> BenchError {
        error(for: process.wait())
    }

    /// What a worker's ending means to the run, when it ended before its work was done.
    private func error(for status: ChildProcess.Status) -> BenchError {
        switch status {
        case .exited(0):
            return BenchError(.workerFailed, "\(name) exited before it answered\(lastError)")
        case .exited(let code):
            if let signal = InterruptSignals.signalNumber(forExitStatus: code) {
                return InterruptSignals.error(for: signal)
            }
            return BenchError(.workerFailed, "\(name) exited with \(code)\(lastError)")
        case .signalled(let signal):
            if signal == SIGINT || signal == SIGTERM { return InterruptSignals.error(for: signal) }
            return BenchError(.workerFailed, "\(name) died of signal \(signal)\(lastError)")
        }
    }

    /// `: ` and the last line of the worker's captured standard error, without its `bench: `.
    private var lastError: String {
        guard let errors, let bytes = FileManager.default.contents(atPath: errors),
            let last = String(decoding: bytes.suffix(4096), as: UTF8.self).split(whereSeparator: \.isNewline).last
        else { return "" }
        let line = last.hasPrefix("bench: ") ? last.dropFirst(7) : last[...]
        return ": " + line.prefix(300)
    }
}

extension WorkerProtocol {
    /// How long a build may take to say hello: far longer than any build needs.
    static let helloTimeout: Double = 15

    /// Starts the program at `path` as a worker, reads its hello and asks what it is.
    ///
    /// - Throws: ``BenchError``: `.missingInput` when `path` is not an executable file;
    ///   `.malformedInput` when it does not say this version's hello within `helloTimeout` seconds.
    package static func check(executableAt path: String) throws(BenchError) -> BuildFacts {
        var status = stat()
        guard stat(path, &status) == 0 else {
            throw .missing(path, "no such file (the baseline bench executable)")
        }
        guard status.st_mode & S_IFMT == S_IFREG else { throw .missing(path, "is not a regular file") }
        guard access(path, X_OK) == 0 else { throw .missing(path, "is not executable") }
        do {
            let worker = try WorkerConnection(
                executable: path, arguments: ["worker"], name: path, standardError: .captured,
                helloTimeout: helloTimeout, cancellation: .never)
            defer { try? worker.finish() }
            let reply = try worker.ask(.describe, within: helloTimeout)
            guard case .described(let facts) = reply else { throw worker.broken(quoting: WorkerProtocol.line(reply)) }
            return facts
        } catch {
            throw .malformed(
                path, "is not a bench that speaks worker protocol \(version) (built from an older or newer commit?)")
        }
    }
}
