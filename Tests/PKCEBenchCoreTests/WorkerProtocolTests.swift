import Foundation
import PKCE
import PKCEBenchTestSupport
import Testing

@testable import PKCEBenchCore

@Suite("The worker protocol: requests and replies, one JSON line each")
struct WorkerProtocolTests {
    static let facts = WorkerProtocol.BuildFacts(
        build: .release, targetCPU: "x86-64", swift: "6.3.1",
        libraries: ["openssl": "OpenSSL 3", "sodium": "libsodium 1.0.18"],
        metrics: [.time, .instructions])
    static let plan = SamplingPlan(warmup: .zero, sampleTime: .milliseconds(1), samples: 3)

    /// What a worker with `backends` answers to `requests`, line by line, and how it ended.
    static func serve(
        _ requests: [WorkerProtocol.Request], backends: [any PKCEBackend] = [SwiftBackend()],
        lines extra: [String] = []
    ) -> (replies: [WorkerProtocol.Reply?], ending: WorkerService.Ending) {
        var input = requests.map { WorkerProtocol.line($0).dropLast() }.map(String.init) + extra
        var output: [String] = []
        let service = WorkerService(
            backends: backends, facts: { facts }, allocationCounter: nil, cancellation: .never)
        let ending = service.serve(
            readLine: { input.isEmpty ? nil : input.removeFirst() }, write: { output.append($0) })
        #expect(output.allSatisfy { $0.hasSuffix("\n") && $0.dropLast().allSatisfy { $0 != "\n" } })
        return (output.map { WorkerProtocol.decode(WorkerProtocol.Reply.self, from: $0) }, ending)
    }

    static func job(_ selection: Selection, check: Bool = false, process: Int = 0) -> WorkerProtocol.Job {
        WorkerProtocol.Job(selection: selection, plan: plan, process: process, processes: 2, check: check)
    }

    @Test("The first line is the hello, of this version; describe says the build's facts; a quit ends the worker")
    func hello() throws {
        let (replies, ending) = Self.serve([.describe, .quit, .quit])
        #expect(replies.count == 2)
        guard case .hello(let hello) = try #require(replies.first) else {
            Issue.record("the first reply is not a hello")
            return
        }
        #expect(hello == WorkerProtocol.Hello())
        #expect(hello.version == WorkerProtocol.version && hello.protocol == "pkcebench-worker")
        #expect(WorkerProtocol.isHello(WorkerProtocol.line(WorkerProtocol.Reply.hello(hello))))
        guard case .described(let facts) = try #require(replies.last) else {
            Issue.record("no description")
            return
        }
        #expect(facts == Self.facts)
        #expect(ending == .finished)
    }

    @Test("A worker that is never asked to describe itself never computes its facts")
    func factsOnlyWhenAsked() {
        let service = WorkerService(
            backends: [SwiftBackend()],
            facts: {
                Issue.record("facts computed without a describe request")
                return Self.facts
            }, allocationCounter: nil, cancellation: .never)
        var input = [
            String(
                WorkerProtocol.line(
                    WorkerProtocol.Request.count(Self.job(Selection(operations: [.sha256], sizes: [64])))
                ).dropLast())
        ]
        #expect(service.serve(readLine: { input.isEmpty ? nil : input.removeFirst() }, write: { _ in }) == .finished)
    }

    @Test("A hello of another version, or any other line, is not one this build reads")
    func otherHellos() {
        var newer = WorkerProtocol.Hello()
        newer.version += 1
        for line in [
            WorkerProtocol.line(WorkerProtocol.Reply.hello(newer)), "pkcebench-worker-protocol 1", "",
            WorkerProtocol.line(WorkerProtocol.Reply.failed(index: 0, reason: "x")),
        ] {
            #expect(!WorkerProtocol.isHello(line))
        }
    }

    @Test("measure: every case of the job, in its order, with the job's samples, numbered by its process")
    func measure() throws {
        let selection = Selection(operations: [.sha256], sizes: [0, 64])
        let (replies, ending) = Self.serve([.measure(Self.job(selection, process: 1))])
        #expect(ending == .finished)
        guard case .measured(let measurements) = try #require(replies.last) else {
            Issue.record("no measured reply")
            return
        }
        #expect(measurements.map(\.key) == (try selection.cases(from: [SwiftBackend()])).map(\.key))
        #expect(measurements.allSatisfy { $0.failure == nil && $0.samples.count == 3 })
        #expect(measurements.flatMap(\.samples).allSatisfy { $0.process == 1 && $0.iterations > 0 })
    }

    @Test("A measured reply keeps protocol 3's form: what a worker of an older build sends reads, and is written back")
    func measuredReplyOfProtocol3() throws {
        // As the struct with optional fields that protocol 3 began with encoded them: an absent
        // field left out, keys sorted.
        let key = #"{"backend":"swift","operation":"sha256","size":64,"threads":1}"#
        let line =
            #"{"measured":{"_0":[{"key":\#(key),"metric":"time","samples":[{"iterations":9,"#
            + #""nanosecondsPerOperation":1.5,"process":1}]},{"failure":"broken","key":\#(key),"#
            + #""metric":"time","samples":[]}]}}"#
        let reply = try JSONDecoder().decode(WorkerProtocol.Reply.self, from: Data(line.utf8))
        guard case .measured(let measurements) = reply else {
            Issue.record("not a measured reply")
            return
        }
        #expect(
            measurements.map(\.outcome) == [
                .sampled([Sample(iterations: 9, nanosecondsPerOperation: 1.5, process: 1)]),
                .failed(reason: "broken"),
            ])
        #expect(WorkerProtocol.line(reply) == line + "\n")
    }

    @Test("calibrate, then sample by index; a sample before calibrating or past the cases breaks the protocol")
    func calibrateAndSample() throws {
        let selection = Selection(operations: [.sha256], sizes: [64])
        let (replies, ending) = Self.serve([.calibrate(Self.job(selection)), .sample(index: 0), .sample(index: 1)])
        guard case .calibrated(let keys, let failures) = try #require(replies.dropFirst().first) else {
            Issue.record("no calibrated reply")
            return
        }
        #expect(keys == [CaseKey(backend: "swift", operation: .sha256, size: 64, threads: 1)])
        #expect(failures.isEmpty)
        guard case .sample(let sample) = try #require(replies.last) else {
            Issue.record("no sample reply")
            return
        }
        #expect(sample.nanosecondsPerOperation > 0)
        #expect(
            ending == .brokenRequest(String(WorkerProtocol.line(WorkerProtocol.Request.sample(index: 1)).dropLast())))
        #expect(Self.serve([.sample(index: 0)]).ending != .finished)
        #expect(Self.serve([], lines: ["sample 0"]).ending == .brokenRequest("sample 0"))
    }

    @Test("A case that fails while sampled answers failed with its reason, and is not sampled again")
    func failedSample() throws {
        let backend = FailingLaterBackend()
        let selection = Selection(operations: [.random], sizes: [32])
        var input = [WorkerProtocol.line(WorkerProtocol.Request.calibrate(Self.job(selection))).dropLast()].map(
            String.init)
        var replies: [WorkerProtocol.Reply] = []
        let service = WorkerService(
            backends: [backend], facts: { Self.facts }, allocationCounter: nil, cancellation: .never)
        _ = service.serve(
            readLine: {
                if input.isEmpty, replies.count < 4 {
                    backend.failFromNow()
                    return String(WorkerProtocol.line(WorkerProtocol.Request.sample(index: 0)).dropLast())
                }
                return input.isEmpty ? nil : input.removeFirst()
            },
            write: { line in WorkerProtocol.decode(WorkerProtocol.Reply.self, from: line).map { replies.append($0) } })
        let failures = replies.compactMap { reply -> String? in
            if case .failed(0, let reason) = reply { return reason }
            return nil
        }
        #expect(failures.count == 2)
        #expect(Set(failures).count == 1 && failures[0].contains("test"))
    }

    @Test("A job with check refuses a backend that fails the correctness check: exit 70, the backend named")
    func refused() throws {
        let selection = Selection(operations: [.sha256], sizes: [64])
        let (replies, ending) = Self.serve(
            [.calibrate(Self.job(selection, check: true))], backends: [SwiftBackend(), WrongDigestBackend()])
        #expect(ending == .refused(.backendFailed))
        guard case .refused(70, let message) = try #require(replies.last) else {
            Issue.record("no refusal")
            return
        }
        #expect(message.hasPrefix("backend wrong-digest failed its correctness check: "))
        // Without check, the same job is measured: the run that sends it has checked already.
        #expect(Self.serve([.calibrate(Self.job(selection))], backends: [WrongDigestBackend()]).ending == .finished)
    }

    @Test("A selection the worker cannot make is refused with its usage error")
    func badSelection() throws {
        let (replies, ending) = Self.serve([.measure(Self.job(Selection(backends: ["boringssl"])))])
        #expect(ending == .refused(.usage))
        guard case .refused(64, let message) = try #require(replies.last) else {
            Issue.record("no refusal")
            return
        }
        #expect(message.contains("unknown backend 'boringssl'"))
    }

    @Test("count: the account of every case's two counted calls, N and 2N iterations")
    func count() throws {
        let selection = Selection(operations: [.sha256], sizes: [64])
        let (replies, _) = Self.serve([.count(Self.job(selection))])
        guard case .counted(let account) = try #require(replies.last) else {
            Issue.record("no account")
            return
        }
        let key = CaseKey(backend: "swift", operation: .sha256, size: 64, threads: 1)
        #expect(account.cases == [.init(key: key, iterations: CountedCalls.iterations(for: key), calls: 2)])
    }

    @Test("A decoded job is what the initialisers would make: each name once, and no plan they refuse")
    func decodedJobs() throws {
        let job = Self.job(Selection(sizes: [43]))
        let line = WorkerProtocol.line(WorkerProtocol.Request.measure(job))
        let doubled = line.replacingOccurrences(of: "\"sizes\":[43]", with: "\"sizes\":[43,43]")
        #expect(doubled != line)
        #expect(WorkerProtocol.decode(WorkerProtocol.Request.self, from: doubled) == .measure(job))
        let oneSample = line.replacingOccurrences(of: "\"samples\":3", with: "\"samples\":1")
        #expect(oneSample != line)
        #expect(WorkerProtocol.decode(WorkerProtocol.Request.self, from: oneSample) == nil)
    }

    @Test(
        "A sample's two lines, written by hand, are the JSON coders' messages, and read back either way",
        arguments: [
            Sample(iterations: 2351, nanosecondsPerOperation: 106.2, process: 0, allocations: 0),
            Sample(iterations: 1, nanosecondsPerOperation: 0.1 + 0.2, process: 19, allocations: nil),
            Sample(iterations: 12, nanosecondsPerOperation: 1e-05, process: 3, allocations: 7),
            Sample(iterations: 1 << 40, nanosecondsPerOperation: 123_456_789.125, process: 639, allocations: 1 << 33),
        ])
    func handWrittenSamples(sample: Sample) throws {
        let coder = WorkerProtocol.Coder()
        let reply = WorkerProtocol.Reply.sample(sample)
        for line in [coder.line(reply), WorkerProtocol.line(reply)] {
            // Each line reads back the same whichever way it is read.
            for decoded in [
                coder.decode(WorkerProtocol.Reply.self, from: line.dropLast()),
                WorkerProtocol.decode(WorkerProtocol.Reply.self, from: line),
            ] {
                guard case .sample(let back) = decoded else {
                    Issue.record("\(line) did not read back as a sample")
                    continue
                }
                #expect(back == sample)
            }
        }
        let request = WorkerProtocol.Request.sample(index: 41)
        #expect(coder.line(request) == WorkerProtocol.line(request))
        #expect(coder.decode(WorkerProtocol.Request.self, from: coder.line(request).dropLast()) == request)
    }

    @Test("A sample's lines in another form than this build writes still read, through the JSON coders")
    func otherForms() {
        let coder = WorkerProtocol.Coder()
        let spaced = #"{ "sample": { "_0": { "process": 2, "iterations": 10, "nanosecondsPerOperation": 5 } } }"#
        guard case .sample(let sample) = coder.decode(WorkerProtocol.Reply.self, from: spaced) else {
            Issue.record("a spaced sample did not read")
            return
        }
        #expect(sample == Sample(iterations: 10, nanosecondsPerOperation: 5, process: 2, allocations: nil))
        #expect(coder.decode(WorkerProtocol.Request.self, from: #"{"sample": {"index": 4}}"#) == .sample(index: 4))
        for broken in [
            #"{"sample":{"_0":{"iterations":10,"nanosecondsPerOperation":5,"process":2}}}x"#,
            #"{"sample":{"_0":{"iterations":10,"nanosecondsPerOperation":nan,"process":2}}}"#,
            #"{"sample":{"_0":{"allocations":,"iterations":10,"nanosecondsPerOperation":5,"process":2}}}"#,
            #"{"sample":{"index":}}"#,
        ] {
            #expect(coder.decode(WorkerProtocol.Reply.self, from: broken) == nil)
            #expect(coder.decode(WorkerProtocol.Request.self, from: broken) == nil)
        }
    }

    @Test("Requests and replies survive their line: a job's selection and plan, a sample's figures")
    func roundTrip() throws {
        let job = WorkerProtocol.Job(
            selection: Selection(
                backends: ["swift"], operations: [.sha256], sizes: [64], scopedSizes: [.challenge: [43]],
                filters: ["a,b"], skips: ["^x$"], threads: 2),
            plan: .standard, process: 3, processes: 5, check: true)
        for request in [
            WorkerProtocol.Request.describe, .measure(job), .calibrate(job), .count(job), .sample(index: 7), .quit,
        ] {
            #expect(WorkerProtocol.decode(WorkerProtocol.Request.self, from: WorkerProtocol.line(request)) == request)
        }
        let sample = Sample(iterations: 12, nanosecondsPerOperation: 0.1 + 0.2, process: 4, allocations: nil)
        let line = WorkerProtocol.line(WorkerProtocol.Reply.sample(sample))
        guard case .sample(let decoded) = WorkerProtocol.decode(WorkerProtocol.Reply.self, from: line) else {
            Issue.record("no sample")
            return
        }
        #expect(decoded == sample)
    }

    @Test("A reply is checked against its request: bounded numbers, the process asked, a case the worker has")
    func repliesChecked() {
        let job = WorkerProtocol.Job(
            selection: Selection(), plan: SamplingPlan(warmup: .zero, sampleTime: .milliseconds(1), samples: 4),
            process: 2)
        let key = CaseKey(backend: "swift", operation: .sha256, size: 64, threads: 1)
        func sample(_ iterations: Int = 10, _ nanoseconds: Double = 5, process: Int = 2, allocations: Int? = 0)
            -> WorkerProtocol.Reply
        {
            .sample(
                Sample(
                    iterations: iterations, nanosecondsPerOperation: nanoseconds, process: process,
                    allocations: allocations))
        }
        func problem(_ reply: WorkerProtocol.Reply, _ request: WorkerProtocol.Request = .sample(index: 0)) -> String? {
            WorkerProtocol.problem(with: reply, answering: request, job: job)
        }
        #expect(problem(sample()) == nil)
        #expect(problem(sample(process: 3)) == "a sample of process 3, asked of process 2")
        #expect(problem(sample(0)) == "a sample of 0 iterations")
        #expect(problem(sample(Int.max)) == "a sample of \(Int.max) iterations")
        #expect(problem(sample(10, -1)) == "a sample of -1.0 ns per operation")
        #expect(problem(sample(10, 0)) == "a sample of 0.0 ns per operation")
        #expect(problem(sample(allocations: Int.max)) == "a sample of \(Int.max) allocations")
        #expect(problem(sample(allocations: -1)) == "a sample of -1 allocations")
        #expect(problem(.failed(index: 0, reason: "x")) == nil)
        #expect(problem(.failed(index: 5, reason: "x")) == "a failure of case 5, asked for case 0")
        #expect(
            problem(.calibrated(cases: [key], failures: [1: "x"]), .calibrate(job)) == "a failure of case 1, of 1 cases"
        )
        #expect(problem(.calibrated(cases: [key], failures: [0: "x"]), .calibrate(job)) == nil)
        #expect(problem(.described(Self.facts)) == "another reply than the request asks for")
        #expect(problem(.refused(status: 70, message: "no")) == nil)
        let tooMany = CaseMeasurement(
            key: key,
            samples: Array(repeating: Sample(iterations: 1, nanosecondsPerOperation: 1, process: 2), count: 5),
            failure: nil)
        #expect(problem(.measured([tooMany]), .measure(job)) == "5 samples of sha256/swift/64, 4 asked")
        // A reply's line may hold every sample a measure job asks for, and no more than that allows.
        #expect(WorkerProtocol.lineLimit(answering: .describe, caseCount: 64) == 1 << 20)
        #expect(WorkerProtocol.lineLimit(answering: .measure(job), caseCount: 64) == (1 << 20) + 64 * 4 * 512)
    }

    @Test("A sample's time is bounded: none reads back as 0 ns or sums to an infinite variance")
    func sampleTimesBounded() {
        let job = WorkerProtocol.Job(selection: Selection(), plan: Self.plan, process: 0)
        func problem(_ nanoseconds: Double) -> String? {
            WorkerProtocol.problem(
                with: .sample(Sample(iterations: 10, nanosecondsPerOperation: nanoseconds)),
                answering: .sample(index: 0),
                job: job)
        }
        #expect(problem(.leastNonzeroMagnitude) == "a sample of 5e-324 ns per operation")
        #expect(problem(0.0004) == "a sample of 0.0004 ns per operation")
        #expect(problem(1e308) == "a sample of 1e+308 ns per operation")
        #expect(problem(.infinity) == "a sample of inf ns per operation")
        #expect(problem(.nan) == "a sample of nan ns per operation")
        #expect(problem(0.001) == nil)
        #expect(problem(1e12) == nil)
        #expect(problem((1e12).nextUp) != nil)
    }

    @Test(
        "A measured reply holds only what the history reads back: time outcomes of the job's cases, each once, bounded")
    func measuredRepliesChecked() throws {
        let job = WorkerProtocol.Job(
            selection: Selection(operations: [.sha256], sizes: [64]), plan: Self.plan, process: 1)
        let key = CaseKey(backend: "swift", operation: .sha256, size: 64, threads: 1)
        let samples = [Sample(iterations: 10, nanosecondsPerOperation: 61.5, process: 1)]
        func problem(_ measurements: [CaseMeasurement]) -> String? {
            WorkerProtocol.problem(with: .measured(measurements), answering: .measure(job), job: job)
        }
        func sampled(_ key: CaseKey) -> CaseMeasurement { CaseMeasurement(key: key, samples: samples, failure: nil) }
        // What a worker of any build with these backends measures for the job passes.
        let other = CaseKey(backend: "other-backend.2", operation: .sha256, size: 64, threads: 1)
        #expect(problem([sampled(key), .failed(other, reason: "broken")]) == nil)
        #expect(problem([]) == nil)

        // Cases the job does not select: another size, operation or thread count, a name no backend may have.
        var otherSize = key
        otherSize.size = 65
        #expect(problem([sampled(otherSize)]) == "a case the job does not select, 'sha256/swift/65'")
        var otherOperation = key
        otherOperation.operation = .random
        #expect(problem([sampled(otherOperation)]) == "a case the job does not select, 'random/swift/64'")
        var threads = key
        threads.threads = 2
        #expect(problem([sampled(threads)]) == "a case the job does not select, 'sha256/swift/64×2'")
        var badName = key
        badName.backend = "Swift\n<b>"
        #expect(problem([sampled(badName)]) == "a case the job does not select, 'sha256/Swift\n<b>/64'")
        #expect(problem([sampled(key), .failed(key, reason: "again")]) == "two measurements of sha256/swift/64")

        // Outcomes other than time's: a failure of another metric, a count, a reason too long to store.
        #expect(
            problem([.failed(key, reason: "x", metric: .instructions)])
                == "instructions of sha256/swift/64, asked for time")
        #expect(
            problem([.counted(key, iterations: -3, instructionsPerOperation: -5)])
                == "instructions of sha256/swift/64, asked for time")
        #expect(
            problem([.failed(key, reason: String(repeating: "x", count: 4097))]) == "a reason of over 4096 bytes")
        #expect(problem([.failed(key, reason: String(repeating: "x", count: 4096))]) == nil)

        // As another build's worker sends a count marked time: negative figures, which the history
        // would refuse to read (65) for every later command.
        let counted =
            #"{"measured":{"_0":[{"countedIterations":-3,"instructionsPerOperation":-5,"#
            + #""key":{"backend":"swift","operation":"sha256","size":64,"threads":1},"metric":"time","samples":[]}]}}"#
        let reply = try #require(WorkerProtocol.Coder().decode(WorkerProtocol.Reply.self, from: counted))
        #expect(
            WorkerProtocol.problem(with: reply, answering: .measure(job), job: job)
                == "a count of sha256/swift/64, asked for samples")

        // Samples out of bounds, of another process, or more than asked.
        let tiny = CaseMeasurement(
            key: key, samples: [Sample(iterations: 10, nanosecondsPerOperation: .leastNonzeroMagnitude, process: 1)],
            failure: nil)
        #expect(problem([tiny]) == "a sample of 5e-324 ns per operation")
        let huge = CaseMeasurement(
            key: key, samples: [Sample(iterations: 10, nanosecondsPerOperation: 1e308, process: 1)], failure: nil)
        #expect(problem([huge]) == "a sample of 1e+308 ns per operation")
        let elsewhere = CaseMeasurement(
            key: key, samples: [Sample(iterations: 10, nanosecondsPerOperation: 5, process: 0)], failure: nil)
        #expect(problem([elsewhere]) == "a sample of process 0, asked of process 1")
        let tooMany = CaseMeasurement(key: key, samples: Array(repeating: samples[0], count: 4), failure: nil)
        #expect(problem([tooMany]) == "4 samples of sha256/swift/64, 3 asked")
    }

    @Test("A job's filters and skips decide which cases a measured reply may hold")
    func measuredRepliesFollowPatterns() {
        let job = WorkerProtocol.Job(
            selection: Selection(operations: [.sha256], filters: ["swift"], skips: ["/1024$"]), plan: Self.plan)
        func problem(_ size: Int, _ backend: String = "swift") -> String? {
            let key = CaseKey(backend: backend, operation: .sha256, size: size, threads: 1)
            return WorkerProtocol.problem(
                with: .measured([.failed(key, reason: "x")]), answering: .measure(job), job: job)
        }
        #expect(problem(64) == nil)
        #expect(problem(1024) == "a case the job does not select, 'sha256/swift/1024'")
        #expect(problem(64, "openssl") == "a case the job does not select, 'sha256/openssl/64'")
        #expect(problem(100) == "a case the job does not select, 'sha256/swift/100'")
    }
}
