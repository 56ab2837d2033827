import PKCE

/// The worker's side of ``WorkerProtocol``: what `bench worker` runs.
package struct WorkerService {
    /// The backends a job's selection chooses from.
    package var backends: [any PKCEBackend]
    /// What ``WorkerProtocol/Request/describe`` answers of this build; called only then.
    package var facts: () -> WorkerProtocol.BuildFacts
    package var allocationCounter: AllocationCounter?
    /// Asked between samples whether a signal asked the worker to stop.
    package var cancellation: Cancellation
    /// What shows a measuring job's progress, given its case count and a prefix that names the
    /// process (`process 2/5: `); `nil` for none. The run reports on its processes itself, so a
    /// worker's own progress is at most a line redrawn on a terminal.
    package var progress: (_ caseCount: Int, _ prefix: String) -> (any ProgressObserver)?

    package init(
        backends: [any PKCEBackend], facts: @escaping () -> WorkerProtocol.BuildFacts,
        allocationCounter: AllocationCounter?, cancellation: Cancellation,
        progress: @escaping (_ caseCount: Int, _ prefix: String) -> (any ProgressObserver)? = { _, _ in nil }
    ) {
        self.backends = backends
        self.facts = facts
        self.allocationCounter = allocationCounter
        self.cancellation = cancellation
        self.progress = progress
    }

    package enum Ending: Equatable, Sendable {
        /// It was told to quit, or its input ended.
        case finished
        /// It read a line that is not a request it can carry out now.
        case brokenRequest(String)
        /// It refused its job with an error of `kind`, and answered so.
        case refused(BenchError.Kind)
        /// A signal stopped it (`kind`); it exits with that signal's status, and its run says so.
        case interrupted(BenchError.Kind)
    }

    /// `readLine` gives the next line of input without its newline, `nil` at the end; `write`
    /// writes one line, newline included, and flushes it.
    package func serve(readLine: () -> String?, write: (String) -> Void) -> Ending {
        let coder = WorkerProtocol.Coder()
        write(coder.line(WorkerProtocol.Reply.hello(.init())))
        /// Answers that the job is refused, as the worker then ends.
        func refuse(_ error: BenchError) -> Ending {
            let status = WorkerProtocol.refusalStatus(of: error.kind)
            write(coder.line(WorkerProtocol.Reply.refused(status: status, message: error.message)))
            return .refused(error.kind)
        }
        var session: SamplingSession?
        while let line = readLine() {
            guard let request = coder.decode(WorkerProtocol.Request.self, from: line) else {
                return .brokenRequest(line)
            }
            let reply: WorkerProtocol.Reply
            switch request {
            case .quit:
                return .finished
            case .describe:
                reply = .described(facts())
            case .sample(let index):
                guard let session, session.cases.indices.contains(index) else { return .brokenRequest(line) }
                reply =
                    session.sample(index).map { .sample($0) }
                    ?? .failed(index: index, reason: session.failures[index] ?? "failed")
            case .measure(let job), .calibrate(let job), .count(let job):
                // A new job ends the calibrated session of the last one, and its threads.
                session = nil
                let cases: [BenchmarkCase]
                do throws(BenchError) {
                    // A job arrives unchecked: the run that sent it may be another build.
                    try job.selection.validate(available: backends.map(\.name))
                    cases = try job.selection.cases(from: backends)
                    if job.check { try Correctness.require(backends, usedBy: cases) }
                } catch {
                    return refuse(error)
                }
                do throws(BenchError) {
                    switch request {
                    case .measure:
                        reply = .measured(try sampler(cases, job, progress: true).run())
                    case .calibrate:
                        let calibrated = try sampler(cases, job, progress: false).calibrated()
                        session = calibrated
                        reply = .calibrated(
                            cases: calibrated.cases.map(\.key),
                            failures: Dictionary(
                                uniqueKeysWithValues: calibrated.failures.enumerated().compactMap { index, failure in
                                    failure.map { (index, $0) }
                                }))
                    default:
                        reply = .counted(CountedCalls.make(cases))
                    }
                } catch {
                    return .interrupted(error.kind)
                }
            }
            write(coder.line(reply))
        }
        return .finished
    }

    /// A sampler of `cases` for `job`; with `progress`, it shows its progress through
    /// ``progress``.
    private func sampler(_ cases: [BenchmarkCase], _ job: WorkerProtocol.Job, progress: Bool) -> Sampler {
        var sampler = Sampler(
            cases: cases, plan: job.plan,
            observer: progress ? self.progress(cases.count, "process \(job.process + 1)/\(job.processes): ") : nil,
            cancellation: cancellation)
        sampler.process = job.process
        sampler.allocationCounter = allocationCounter
        return sampler
    }
}
