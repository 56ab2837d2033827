import Foundation

/// Counts each case's instructions per operation under Callgrind, with collection toggled on only
/// inside `PKCEBenchKit_countedLoop`, for N and for 2N iterations, so that what a call costs once
/// cancels. The article "Instruction counts" describes the method and its limits.
package struct InstructionCounter {
    package var valgrind: String
    /// The `objcopy` executable (binutils), to strip the debug information Valgrind cannot read.
    package var objcopy: String
    /// The `bench` whose worker makes the counted calls (``WorkerProtocol/Request/count(_:)``).
    package var executable: String
    /// Asked while the worker runs whether a signal asked the run to stop.
    package var cancellation: Cancellation

    /// A counter of `executable`'s counted calls, with the `valgrind` and `objcopy` of `PATH`,
    /// once it is clear that `selection` of a build for `targetCPU` can be counted.
    ///
    /// - Throws: ``BenchError``: `.usage` for more than one thread or an AVX-512 build;
    ///   `.toolMissing`.
    package static func forCounting(
        executable: String, targetCPU: String, selection: Selection, cancellation: Cancellation
    ) throws(BenchError) -> InstructionCounter {
        guard selection.threads == 1 else {
            throw BenchError(.usage, "--metric instructions counts on one thread; leave out --threads")
        }
        try requireCountable(targetCPU: targetCPU, of: "this build")
        func tool(_ name: String, package: String) throws(BenchError) -> String {
            guard let path = executableInPath(name) else {
                throw BenchError(
                    .toolMissing,
                    "--metric instructions needs \(name), which is not installed (apt-get install -y \(package))")
            }
            return path
        }
        return InstructionCounter(
            valgrind: try tool("valgrind", package: "valgrind"), objcopy: try tool("objcopy", package: "binutils"),
            executable: executable, cancellation: cancellation)
    }

    /// Checks that a build compiled for `targetCPU` can run under Valgrind 3.19, which does not
    /// emulate AVX-512.
    ///
    /// - Throws: ``BenchError``: `.usage` for an `x86-64-v4` build.
    package static func requireCountable(targetCPU: String, of build: String) throws(BenchError) {
        guard targetCPU != "x86-64-v4" else {
            throw BenchError(
                .usage,
                "--metric instructions cannot count \(build): it was compiled for x86-64-v4 (AVX-512, as "
                    + "-target-cpu native gives on a CPU with AVX-512), which Valgrind cannot run; "
                    + "count a build without -target-cpu")
        }
    }

    /// The whole environment of the counted worker, the same whatever `bench` was started with, so
    /// that start-up leaves the heap and `Hasher` alike in every run; the article "Instruction
    /// counts" says why each variable is set.
    static var workerEnvironment: [String] {
        ["SWIFT_BACKTRACE=enable=no", "SWIFT_DETERMINISTIC_HASHING=1", "LC_ALL=C", "PKCE_SWIFT_SHA256=portable"]
            + (ProcessInfo.processInfo.environment["OPENSSL_ia32cap"].map { ["OPENSSL_ia32cap=\($0)"] } ?? [])
    }

    /// Counts `cases`, which `selection` makes (the worker makes it again), in one worker of
    /// ``executable`` under Callgrind. With `check`, a worker of ``executable`` first checks its
    /// backends' correctness, natively, and the count fails if one fails: for a build that `bench`
    /// has not checked itself.
    ///
    /// - Returns: One measurement per case the worker has (an older build may lack some), in the
    ///   order of `cases`, and what the worker saw under Valgrind.
    /// - Throws: ``BenchError``: `.workerFailed` when the worker or Valgrind failed, or Callgrind's
    ///   profiles do not match the worker's calls; `.interrupted`, `.terminated`, `.cannotWrite`.
    package func measure(_ cases: [BenchmarkCase], selection: Selection, check: Bool = false) throws(BenchError) -> (
        measurements: [CaseMeasurement], counted: CountedCalls
    ) {
        let directory = try makeScratchDirectory(for: "Callgrind's profiles")
        defer { try? FileManager.default.removeItem(at: directory) }

        let log = directory.appendingPathComponent("valgrind.log").path
        /// Runs a counting job in a worker that `arguments` start, checking its backends first
        /// when `check` is set, and returns the account of its calls; a failure's message ends
        /// with the last line of `log`, when there is one.
        func count(_ arguments: [String], check: Bool, name: String, log: String?) throws(BenchError)
            -> CountedCalls
        {
            // Counted calls take no samples, so the plan goes unused: their iterations are
            // ``iterations(for:)``.
            let job = WorkerProtocol.Job(selection: selection, plan: .quick, check: check)
            do throws(BenchError) {
                let worker = try WorkerConnection(
                    executable: arguments[0], arguments: Array(arguments.dropFirst()),
                    environment: log == nil ? nil : Self.workerEnvironment, name: name, standardError: .captured,
                    helloTimeout: 120, cancellation: cancellation)
                let reply = try worker.ask(.count(job), within: nil)
                guard case .counted(let account) = reply else {
                    throw worker.broken(quoting: WorkerProtocol.line(reply))
                }
                // Callgrind writes its last profile as the worker exits: wait for it.
                try worker.finish(within: 120)
                return account
            } catch  where error.kind == .workerFailed || error.kind == .backendFailed {
                let lastLine = log.flatMap {
                    (try? String(contentsOfFile: $0, encoding: .utf8))?.split(separator: "\n").last
                }
                throw BenchError(error.kind, error.message + (lastLine.map { " (valgrind: \($0))" } ?? ""))
            }
        }

        if check {
            // The correctness check runs natively, in a worker of its own that also makes the
            // counted calls uncounted. Run in the counted worker, it would leave the heap in another
            // state, and the cases that allocate would count differently.
            _ = try count([executable, "worker"], check: true, name: "the worker of \(executable)", log: nil)
        }
        let stripped = directory.appendingPathComponent("counted-executable").path
        let strip = try ChildProcess(executable: objcopy, arguments: ["--strip-debug", executable, stripped])
        guard try strip.waitWatching(cancellation: cancellation) else {
            try cancellation.check()
            throw BenchError(.workerFailed, "objcopy could not copy \(executable) without its debug information")
        }
        let account = try count(
            [
                valgrind, "--tool=callgrind", "--callgrind-out-file=\(directory.path)/callgrind.out",
                "--collect-atstart=no", "--toggle-collect=\(CountedCalls.function)",
                "--dump-after=\(CountedCalls.function)", "--log-file=\(log)", stripped, "worker",
            ], check: false, name: "the worker of \(executable) under Callgrind", log: log)
        let profiles = try Self.profileTotals(in: directory)
        return (try Self.measurements(of: cases, from: account, profiles: profiles), account)
    }

    /// Each case's instructions per operation, from the worker's account of its counted calls and
    /// the totals of Callgrind's profiles, one per call in the same order: the difference between
    /// a case's two calls (N and 2N iterations) over N, which leaves out the call's fixed cost.
    ///
    /// - Throws: ``BenchError``: `.workerFailed` when the account and the profiles disagree. The
    ///   account may come from another build's worker (`bench ab`), so it is checked before it is used.
    static func measurements(of cases: [BenchmarkCase], from account: CountedCalls, profiles: [UInt64])
        throws(BenchError) -> [CaseMeasurement]
    {
        guard
            account.cases.allSatisfy({
                $0.failure != nil ? (0...2).contains($0.calls) : $0.calls == 2 && $0.iterations > 0
            })
        else {
            throw BenchError(
                .workerFailed,
                "the worker's account of its counted calls is malformed: a case makes two, of at least one "
                    + "iteration, unless it failed")
        }
        var totals = profiles[...]
        guard account.cases.map(\.calls).reduce(0, +) == totals.count else {
            throw BenchError(
                .workerFailed,
                "Callgrind wrote \(totals.count) profiles for \(account.cases.map(\.calls).reduce(0, +)) counted "
                    + "calls: was \(CountedCalls.function) inlined or renamed?")
        }
        var counts: [CaseKey: CaseMeasurement] = [:]
        for counted in account.cases {
            let mine = totals.prefix(counted.calls)
            totals = totals.dropFirst(counted.calls)
            guard let benchmark = cases.first(where: { $0.key == counted.key }) else { continue }
            if let failure = counted.failure {
                counts[counted.key] = .failed(benchmark.key, reason: failure, metric: .instructions)
                continue
            }
            let (short, long) = (mine[mine.startIndex], mine[mine.startIndex + 1])
            counts[counted.key] =
                long > short
                ? .counted(
                    benchmark.key, iterations: counted.iterations,
                    instructionsPerOperation: Double(long - short) / Double(counted.iterations))
                : .failed(
                    benchmark.key, reason: "its count did not grow with its iterations (\(short), \(long))",
                    metric: .instructions)
        }
        return cases.compactMap { counts[$0.key] }
    }

    /// The instruction totals of Callgrind's profiles `callgrind.out.1`, `.2`, …, in dump order.
    static func profileTotals(in directory: URL) throws(BenchError) -> [UInt64] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        let numbered = names.compactMap { name -> (Int, String)? in
            guard name.hasPrefix("callgrind.out."), let number = Int(name.dropFirst("callgrind.out.".count)) else {
                return nil
            }
            return (number, name)
        }.sorted { $0.0 < $1.0 }
        return try numbered.map { _, name throws(BenchError) in
            let path = directory.appendingPathComponent(name).path
            let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
            let totals = text.split(separator: "\n").first { $0.hasPrefix("totals:") || $0.hasPrefix("summary:") }
            guard let value = totals?.split(separator: " ").dropFirst().first.flatMap({ UInt64($0) }) else {
                throw BenchError(.workerFailed, "Callgrind's profile \(name) has no instruction total")
            }
            return value
        }
    }
}
