import PKCEBenchCore

extension RunToRunSpread {
    /// The spread between runs measured from the history file at `path`, for a comparison of
    /// runs made in `environment`.
    ///
    /// - Parameter required: Whether a missing file is an error; if not, every case is unmeasured.
    /// - Throws: ``BenchError``: `.missingInput`, `.malformedInput`.
    package init(
        historyAt path: String, required: Bool, like environment: RunEnvironment?, excluding excluded: Set<String>
    ) throws(BenchError) {
        guard ReportFiles.exists(path) else {
            if required { throw BenchError(.missingInput, "\(path): no such file") }
            self = .unmeasured
            return
        }
        self.init(rows: try ReportFiles.readHistory(at: path), like: environment, excluding: excluded)
    }

    /// The spread between runs measured from a history's `rows` (a file's or the store's), for a
    /// comparison of runs made in `environment`; unmeasured when that is not known.
    package init(rows: [SummaryRow], like environment: RunEnvironment?, excluding excluded: Set<String>) {
        guard let environment else {
            self = .unmeasured
            return
        }
        self.init(history: rows.map { ($0.environment, $0.summary) }, like: environment, excluding: excluded)
    }
}
