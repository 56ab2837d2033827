import PKCEBenchCore

/// The history kept in PostgreSQL at an address, as the commands use it, however bench was built:
/// without the PostgreSQL package trait each use is refused with one line that says how to build it.
package struct HistoryStore: Sendable {
    package let address: StoreAddress

    /// The store at `address`.
    ///
    /// - Throws: `BenchError` (`.usage`) in a build without the PostgreSQL trait, before anything
    ///   is measured.
    package init(checking address: StoreAddress) throws(BenchError) {
        #if PostgreSQL
        self.address = address
        #else
        throw Self.notBuilt
        #endif
    }

    /// Stores each run (the rows of one run each) that the store does not hold, one transaction a
    /// run, in order.
    ///
    /// - Returns: How many were added; the others were there already.
    /// - Throws: `BenchError`: `.usage` in a build without the trait; `.storeUnavailable`,
    ///   `.storeRefused`, `.malformedInput` (a newer schema), as the store throws them. The runs
    ///   stored before a failure stay stored.
    @discardableResult
    package func append(runs: [[SummaryRow]]) throws(BenchError) -> Int {
        #if PostgreSQL
        let store = try PostgresStore.open(address)
        let present = try store.runIDs()
        var added = 0
        for rows in runs where !present.contains(rows.first?.environment.runID ?? "") {
            if try store.append(run: rows) { added += 1 }
        }
        return added
        #else
        throw Self.notBuilt
        #endif
    }

    /// Stores `run` (its rows), and first the runs of the history file at `history` that the store
    /// lacks: those made while it could not take them, oldest first, one transaction a run. The
    /// file's rows are read only when it holds such a run.
    ///
    /// - Returns: How many runs were added.
    /// - Throws: `BenchError`, as ``append(runs:)``; as ``ReportFiles/readHistory(at:)``.
    @discardableResult
    package func append(_ run: [SummaryRow], afterWaitingRunsOf history: String) throws(BenchError) -> Int {
        #if PostgreSQL
        let store = try PostgresStore.open(address)
        let present = try store.runIDs()
        let id = run.first?.environment.runID ?? ""
        let waiting = try ReportFiles.runIDs(inHistoryAt: history).subtracting(present).subtracting([id])
        var runs = [run]
        if !waiting.isEmpty {
            let earlier = SummaryRow.grouped(try ReportFiles.readHistory(at: history))
            runs = earlier.filter { waiting.contains($0.first?.environment.runID ?? "") } + runs
        }
        var added = 0
        for rows in runs where !present.contains(rows.first?.environment.runID ?? "") {
            if try store.append(run: rows) { added += 1 }
        }
        return added
        #else
        throw Self.notBuilt
        #endif
    }

    /// Every row, run by run in the order they started, read as `history.csv` is read.
    ///
    /// - Throws: `BenchError`, as ``append(runs:)``.
    package func rows() throws(BenchError) -> [SummaryRow] {
        #if PostgreSQL
        try PostgresStore.open(address).rows()
        #else
        throw Self.notBuilt
        #endif
    }

    /// A history file of `rows`, each with the schema version it was written in.
    package static func file(of rows: [SummaryRow]) -> String {
        ReportSchema.encode(rows, columns: ReportSchema.movedSummary)
    }

    private static var notBuilt: BenchError {
        BenchError(
            .usage,
            "this bench was built without its PostgreSQL store (--store): build it with "
                + "'swift build -c release --traits PostgreSQL'")
    }
}
