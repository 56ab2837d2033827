import PKCEBenchKit

/// One case of one run: a row of `<run>.csv`, `latest.csv`, `baseline.csv` and `history.csv`.
///
/// The timing fields are nanoseconds per operation over the case's samples, and `nil` when the
/// case failed or its instructions were counted instead (``metric`` is then `instructions`).
public struct SummaryRow: CaseRow, Sendable, Equatable {
    /// The report format's version: ``ReportSchema/version``.
    public var schema = ReportSchema.version
    /// The run this row belongs to: `<UTC timestamp>-<short commit>`.
    public var runID = ""
    /// When the run started, ISO 8601 in UTC.
    public var timestamp = ""
    /// The short git commit measured, `-dirty` when tracked files were modified, or `unknown`.
    public var commit = ""
    /// `release` or `debug`.
    public var build = ""
    /// The instruction set the Swift code was compiled for, such as `x86-64` or `x86-64-v4`;
    /// empty in reports written before the column existed.
    public var targetCPU = ""
    /// The backend's name.
    public var backend = ""
    /// The operation measured.
    public var operation = BenchmarkOperation.verifier
    /// The verifier length in characters, or the message size in bytes.
    public var size = 0
    /// Threads that ran the case at once.
    public var threads = 1
    /// `ok`, or `failed` with the reason in ``error``.
    public var status = SummaryRow.ok
    /// The number of samples taken.
    public var samples = 0
    /// Operations per thread in each sample: the median over the samples, since each measuring
    /// process calibrates anew.
    public var iterations = 0
    /// The median of the samples' nanoseconds per operation.
    public var nsMedian: Double?
    /// The 10th percentile.
    public var nsP10: Double?
    /// The 90th percentile.
    public var nsP90: Double?
    /// The fastest sample.
    public var nsMin: Double?
    /// The mean.
    public var nsMean: Double?
    /// The sample standard deviation.
    public var nsStddev: Double?
    /// The coefficient of variation: `ns_stddev / ns_mean`.
    public var cv: Double?
    /// Operations per second from the median: `1e9 / ns_median`, aggregated over all threads.
    public var opsPerSec: Double?
    /// `size × ops_per_sec / 10⁶` for `sha256` and `random`; `nil` for the verifier operations.
    public var mbPerSec: Double?
    /// Heap allocations per operation over every sample; `nil` where they were not counted.
    public var allocsPerOp: Double?
    /// What was measured: `time` (also in reports written before the column existed), or
    /// `instructions`, when the time fields are empty and ``instructionsPerOp`` holds the result.
    public var metric = Metric.time
    /// Instructions per operation under Callgrind, when ``metric`` is `instructions`.
    public var instructionsPerOp: Double?
    /// The CPU model.
    public var cpu = ""
    /// Which of `sha_ni avx2 avx512f` the CPU has; in an `instructions` row, which of them the
    /// code saw under Valgrind, whose emulated CPU has fewer.
    public var cpuFlags = ""
    /// Logical cores available to the process.
    public var cores = 0
    /// The kernel release.
    public var kernel = ""
    /// The Swift compiler that built `bench`.
    public var swift = ""
    /// The OpenSSL the process loaded.
    public var openssl = ""
    /// The libsodium the process loaded.
    public var libsodium = ""
    /// Why the case failed; empty when it did not.
    public var error = ""

    /// The `status` of a case with results.
    public static let ok = "ok"
    /// The `status` of a case that failed.
    public static let failed = "failed"

    /// An empty row, for decoding.
    public init() {}

    /// The row of a case's summary, in a run made in `environment`.
    public init(summary: CaseSummary, environment: RunEnvironment) {
        self.init()
        runID = environment.runID
        timestamp = environment.timestamp
        commit = environment.commit
        build = environment.build
        targetCPU = environment.targetCPU
        cpu = environment.cpu
        cpuFlags = environment.cpuFlags
        cores = environment.cores
        kernel = environment.kernel
        swift = environment.swift
        openssl = environment.openssl
        libsodium = environment.libsodium
        key = summary.key
        metric = summary.metric
        status = summary.failure == nil ? Self.ok : Self.failed
        error = summary.failure ?? ""
        samples = summary.samples
        iterations = summary.iterations
        nsMedian = summary.median
        nsP10 = summary.p10
        nsP90 = summary.p90
        nsMin = summary.fastest
        nsMean = summary.mean
        nsStddev = summary.standardDeviation
        cv = summary.coefficientOfVariation
        opsPerSec = summary.operationsPerSecond
        mbPerSec = summary.megabytesPerSecond
        allocsPerOp = summary.allocationsPerOperation
        instructionsPerOp = summary.instructionsPerOperation
    }

    /// The case's summary, as the row records it.
    public var summary: CaseSummary {
        var summary = CaseSummary(key: key, metric: metric)
        summary.failure = status == Self.ok ? nil : error
        summary.samples = samples
        summary.iterations = iterations
        summary.median = nsMedian
        summary.p10 = nsP10
        summary.p90 = nsP90
        summary.fastest = nsMin
        summary.mean = nsMean
        summary.standardDeviation = nsStddev
        summary.coefficientOfVariation = cv
        summary.operationsPerSecond = opsPerSec
        summary.megabytesPerSecond = mbPerSec
        summary.allocationsPerOperation = allocsPerOp
        summary.instructionsPerOperation = instructionsPerOp
        return summary
    }

    /// Whether the case has results.
    public var isOK: Bool { summary.isOK }

    /// The environment the row was measured in.
    public var environment: RunEnvironment {
        RunEnvironment(
            runID: runID, timestamp: timestamp, commit: commit, build: build, targetCPU: targetCPU, cpu: cpu,
            cpuFlags: cpuFlags,
            cores: cores, kernel: kernel, swift: swift, openssl: openssl, libsodium: libsodium)
    }
}

/// One sample of one case: a row of `<run>.samples.csv`.
public struct SampleRow: CaseRow, Sendable, Equatable {
    /// The report format's version: ``ReportSchema/version``.
    public var schema = ReportSchema.version
    /// The run this row belongs to: `<UTC timestamp>-<short commit>`.
    public var runID = ""
    /// The backend's name.
    public var backend = ""
    /// The operation measured.
    public var operation = BenchmarkOperation.verifier
    /// The verifier length in characters, or the message size in bytes.
    public var size = 0
    /// Threads that ran the case at once.
    public var threads = 1
    /// Which of the run's measuring processes took the sample, from 0.
    public var process = 0
    /// The sample's number within its case, from 0 in the order taken.
    public var sample = 0
    /// Operations per thread in the sample.
    public var iterations = 0
    /// The sample's wall time over `iterations × threads`.
    public var nsPerOp = 0.0
    /// Heap allocations during the sample, all threads together; `nil` where they were not counted.
    public var allocations: Int?

    /// An empty row, for decoding.
    public init() {}

    /// The rows of a measured case's samples.
    public static func rows(of measurement: CaseMeasurement, runID: String) -> [SampleRow] {
        measurement.samples.enumerated().map { index, sample in
            var row = SampleRow()
            row.runID = runID
            row.key = measurement.key
            row.process = sample.process
            row.sample = index
            row.iterations = sample.iterations
            row.nsPerOp = sample.nanosecondsPerOperation
            row.allocations = sample.allocations
            return row
        }
    }
}

/// A report row that belongs to one case, and the key its four case columns make.
public protocol CaseRow {
    /// The backend's name.
    var backend: String { get set }
    /// The operation measured.
    var operation: BenchmarkOperation { get set }
    /// The verifier length in characters, or the message size in bytes.
    var size: Int { get set }
    /// Threads that ran the case at once.
    var threads: Int { get set }
}

extension CaseRow {
    /// The case this row belongs to.
    public var key: CaseKey {
        get { CaseKey(backend: backend, operation: operation, size: size, threads: threads) }
        set {
            backend = newValue.backend
            operation = newValue.operation
            size = newValue.size
            threads = newValue.threads
        }
    }
}
