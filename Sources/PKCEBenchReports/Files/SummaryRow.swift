import PKCEBenchCore

/// One case of one run: a row of `<run>.csv`, `latest.csv`, `baseline.csv` and `history.csv`,
/// which holds the case's summary, flattened into its cells, and the environment of its run.
package struct SummaryRow: Sendable, Equatable {
    /// The report format's version: ``ReportSchema/version``, or that of the file it was read from.
    package var schema = ReportSchema.version
    /// Its `targetCPU` is empty in reports written before the column existed.
    package var environment: RunEnvironment
    package var key: CaseKey
    package var metric = Metric.time
    /// `nil` when the status is `ok`.
    package var failure: String?
    package var samples = 0
    package var iterations = 0
    /// A timed case's figures (see ``CaseSummary/Times``); empty cells otherwise.
    package var median, p10, p90, fastest, mean, standardDeviation, coefficientOfVariation: Double?
    package var operationsPerSecond, megabytesPerSecond: Double?
    package var allocationsPerOperation: Double?
    package var instructionsPerOperation: Double?

    /// The `status` of a case with results.
    package static let ok = "ok"
    /// The `status` of a case that failed.
    package static let failed = "failed"

    /// The row of a case's summary, in a run made in `environment`: with the library of the case's
    /// own backend only, as its `library` column records it.
    package init(summary: CaseSummary, environment: RunEnvironment) {
        self.environment = environment
        self.environment.libraries = environment.libraries.filter { $0.key == summary.key.backend }
        key = summary.key
        metric = summary.metric
        samples = summary.samples
        iterations = summary.iterations
        allocationsPerOperation = summary.allocationsPerOperation
        switch summary.outcome {
        case .failed(let reason):
            failure = reason
        case .counted(let instructions):
            instructionsPerOperation = instructions
        case .timed(let times):
            median = times.median
            p10 = times.p10
            p90 = times.p90
            fastest = times.fastest
            mean = times.mean
            standardDeviation = times.standardDeviation
            coefficientOfVariation = times.coefficientOfVariation
            operationsPerSecond = times.operationsPerSecond
            megabytesPerSecond = times.megabytesPerSecond
        }
    }

    package static func rows(of run: RunResult) -> [SummaryRow] {
        run.summaries.map { SummaryRow(summary: $0, environment: run.environment) }
    }

    /// An empty row, for decoding.
    package init() {
        key = CaseKey(backend: "", operation: .verifier, size: 0, threads: 1)
        environment = RunEnvironment(
            runID: "", timestamp: "", commit: .unknown, build: .release, targetCPU: "", cpu: "", cpuFlags: "", cores: 0,
            kernel: "", swift: "", libraries: [:])
    }

    /// The case's summary. A row whose status is `ok` but whose cells lack its metric's figures
    /// (which `bench` never writes, and reading a file refuses: ``missingFigure``) failed, with no
    /// reason given.
    package var summary: CaseSummary {
        CaseSummary(
            key: key, metric: metric, samples: samples, iterations: iterations,
            allocationsPerOperation: allocationsPerOperation, outcome: outcome)
    }

    private var outcome: CaseSummary.Outcome {
        if let failure { return .failed(reason: failure) }
        switch metric {
        case .instructions:
            guard let instructionsPerOperation else { break }
            return .counted(instructionsPerOperation: instructionsPerOperation)
        case .time:
            guard let median, let p10, let p90, let fastest, let mean, let standardDeviation,
                let coefficientOfVariation
            else { break }
            return .timed(
                CaseSummary.Times(
                    median: median, p10: p10, p90: p90, fastest: fastest, mean: mean,
                    standardDeviation: standardDeviation, coefficientOfVariation: coefficientOfVariation,
                    operationsPerSecond: operationsPerSecond, megabytesPerSecond: megabytesPerSecond))
        }
        return .failed(reason: "")
    }

    package var isOK: Bool { summary.isOK }

    /// The column of the first figure that a row marked `ok` lacks: a timed case has all seven
    /// times, a counted one its count.
    var missingFigure: String? {
        guard failure == nil else { return nil }
        let figures: [(column: String, value: Double?)] =
            metric == .instructions
            ? [("instructions_per_op", instructionsPerOperation)]
            : [
                ("ns_median", median), ("ns_p10", p10), ("ns_p90", p90), ("ns_min", fastest), ("ns_mean", mean),
                ("ns_stddev", standardDeviation), ("cv", coefficientOfVariation),
            ]
        return figures.first { $0.value == nil }?.column
    }

    /// The runs that `rows` hold, in the order each first appears, each with its rows' summaries in
    /// their order.
    package static func runs(of rows: [SummaryRow]) -> [RunResult] {
        grouped(rows).compactMap { rows in
            environment(of: rows).map { RunResult(environment: $0, summaries: rows.map(\.summary)) }
        }
    }

    /// `rows` grouped by run, in the order each run first appears.
    package static func grouped(_ rows: [SummaryRow]) -> [[SummaryRow]] {
        let byRun = Dictionary(grouping: rows, by: \.environment.runID)
        return rows.map(\.environment.runID).uniqued().compactMap { byRun[$0] }
    }

    /// The environment of the run that `rows` belong to: the first row's, with the library of every
    /// row's backend (each row records only its own).
    package static func environment(of rows: [SummaryRow]) -> RunEnvironment? {
        var environment = rows.first?.environment
        for row in rows {
            environment?.libraries.merge(row.environment.libraries) { first, _ in first }
        }
        return environment
    }
}

/// One sample of one case: a row of `<run>.samples.csv`.
package struct SampleRow: Sendable, Equatable {
    package var schema = ReportSchema.version
    /// `<UTC timestamp>-<short commit>`.
    package var runID = ""
    package var key = CaseKey(backend: "", operation: .verifier, size: 0, threads: 1)
    /// The sample's number within its case, from 0 in the order taken.
    package var index = 0
    package var sample = Sample(iterations: 0, nanosecondsPerOperation: 0, process: 0, allocations: nil)

    /// An empty row, for decoding.
    package init() {}

    package static func rows(of run: RunResult) -> [SampleRow] {
        run.samples.keys.sorted().flatMap { key in
            run.samples[key, default: []].enumerated().map { index, sample in
                var row = SampleRow()
                row.runID = run.environment.runID
                row.key = key
                row.index = index
                row.sample = sample
                return row
            }
        }
    }
}
