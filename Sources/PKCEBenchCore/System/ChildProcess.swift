import Foundation

/// The first executable file called `name` in the directories of `PATH`: the program a child
/// process of that name would be.
package func executableInPath(_ name: String) -> String? {
    let directories = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
    return directories.map { "\($0)/\(name)" }.first(where: FileManager.default.isExecutableFile)
}

/// A child process started with `posix_spawn`. (Foundation's `Process` leaks under
/// LeakSanitizer.)
final class ChildProcess {
    enum Status: Equatable {
        case exited(Int32)
        case signalled(Int32)
    }

    enum Streams {
        /// Input from `/dev/null`, output to the file; standard error shared with this process.
        case file(String)
        /// Input from `/dev/null`, output and standard error to the files (maybe the same one).
        case files(output: String, error: String)
        /// Both through Unix socket pairs (``writeInput(_:)``, ``output``); standard error to the
        /// file, or shared with this process when there is none.
        case pipes(standardError: String?)
    }

    private let pid: pid_t
    private var finished: Status?
    /// With ``Streams/pipes``, this process's end of the child's standard input, until
    /// ``closeInput()``; otherwise -1.
    private var input: Int32
    /// With ``Streams/pipes``, the read end of the child's standard output; otherwise -1.
    let output: Int32

    /// How a file for the child's output is opened: a symbolic link planted at its name is not
    /// followed (`open` fails with `ELOOP`, and the child does not start).
    private static let outputFlags = O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW

    /// `environment` holds `NAME=value` strings; `nil` inherits this process's.
    ///
    /// - Throws: ``BenchError``: `.workerFailed` when it cannot be started.
    init(
        executable: String, arguments: [String], streams: Streams = .file("/dev/null"), environment: [String]? = nil
    ) throws(BenchError) {
        // The first failure of the calls that set the child up, which then is not started.
        var setupStatus: Int32 = 0
        func setUp(_ status: Int32) {
            if setupStatus == 0 { setupStatus = status }
        }
        var actions = posix_spawn_file_actions_t()
        setUp(posix_spawn_file_actions_init(&actions))
        defer { posix_spawn_file_actions_destroy(&actions) }
        var toChild: [Int32] = [-1, -1]
        var fromChild: [Int32] = [-1, -1]
        switch streams {
        case .file(let path):
            setUp(posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0))
            setUp(posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, path, Self.outputFlags, 0o600))
        case .files(let output, let error):
            setUp(posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0))
            setUp(
                posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, output, Self.outputFlags, 0o600))
            if error == output {
                setUp(posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO))
            } else {
                setUp(
                    posix_spawn_file_actions_addopen(
                        &actions, STDERR_FILENO, error, Self.outputFlags, 0o600))
            }
        case .pipes(let standardError):
            // Socket pairs rather than pipes: made close-on-exec atomically (Glibc's module lacks
            // pipe2), so that a worker started at the same moment on another thread cannot inherit
            // this one's ends and hold them open; and written with MSG_NOSIGNAL, so that a child
            // that has exited is an EPIPE to report, not a SIGPIPE that ends this process.
            let kind = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
            guard socketpair(AF_UNIX, kind, 0, &toChild) == 0 else {
                throw BenchError(.workerFailed, "cannot make a socket pair: \(String(cString: strerror(errno)))")
            }
            guard socketpair(AF_UNIX, kind, 0, &fromChild) == 0 else {
                close(toChild[0])
                close(toChild[1])
                throw BenchError(.workerFailed, "cannot make a socket pair: \(String(cString: strerror(errno)))")
            }
            setUp(posix_spawn_file_actions_adddup2(&actions, toChild[0], STDIN_FILENO))
            setUp(posix_spawn_file_actions_adddup2(&actions, fromChild[1], STDOUT_FILENO))
            if let standardError {
                setUp(
                    posix_spawn_file_actions_addopen(
                        &actions, STDERR_FILENO, standardError, Self.outputFlags, 0o600))
            }
        }
        defer {
            // The child's ends: this process never uses them.
            if toChild[0] >= 0 { close(toChild[0]) }
            if fromChild[1] >= 0 { close(fromChild[1]) }
        }

        // The child starts with default handlers and nothing blocked, whatever this process set.
        var attributes = posix_spawnattr_t()
        setUp(posix_spawnattr_init(&attributes))
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        var handled = sigset_t()
        sigemptyset(&handled)
        sigaddset(&handled, SIGINT)
        sigaddset(&handled, SIGTERM)
        sigaddset(&handled, SIGPIPE)
        setUp(posix_spawnattr_setsigmask(&attributes, &none))
        setUp(posix_spawnattr_setsigdefault(&attributes, &handled))
        setUp(posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF)))

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var envp = (environment ?? []).map { strdup($0) } + [nil]
        defer { envp.forEach { free($0) } }
        var pid = pid_t()
        let status =
            setupStatus != 0
            ? setupStatus
            : environment == nil
                ? posix_spawn(&pid, executable, &actions, &attributes, argv, environ)
                : posix_spawn(&pid, executable, &actions, &attributes, argv, &envp)
        guard status == 0 else {
            if toChild[1] >= 0 { close(toChild[1]) }
            if fromChild[0] >= 0 { close(fromChild[0]) }
            throw BenchError(
                .workerFailed, "cannot start a measuring process (\(executable)): \(String(cString: strerror(status)))"
            )
        }
        self.pid = pid
        self.input = toChild[1]
        self.output = fromChild[0]
    }

    /// Writes all of `bytes` to the child's standard input; `false` when the child closed its input
    /// (it exited) or has none.
    func writeInput(_ bytes: [UInt8]) -> Bool {
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes {
                send(input, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return false }
            written += count
        }
        return true
    }

    /// Closes the child's standard input: it reads the end of its input.
    func closeInput() {
        if input >= 0 { close(input) }
        input = -1
    }

    deinit {
        closeInput()
        if output >= 0 { close(output) }
        // Never leave a zombie, nor a worker running on after its run.
        if poll() == nil { stop(with: SIGKILL) }
    }

    /// The status once the process has ended; `nil` while it runs.
    func poll() -> Status? {
        if let finished { return finished }
        var status: Int32 = 0
        let result = waitpid(pid, &status, WNOHANG)
        if result == 0 || (result < 0 && errno == EINTR) { return nil }
        // As in wait(): anything but its status means the child is gone, reaped or never ours.
        finished = result == pid ? Self.status(status) : .signalled(SIGKILL)
        return finished
    }

    /// A `waitpid` status as an exit code or a signal. (WIFEXITED and WEXITSTATUS are macros Swift
    /// cannot import.)
    private static func status(_ status: Int32) -> Status {
        status & 0x7F == 0 ? .exited((status >> 8) & 0xFF) : .signalled(status & 0x7F)
    }

    /// Sends `signal` and waits for the process to end.
    func stop(with signal: Int32) {
        guard poll() == nil else { return }
        kill(pid, signal)
        _ = wait()
    }

    func wait() -> Status {
        if let finished { return finished }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            // Anything but an interruption means the child is gone: reaped, or never ours.
            guard errno == EINTR else {
                finished = .signalled(SIGKILL)
                return .signalled(SIGKILL)
            }
        }
        finished = Self.status(status)
        return finished ?? .signalled(SIGKILL)
    }

    /// Waits for the child to end, asking `cancellation` every 20 ms whether a signal asked the run
    /// to stop, and then stopping the child; returns whether it exited 0.
    ///
    /// - Throws: ``BenchError``: `.interrupted` or `.terminated` when a signal asked the run to stop.
    func waitWatching(cancellation: Cancellation) throws(BenchError) -> Bool {
        while true {
            if let signal = cancellation.signal {
                stop(with: signal)
                throw InterruptSignals.error(for: signal)
            }
            if let status = poll() { return status == .exited(0) }
            usleep(20_000)
        }
    }
}

extension ChildProcess {
    /// What a short command printed, and whether it exited 0.
    struct Captured {
        var succeeded: Bool
        var output: String
        var error: String
        /// Whether the output went on past ``ChildProcess/capturedLimit``, and was cut there.
        var isTruncated = false

        /// The last line of its standard error, or of its output.
        var lastLine: String {
            (error.split(separator: "\n").last ?? output.split(separator: "\n").last).map(String.init) ?? "no output"
        }
    }

    /// The most bytes of a short command's output, and of its errors, that ``run(_:_:timeout:)`` reads.
    static let capturedLimit = 16 << 20

    /// Runs `executable` with `arguments` to its end, its output and errors captured in files of
    /// a private scratch directory, of which the first ``capturedLimit`` bytes each are read; a
    /// command still running after `timeout` seconds is killed, and has failed.
    ///
    /// - Throws: ``BenchError``: `.workerFailed` when it cannot be started; `.cannotWrite`.
    static func run(_ executable: String, _ arguments: [String], timeout: Double = 600) throws(BenchError) -> Captured {
        let directory = try makeScratchDirectory(for: "the output of \(executable)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("output")
        let error = directory.appendingPathComponent("error")
        let process = try ChildProcess(
            executable: executable, arguments: arguments, streams: .files(output: output.path, error: error.path))
        let deadline = MonotonicClock.now() + UInt64(timeout * 1e9)
        var status = process.poll()
        while status == nil && MonotonicClock.now() < deadline {
            usleep(2_000)
            status = process.poll()
        }
        if status == nil { process.stop(with: SIGKILL) }
        func read(_ file: URL) -> (text: String, isTruncated: Bool) {
            guard let handle = try? FileHandle(forReadingFrom: file) else { return ("", false) }
            defer { try? handle.close() }
            let data = ((try? handle.read(upToCount: capturedLimit + 1)) ?? nil) ?? Data()
            return (String(decoding: data.prefix(capturedLimit), as: UTF8.self), data.count > capturedLimit)
        }
        var errors = read(error).text
        if status == nil { errors += "\n\(executable) was stopped after \(String(format: "%g", timeout)) s" }
        let printed = read(output)
        return Captured(
            succeeded: status == .exited(0), output: printed.text, error: errors, isTruncated: printed.isTruncated)
    }
}
