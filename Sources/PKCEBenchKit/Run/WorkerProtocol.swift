import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The contract between a run and the `bench worker` processes that measure for it, which in
/// `bench ab` come from two builds.
///
/// - `bench worker --protocol-version` prints ``handshake(for:)``: the protocol's version, then
///   what the build is, one `key value` line each.
/// - `bench worker --report FILE …` (a run's measuring process) takes the selection and sampling
///   options of a run, measures, and writes its report, a summary CSV with its samples beside it.
/// - `bench worker --serve …` (`bench ab`) calibrates the selected cases, then takes one sample at a
///   time when asked, over its standard input and output, in lines ``serve(_:readLine:write:)``
///   documents.
/// - `bench worker --count-instructions --report FILE …`, run under Callgrind by
///   ``InstructionCounter``, makes each selected case's counted calls and writes their account.
///   A build that can do this says `metrics time instructions` in its handshake.
///
/// A change to any of these that an older build would misread raises ``version``.
public enum WorkerProtocol {
    /// The version of the contract. 1: the options `--process --of --report --serve --check
    /// --samples --sample-time --warmup --threads --backend --operation --size`, reports of report
    /// schema 1, and the lines of ``serve(_:readLine:write:)``; since, compatibly, the handshake's
    /// `metrics` line and `--count-instructions` with its JSON account (a build whose handshake
    /// lacks the line has neither); the handshake's `selects` line with `--filter`, `--skip` and
    /// `--size OPERATION:SIZE` (a build whose handshake lacks it takes none of them).
    public static let version = 1

    /// The options of a worker's command line that name its cases and the length of its samples:
    /// `--sample-time`, `--warmup`, `--threads`, and `--backend`, `--operation` and `--size` where
    /// the selection names any.
    public static func arguments(selection: Selection, sampleTime: Duration, warmup: Duration) -> [String] {
        func milliseconds(_ duration: Duration) -> String {
            String(format: "%.6f", duration.nanoseconds / 1e6)
        }
        return ["--sample-time", milliseconds(sampleTime), "--warmup", milliseconds(warmup)]
            + arguments(selection: selection)
    }

    /// The command line of a worker that makes the counted calls of `selection` under Callgrind
    /// and writes their account to `reportPath`, checking its backends first when `check` is set.
    public static func countingArguments(selection: Selection, reportPath: String, check: Bool) -> [String] {
        ["worker", "--count-instructions", "--report", reportPath] + (check ? ["--check"] : [])
            + arguments(selection: selection)
    }

    /// `--threads`, and `--backend`, `--operation`, `--size`, `--filter` and `--skip` where the
    /// selection names any.
    private static func arguments(selection: Selection) -> [String] {
        var arguments = ["--threads", String(selection.threads)]
        if !selection.backends.isEmpty { arguments += ["--backend", selection.backends.joined(separator: ",")] }
        if !selection.operations.isEmpty {
            arguments += ["--operation", selection.operations.map(\.rawValue).joined(separator: ",")]
        }
        let scoped = BenchmarkOperation.allCases.flatMap { operation in
            (selection.scopedSizes[operation] ?? []).map { "\(operation.rawValue):\($0)" }
        }
        let sizes = selection.sizes.map(String.init) + scoped
        if !sizes.isEmpty {
            arguments += ["--size", sizes.joined(separator: ",")]
        }
        // One pattern per option: a regular expression may hold a comma.
        arguments += selection.filters.flatMap { ["--filter", $0] } + selection.skips.flatMap { ["--skip", $0] }
        return arguments
    }

    /// The first line of the handshake.
    static var greeting: String { "pkcebench-worker-protocol \(version)" }

    /// What a build says of itself in the handshake.
    public struct BuildFacts: Sendable, Equatable {
        /// `release` or `debug`.
        public var build: String
        /// The compile target, as ``BuildConfiguration/targetCPU`` gives it.
        public var targetCPU: String
        /// The Swift compiler that built it.
        public var swift: String
        /// The OpenSSL the build loads.
        public var openssl: String
        /// The libsodium the build loads.
        public var libsodium: String
        /// What its workers can measure: ``Metric/time`` always, ``Metric/instructions`` in builds
        /// that have `--metric instructions` (a handshake without a `metrics` line is older).
        public var metrics: Set<Metric>
        /// Whether its workers take `--filter`, `--skip` and `--size OPERATION:SIZE` (a handshake
        /// without a `selects` line is older).
        public var selectsByName: Bool

        /// Creates facts from known values.
        public init(
            build: String, targetCPU: String, swift: String, openssl: String, libsodium: String, metrics: Set<Metric>,
            selectsByName: Bool
        ) {
            self.build = build
            self.targetCPU = targetCPU
            self.swift = swift
            self.openssl = openssl
            self.libsodium = libsodium
            self.metrics = metrics
            self.selectsByName = selectsByName
        }

        /// The facts of this process's own build.
        public static func current(libraryVersions: [String: String]) -> BuildFacts {
            BuildFacts(
                build: BuildConfiguration.current, targetCPU: BuildConfiguration.targetCPU, swift: SwiftVersion.current,
                openssl: libraryVersions["openssl"] ?? "none", libsodium: libraryVersions["sodium"] ?? "none",
                metrics: Set(Metric.allCases), selectsByName: true)
        }

        fileprivate var fields: [(key: String, value: String)] {
            [
                ("build", build), ("target_cpu", targetCPU), ("swift", swift), ("openssl", openssl),
                ("libsodium", libsodium),
                ("metrics", Metric.allCases.filter(metrics.contains).map(\.rawValue).joined(separator: " ")),
            ] + (selectsByName ? [("selects", "filter skip operation:size")] : [])
        }
    }

    /// What `bench worker --protocol-version` prints.
    public static func handshake(for facts: BuildFacts) -> String {
        ([greeting] + facts.fields.map { "\($0.key) \($0.value)" }).joined(separator: "\n") + "\n"
    }

    /// The facts in a handshake, or `nil` when it is not one of this version.
    static func parse(handshake text: String) -> BuildFacts? {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
        guard lines.first == greeting else { return nil }
        var values: [String: String] = [:]
        for line in lines.dropFirst() {
            let parts = line.split(separator: " ", maxSplits: 1).map(String.init)
            guard let key = parts.first else { continue }
            values[key] = parts.count == 2 ? parts[1] : ""
        }
        guard let build = values["build"], let targetCPU = values["target_cpu"] else { return nil }
        let metrics = (values["metrics"] ?? Metric.time.rawValue).split(separator: " ").compactMap {
            Metric(rawValue: String($0))
        }
        return BuildFacts(
            build: build, targetCPU: targetCPU, swift: values["swift"] ?? "", openssl: values["openssl"] ?? "",
            libsodium: values["libsodium"] ?? "", metrics: Set(metrics),
            selectsByName: values["selects"]?.split(separator: " ").contains("filter") ?? false)
    }

    /// How long a build may take to answer the handshake: far longer than any build needs, and
    /// short enough that a program that never answers is not waited on for long.
    static let handshakeTimeout: Double = 15

    /// Asks the program at `path` for its handshake, to check that it is a `bench` that measures
    /// as this one does, before any measuring starts.
    ///
    /// - Returns: What the build says of itself.
    /// - Throws: ``BenchError``: 66 when there is no file at `path`, or it is not an executable
    ///   regular file; 65 when it cannot be started (not a program), fails, does not answer within
    ///   ``handshakeTimeout`` seconds, or answers something other than this protocol's handshake
    ///   (another program, or a build too old or too new).
    public static func check(executableAt path: String) throws(BenchError) -> BuildFacts {
        var status = stat()
        guard stat(path, &status) == 0 else {
            throw .missing(path, "no such file (the baseline bench executable)")
        }
        guard status.st_mode & S_IFMT == S_IFREG else { throw .missing(path, "is not a regular file") }
        guard access(path, X_OK) == 0 else { throw .missing(path, "is not executable") }

        let output = FileManager.default.temporaryDirectory.appendingPathComponent(
            "pkcebench-handshake-\(UUID().uuidString)"
        ).path
        defer { unlink(output) }
        let notBench = "is not a bench that speaks worker protocol \(version) (built from an older or newer commit?)"
        let process: ChildProcess
        do {
            process = try ChildProcess(
                executable: path, arguments: ["worker", "--protocol-version"], streams: .file(output))
        } catch {
            throw .malformed(path, "cannot be started: \(error.message)")
        }
        let deadline = MonotonicClock.now() + UInt64(handshakeTimeout * 1e9)
        while true {
            switch process.poll() {
            case nil:
                guard MonotonicClock.now() < deadline else {
                    process.stop(with: SIGKILL)
                    throw .malformed(path, "did not answer within \(Int(handshakeTimeout)) s: \(notBench)")
                }
                usleep(10_000)
                continue
            case .exited(0):
                break
            case .exited, .signalled:
                throw .malformed(path, notBench)
            }
            break
        }
        let answer = (try? ReportFiles.contents(of: output)).map { String(decoding: $0.prefix(4096), as: UTF8.self) }
        guard let answer, let facts = parse(handshake: answer) else { throw .malformed(path, notBench) }
        return facts
    }
}

// MARK: - Serving samples

extension WorkerProtocol {
    /// Serves samples of a calibrated session, as `bench worker --serve` does for `bench ab`.
    ///
    /// First it writes one line per case, `case OPERATION BACKEND SIZE THREADS`, in the session's
    /// order; then, per case, `calibrated INDEX ITERATIONS` or `failed INDEX REASON`; then `ready`.
    /// Then, for each line `sample INDEX` it reads, it takes that sample and writes
    /// `sample INDEX NS_PER_OP ITERATIONS ALLOCATIONS` (`-` where not counted), or
    /// `failed INDEX REASON`. It returns at `quit` or at the end of its input.
    ///
    /// - Parameters:
    ///   - session: The calibrated cases.
    ///   - readLine: The next line of input, without its newline; `nil` at the end.
    ///   - write: Writes one line, newline included, and flushes it.
    /// - Returns: Whether the input was well-formed to its end.
    public static func serve(
        _ session: SamplingSession, readLine: () -> String?, write: (String) -> Void
    ) -> Bool {
        for benchmark in session.cases {
            let key = benchmark.key
            write("case \(key.operation.rawValue) \(key.backend) \(key.size) \(key.threads)\n")
        }
        for index in session.cases.indices {
            write(
                session.failures[index].map { failedLine(index, $0) }
                    ?? "calibrated \(index) \(session.iterations[index])\n")
        }
        write("ready\n")
        while let line = readLine() {
            if line == "quit" { return true }
            let words = line.split(separator: " ")
            guard words.count == 2, words[0] == "sample", let index = Int(words[1]),
                session.cases.indices.contains(index)
            else { return false }
            if let sample = session.sample(index) {
                let allocations = sample.allocations.map(String.init) ?? "-"
                write(
                    "sample \(index) \(sample.nanosecondsPerOperation) \(sample.iterations) \(allocations)\n")
            } else {
                write(failedLine(index, session.failures[index] ?? "failed"))
            }
        }
        return true
    }

    private static func failedLine(_ index: Int, _ reason: String) -> String {
        // One line, whatever the reason holds.
        "failed \(index) \(reason.split(whereSeparator: \.isNewline).joined(separator: " "))\n"
    }
}
