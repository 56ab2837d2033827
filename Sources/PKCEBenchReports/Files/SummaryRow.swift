import PKCEBenchCore

/// One case of one run: a row of `<run>.csv`, `latest.csv`, `baseline.csv` and `history.csv`,
/// which holds the case's summary and the environment of its run.
package struct SummaryRow: Sendable, Equatable {
    /// The report format's version: ``ReportSchema/version``, or that of the file it was read from.
    package var schema = ReportSchema.version
    /// How and where the row's run was made. Its `targetCPU` is empty in reports written before
    /// the column existed.
    package var environment: RunEnvironment
    /// What the case came to.
    package var summary: CaseSummary

    /// The `status` of a case with results.
    package static let ok = "ok"
    /// The `status` of a case that failed.
    package static let failed = "failed"

    /// The row of a case's summary, in a run made in `environment`: with the library of the case's
    /// own backend only, as its `library` column records it.
    package init(summary: CaseSummary, environment: RunEnvironment) {
        self.summary = summary
        self.environment = environment
        self.environment.libraries = environment.libraries.filter { $0.key == summary.key.backend }
    }

    /// The rows of `run`'s cases.
    package static func rows(of run: RunResult) -> [SummaryRow] {
        run.summaries.map { SummaryRow(summary: $0, environment: run.environment) }
    }

    /// An empty row, for decoding.
    package init() {
        self.init(
            summary: CaseSummary(key: CaseKey(backend: "", operation: .verifier, size: 0, threads: 1)),
            environment: RunEnvironment(
                runID: "", timestamp: "", commit: "", build: "", targetCPU: "", cpu: "", cpuFlags: "", cores: 0,
                kernel: "", swift: "", libraries: [:]))
    }

    /// The case this row belongs to.
    package var key: CaseKey {
        get { summary.key }
        set { summary.key = newValue }
    }

    /// Whether the case has results.
    package var isOK: Bool { summary.isOK }

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
    /// The report format's version: ``ReportSchema/version``.
    package var schema = ReportSchema.version
    /// The run this row belongs to: `<UTC timestamp>-<short commit>`.
    package var runID = ""
    /// The case this row belongs to.
    package var key = CaseKey(backend: "", operation: .verifier, size: 0, threads: 1)
    /// The sample's number within its case, from 0 in the order taken.
    package var index = 0
    /// The sample: its process, iterations, time per operation and allocations.
    package var sample = Sample(iterations: 0, nanosecondsPerOperation: 0, process: 0, allocations: nil)

    /// An empty row, for decoding.
    package init() {}

    /// The rows of the samples of `run`'s cases.
    package static func rows(of run: RunResult) -> [SampleRow] {
        run.measurements.flatMap { measurement in
            measurement.samples.enumerated().map { index, sample in
                var row = SampleRow()
                row.runID = run.environment.runID
                row.key = measurement.key
                row.index = index
                row.sample = sample
                return row
            }
        }
    }
}
