/// Measures a run's cases in several processes, one after another, each taking an even share of
/// the samples, and pools them; the article "Method" ("Several processes") says why.
package struct MeasuringProcesses {
    /// How many processes to use; fewer when there are not at least two samples for each.
    package var count: Int
    /// The program and arguments that start a worker: normally `bench worker`.
    package var command: (executable: String, arguments: [String])
    /// Asked while a process runs whether a signal asked the run to stop.
    package var cancellation: Cancellation
    /// Whether the workers are another build's (`bench backfill`), not this process's.
    package var isAnotherBuild = false

    package init(
        count: Int, command: (executable: String, arguments: [String]), cancellation: Cancellation
    ) {
        self.count = count
        self.command = command
        self.cancellation = cancellation
    }

    /// Measures `cases`, which `selection` makes, with `plan`, its samples shared out among the
    /// processes; with `check`, the first checks its backends first.
    ///
    /// - Returns: One measurement per case, in the order of `cases`; a case that failed in any
    ///   process is failed, and every case is failed when a process failed.
    /// - Throws: ``BenchError``: `.interrupted`, `.terminated`.
    package func measure(
        _ cases: [BenchmarkCase], selection: Selection, plan: SamplingPlan, progress: (any ProgressObserver)?,
        check: Bool
    ) throws(BenchError) -> [CaseMeasurement] {
        guard !cases.isEmpty else { return [] }
        let processes = max(1, min(count, plan.samples / 2))
        var parts: [CaseKey: [CaseMeasurement]] = [:]
        let started = MonotonicClock.now()
        for index in 0..<processes {
            let elapsed = Double(MonotonicClock.now() - started) / 1e9
            progress?.process(
                index, of: processes,
                remainingSeconds: index == 0 ? nil : elapsed / Double(index) * Double(processes - index))
            var share = plan
            share.samples = plan.samples / processes + (index < plan.samples % processes ? 1 : 0)
            let job = WorkerProtocol.Job(
                selection: selection, plan: share, process: index, processes: processes,
                check: check && index == 0)
            // A process's failure is not tied to one case: every case fails with it, and the
            // processes left are spared a crash that would most likely repeat.
            let measured: [CaseMeasurement]
            do {
                measured = try measure(job, cases: cases, quiet: progress?.isQuiet == true)
            } catch  where error.kind == .interrupted || error.kind == .terminated {
                throw error
            } catch {
                return cases.map { .failed($0.key, reason: error.message) }
            }
            for measurement in measured {
                parts[measurement.key, default: []].append(measurement)
            }
        }
        return cases.map { CaseMeasurement.merging(parts[$0.key] ?? [], key: $0.key) }
    }

    /// Runs one process to its end: its measurements, in the order of `cases`. A quiet run keeps
    /// its process's standard error for the message of a failure.
    private func measure(
        _ job: WorkerProtocol.Job, cases: [BenchmarkCase], quiet: Bool
    ) throws(BenchError) -> [CaseMeasurement] {
        let worker = try WorkerConnection(
            executable: command.executable, arguments: command.arguments, name: "measuring process \(job.process + 1)",
            standardError: quiet ? .captured : .shared, helloTimeout: WorkerProtocol.helloTimeout,
            cancellation: cancellation)
        let reply = try worker.ask(.measure(job), within: nil, caseCount: cases.count)
        guard case .measured(let measurements) = reply else {
            throw worker.broken(quoting: WorkerProtocol.line(reply))
        }
        // A process that reported and then failed (a sanitizer's report at exit, say) failed.
        try worker.finish(within: WorkerProtocol.helloTimeout)
        let reported = Dictionary(measurements.map { ($0.key, $0) }, uniquingKeysWith: { first, _ in first })
        return cases.map { benchmark in
            reported[benchmark.key]
                ?? .failed(benchmark.key, reason: "measuring process \(job.process + 1) did not report it")
        }
    }
}
