import PKCEBenchCore

/// libFuzzer's entry point: a line from a worker, which may be another build, broken or old, as
/// the run that started it reads it.
///
/// Beyond "does not crash" (no trap on an overflow, an index or a number): a reply that decodes is
/// judged against every kind of request without trapping, and one that passes as the answer to a
/// measuring job encodes and decodes again.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWorkerReply(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let line = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let coder = WorkerProtocol.Coder()
    guard let reply = coder.decode(WorkerProtocol.Reply.self, from: line) else { return 0 }
    let job = WorkerProtocol.Job(
        selection: Selection(), plan: SamplingPlan(warmup: .zero, sampleTime: .milliseconds(1), samples: 90),
        process: 1)
    let requests: [WorkerProtocol.Request] = [
        .describe, .measure(job), .calibrate(job), .sample(index: 0), .sample(index: Int.max), .count(job), .quit,
    ]
    for request in requests {
        let problem = WorkerProtocol.problem(with: reply, answering: request, job: job)
        if problem == nil, case .measure = request {
            // An accepted reply reads back as the same kind of reply.
            precondition(coder.decode(WorkerProtocol.Reply.self, from: coder.line(reply)) != nil, "no round trip")
            if case .measured(let measurements) = reply {
                _ = measurements.map { ($0.allocationsPerOperation, $0.iterations) }
            }
        }
    }
    return 0
}
