import Foundation

/// The contract between a run and the `bench worker` processes that measure for it: one JSON
/// ``Request`` per line in, ``Reply`` values out, after a ``Reply/hello(_:)``. The article
/// "Method" (section "Several processes") describes the exchange.
///
/// A change to any of this that an older build would misread raises ``version``.
package enum WorkerProtocol {
    package static let version = 3

    /// What the hello names the protocol: the one thing any version's hello has in common.
    static let name = "pkcebench-worker"

    package struct Job: Sendable, Equatable, Codable {
        /// The cases, selected from the worker's backends.
        package var selection: Selection
        package var plan: SamplingPlan
        /// The number the worker's samples carry: its process in a run, or its pair in `bench ab`.
        package var process: Int
        /// How many processes the run has, for the worker's progress line.
        package var processes: Int
        package var check: Bool

        package init(
            selection: Selection, plan: SamplingPlan, process: Int = 0, processes: Int = 1, check: Bool = false
        ) {
            self.selection = selection
            self.plan = plan
            self.process = process
            self.processes = processes
            self.check = check
        }
    }

    package enum Request: Sendable, Equatable, Codable {
        case describe
        case measure(Job)
        case calibrate(Job)
        case sample(index: Int)
        case count(Job)
        case quit
    }

    package enum Reply: Sendable, Codable {
        case hello(Hello)
        case described(BuildFacts)
        /// Every case of a ``Request/measure(_:)`` job, in the job's order, with its samples.
        case measured([CaseMeasurement])
        /// The cases of a ``Request/calibrate(_:)`` job, in the order ``Request/sample(index:)``
        /// numbers them, and why any of them failed, by index.
        case calibrated(cases: [CaseKey], failures: [Int: String])
        case sample(Sample)
        /// The case at `index` failed, now or before, and is sampled no more.
        case failed(index: Int, reason: String)
        case counted(CountedCalls)
        /// The worker will not do the job (a backend failed its correctness check) and exits;
        /// `status` is the kind of error, numbered by ``refusalStatus(of:)``.
        case refused(status: Int32, message: String)
    }

    /// How a ``Reply/refused(status:message:)`` numbers the kind of its error: as `bench`'s exit
    /// codes did when protocol 3 fixed them, whatever the command line's codes become.
    package static func refusalStatus(of kind: BenchError.Kind) -> Int32 {
        switch kind {
        case .usage: 64
        case .malformedInput: 65
        case .missingInput: 66
        case .toolMissing: 69
        case .backendFailed, .buildFailed, .workerFailed, .internalFailure: 70
        case .cannotWrite: 73
        case .storeUnavailable: 75
        case .storeRefused: 77
        case .interrupted: 130
        case .terminated: 143
        }
    }

    package struct Hello: Sendable, Equatable, Codable {
        /// `WorkerProtocol.name`, whatever the version.
        package var `protocol`: String
        /// ``WorkerProtocol/version`` of the build that wrote it.
        package var version: Int

        /// This version's hello.
        package init() {
            self.protocol = WorkerProtocol.name
            self.version = WorkerProtocol.version
        }
    }

    /// What a build says of itself in ``Reply/described(_:)``.
    package struct BuildFacts: Sendable, Equatable, Codable {
        package var build: BuildConfiguration
        /// The compile target, as ``BuildConfiguration/targetCPU`` gives it.
        package var targetCPU: String
        package var swift: String
        /// As in ``RunEnvironment/libraries``.
        package var libraries: [String: String]
        /// What its workers can measure: ``Metric/time`` always, ``Metric/instructions`` if they can.
        package var metrics: Set<Metric>

        package init(
            build: BuildConfiguration, targetCPU: String, swift: String, libraries: [String: String],
            metrics: Set<Metric>
        ) {
            self.build = build
            self.targetCPU = targetCPU
            self.swift = swift
            self.libraries = libraries
            self.metrics = metrics
        }

        /// The facts of this process's own build.
        package static func current(libraries: [String: String]) -> BuildFacts {
            BuildFacts(
                build: BuildConfiguration.current, targetCPU: BuildConfiguration.targetCPU, swift: SwiftVersion.current,
                libraries: libraries.filter { !$0.value.isEmpty }, metrics: Set(Metric.allCases))
        }
    }

    // MARK: - Lines

    /// Writes and reads the protocol's lines: a sample's request and reply by hand, for speed
    /// (the article "Method" says why), anything else through JSON.
    package struct Coder {
        private let encoder: JSONEncoder
        private let decoder = JSONDecoder()

        package init() {
            encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        }

        /// `value` as one line of the protocol: JSON, newline included. (JSON escapes every
        /// newline inside a string, so a line is always one message.)
        func json(_ value: some Encodable) -> String {
            // Every value of the protocol encodes: none holds a non-finite number or a key
            // Foundation cannot write.
            let data = (try? encoder.encode(value)) ?? Data("null".utf8)
            return String(decoding: data, as: UTF8.self) + "\n"
        }

        /// The message in one line, or `nil` when it is not one.
        func fromJSON<Message: Decodable>(_ type: Message.Type, from line: some StringProtocol) -> Message? {
            try? decoder.decode(type, from: Data(line.utf8))
        }

        /// A request as one line: `{"sample":{"index":3}}` by hand, any other through JSON.
        func line(_ request: Request) -> String {
            guard case .sample(let index) = request else { return json(request) }
            return #"{"sample":{"index":"# + String(index) + "}}\n"
        }

        /// A reply as one line: a sample by hand, any other through JSON.
        package func line(_ reply: Reply) -> String {
            guard case .sample(let sample) = reply, sample.nanosecondsPerOperation.isFinite else {
                return json(reply)
            }
            let allocations = sample.allocations.map { #""allocations":"# + String($0) + "," } ?? ""
            return #"{"sample":{"_0":{"# + allocations + #""iterations":"# + String(sample.iterations)
                + #","nanosecondsPerOperation":"# + String(sample.nanosecondsPerOperation) + #","process":"#
                + String(sample.process) + "}}}\n"
        }

        /// The request in one line, or `nil` when it is not one.
        func decode(_ type: Request.Type, from line: some StringProtocol) -> Request? {
            var scanner = Scanner(line)
            if scanner.skip(#"{"sample":{"index":"#), let index = scanner.integer(), scanner.skip("}}"),
                scanner.isAtEnd
            {
                return .sample(index: index)
            }
            return fromJSON(type, from: line)
        }

        /// The reply in one line, or `nil` when it is not one.
        package func decode(_ type: Reply.Type, from line: some StringProtocol) -> Reply? {
            var scanner = Scanner(line)
            if scanner.skip(#"{"sample":{"_0":{"#) {
                let allocations = scanner.skip(#""allocations":"#) ? scanner.integer() : nil
                if allocations == nil || scanner.skip(","), scanner.skip(#""iterations":"#),
                    let iterations = scanner.integer(), scanner.skip(#","nanosecondsPerOperation":"#),
                    let nanoseconds = scanner.number(), scanner.skip(#","process":"#),
                    let process = scanner.integer(), scanner.skip("}}}"), scanner.isAtEnd
                {
                    return .sample(
                        Sample(
                            iterations: iterations, nanosecondsPerOperation: nanoseconds, process: process,
                            allocations: allocations))
                }
            }
            return fromJSON(type, from: line)
        }
    }

    /// Reads the fixed parts and the numbers of a line written by hand.
    private struct Scanner {
        private let bytes: [UInt8]
        private var position = 0

        init(_ line: some StringProtocol) {
            bytes = Array(line.utf8)
        }

        var isAtEnd: Bool { position == bytes.count }

        /// Moves past `text` when the line continues with it.
        mutating func skip(_ text: String) -> Bool {
            let expected = Array(text.utf8)
            guard bytes.count - position >= expected.count,
                bytes[position..<position + expected.count].elementsEqual(expected)
            else { return false }
            position += expected.count
            return true
        }

        /// The whole number the line continues with, if any.
        mutating func integer() -> Int? {
            token(allowing: { $0 == UInt8(ascii: "-") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) })
                .flatMap { Int($0) }
        }

        /// The finite number the line continues with, if any.
        mutating func number() -> Double? {
            token(allowing: { byte in
                (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || "-+.eE".utf8.contains(byte)
            }).flatMap { Double($0) }.flatMap { $0.isFinite ? $0 : nil }
        }

        private mutating func token(allowing allowed: (UInt8) -> Bool) -> String? {
            let start = position
            while position < bytes.count, allowed(bytes[position]) { position += 1 }
            return position > start ? String(decoding: bytes[start..<position], as: UTF8.self) : nil
        }
    }

    /// `value` as one line of the protocol, newline included.
    static func line(_ value: some Encodable) -> String {
        Coder().json(value)
    }

    /// The message in one line, or `nil` when it is not one.
    static func decode<Message: Decodable>(_ type: Message.Type, from line: some StringProtocol) -> Message? {
        Coder().fromJSON(type, from: line)
    }

    /// Whether `line` is a hello of this version.
    static func isHello(_ line: some StringProtocol) -> Bool {
        guard case .hello(let hello) = decode(Reply.self, from: line) else { return false }
        return hello == Hello()
    }
}
