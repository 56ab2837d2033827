/// What a run accepts from a worker. A worker is another build (`bench ab OTHER`, `--against`),
/// and a broken or an old one must end the run with "broke the worker protocol" (`.backendFailed`),
/// never trap it on an overflow or fill its memory: every line is bounded, and every number checked
/// before it is used.
extension WorkerProtocol {
    /// The longest line a worker may write, but a ``Reply/measured(_:)`` reply's.
    package static let lineLimit = 1 << 20

    /// The most bytes one sample may take in a ``Reply/measured(_:)`` reply: about 110 as this
    /// build writes them, and room for a longer case name and wider numbers.
    static let sampleBytesLimit = 512

    /// The most iterations one sample may report: a sample of 250 ms at 1 ns an operation is 2²⁸.
    static let iterationsLimit = 1 << 40

    static let allocationsLimit = 1 << 52

    /// The nanoseconds one operation of a sample may take: from the 0.001 ns that report files keep
    /// (``Precision/nanoseconds``), so that no sample reads back as 0 and no median makes a
    /// coefficient of variation of 0 ÷ 0, to 10¹² ns (1000 s), whose squares add up to a finite
    /// variance over any number of samples. A real sample lies far inside both.
    static let nanosecondsRange = 1e-3...1e12

    /// The longest text a worker may give: a reason, or a fact of its build. A real one is a line.
    static let textLimit = 4096

    /// The longest line the answer to `request` may be, for a job of `caseCount` cases: the
    /// ``lineLimit``, and for ``Request/measure(_:)`` as much again per sample the job asks for.
    static func lineLimit(answering request: Request, caseCount: Int) -> Int {
        guard case .measure(let job) = request else { return lineLimit }
        let samples = min(job.plan.samples, iterationsLimit)
        let (bytes, overflow) = caseCount.multipliedReportingOverflow(by: samples * sampleBytesLimit)
        let (limit, overflowAgain) = bytes.addingReportingOverflow(lineLimit)
        return overflow || overflowAgain ? .max : limit
    }

    /// What is wrong with `reply` as the answer to `request`, from a worker whose job is `job`
    /// (a reply of another kind, a sample of another process, a number that could overflow, a case
    /// the worker lacks), or `nil` when nothing is. A refusal answers anything.
    package static func problem(with reply: Reply, answering request: Request, job: Job?) -> String? {
        switch (request, reply) {
        case (_, .refused):
            return nil
        case (.describe, .described(let facts)):
            return problem(with: facts)
        case (.measure(let job), .measured(let measurements)):
            return problem(with: measurements, of: job)
        case (.calibrate, .calibrated(let cases, let failures)):
            let outside = failures.keys.filter { !cases.indices.contains($0) }
            guard outside.isEmpty else { return "a failure of case \(outside[0]), of \(cases.count) cases" }
            return failures.values.contains { $0.utf8.count > textLimit } ? "a reason of over \(textLimit) bytes" : nil
        case (.sample, .sample(let sample)):
            return problem(with: sample, process: job?.process)
        case (.sample(let index), .failed(let failed, let reason)):
            guard failed == index else { return "a failure of case \(failed), asked for case \(index)" }
            return reason.utf8.count > textLimit ? "a reason of over \(textLimit) bytes" : nil
        case (.count, .counted):
            // InstructionCounter checks the account against Callgrind's profiles.
            return nil
        default:
            return "another reply than the request asks for"
        }
    }

    /// What is wrong with the measurements that answer a measuring `job`, each of which becomes
    /// a row of the run's reports, and of `history.csv`, which every later command reads: a case
    /// the job does not select, or twice; an outcome other than time's (a count, or a metric
    /// that the job did not ask for); a reason over ``textLimit``; more samples than asked; a
    /// sample out of bounds.
    static func problem(with measurements: [CaseMeasurement], of job: Job) -> String? {
        let selects: (CaseKey) -> Bool
        do {
            selects = try job.selection.caseMatcher()
        } catch {
            // The run made its cases from this selection, so its patterns compile.
            return "a job whose selection does not compile: \(error.message)"
        }
        var reported: Set<CaseKey> = []
        for measurement in measurements {
            let key = measurement.key
            guard selects(key) else {
                return "a case the job does not select, '\(String(describing: key).prefix(80))'"
            }
            guard reported.insert(key).inserted else { return "two measurements of \(key)" }
            guard measurement.metric == .time else { return "\(measurement.metric.rawValue) of \(key), asked for time" }
            switch measurement.outcome {
            case .counted:
                return "a count of \(key), asked for samples"
            case .failed(let reason):
                guard reason.utf8.count <= textLimit else { return "a reason of over \(textLimit) bytes" }
            case .sampled(let samples):
                guard samples.count <= job.plan.samples else {
                    return "\(samples.count) samples of \(key), \(job.plan.samples) asked"
                }
                if let problem = samples.lazy.compactMap({ problem(with: $0, process: job.process) }).first {
                    return problem
                }
            }
        }
        return nil
    }

    /// What is wrong with what a build says of itself: every fact goes into the rows of its report.
    static func problem(with facts: BuildFacts) -> String? {
        let texts = [facts.swift, facts.targetCPU] + facts.libraries.values
        guard texts.allSatisfy({ $0.utf8.count <= textLimit }) else { return "a fact of over \(textLimit) bytes" }
        if let name = facts.libraries.keys.first(where: { !BackendNames.isValid($0) }) {
            return "a library of backend '\(name.prefix(40))', which is not a backend's name"
        }
        return nil
    }

    /// What is wrong with `sample`, taken by a worker of `process`.
    static func problem(with sample: Sample, process: Int?) -> String? {
        if let process, sample.process != process {
            return "a sample of process \(sample.process), asked of process \(process)"
        }
        guard (1...iterationsLimit).contains(sample.iterations) else {
            return "a sample of \(sample.iterations) iterations"
        }
        guard nanosecondsRange.contains(sample.nanosecondsPerOperation) else {
            return "a sample of \(sample.nanosecondsPerOperation) ns per operation"
        }
        if let allocations = sample.allocations, !(0...allocationsLimit).contains(allocations) {
            return "a sample of \(allocations) allocations"
        }
        return nil
    }
}
