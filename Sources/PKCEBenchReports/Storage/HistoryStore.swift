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
        return try Self.append(runs, to: store, lacking: store.runIDs())
        #else
        throw Self.notBuilt
        #endif
    }

    /// Stores `run` (its rows), then the other runs of the history file at `history` that the store
    /// lacks (made while it could not take them, by `bench backfill`, or before it was used),
    /// oldest first, one transaction a run. The file's rows are read only when it holds such a
    /// run; a file that is not there holds none.
    ///
    /// - Returns: How many of the file's other runs were added.
    /// - Throws: `BenchError`, as ``append(runs:)``; as ``ReportFiles/readHistory(at:)``. `run` stays
    ///   stored when one of the others fails.
    @discardableResult
    package func append(_ run: [SummaryRow], andWaitingRunsOf history: String) throws(BenchError) -> Int {
        #if PostgreSQL
        let store = try PostgresStore.open(address)
        let present = try store.runIDs()
        _ = try Self.append([run], to: store, lacking: present)
        guard ReportFiles.exists(history) else { return 0 }
        let id = run.first?.environment.runID ?? ""
        let waiting = try ReportFiles.runIDs(inHistoryAt: history).subtracting(present).subtracting([id])
        guard !waiting.isEmpty else { return 0 }
        let earlier = SummaryRow.grouped(try ReportFiles.readHistory(at: history))
        return try Self.append(
            earlier.filter { waiting.contains($0.first?.environment.runID ?? "") }, to: store, lacking: present)
        #else
        throw Self.notBuilt
        #endif
    }

    #if PostgreSQL
    /// Stores each of `runs` whose id is not in `present`, one transaction a run, in order.
    ///
    /// - Returns: How many were added.
    private static func append(
        _ runs: [[SummaryRow]], to store: PostgresStore, lacking present: Set<String>
    ) throws(BenchError) -> Int {
        var added = 0
        for rows in runs where !present.contains(rows.first?.environment.runID ?? "") {
            if try store.append(run: rows) { added += 1 }
        }
        return added
    }
    #endif

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

    /// Connects, and brings the store's schema to this bench's version: how a command that reads
    /// the store as it goes finds one that is down before it builds or measures anything.
    ///
    /// - Throws: `BenchError`, as ``append(runs:)``.
    package func check() throws(BenchError) {
        #if PostgreSQL
        _ = try PostgresStore.open(address)
        #else
        throw Self.notBuilt
        #endif
    }

    /// The runs whose recorded commit begins with `prefix` (7 hexadecimal digits of a hash, say),
    /// in the order they started: what `bench backfill` counts of a commit besides its own history.
    ///
    /// - Throws: `BenchError`, as ``append(runs:)``.
    package func runs(ofCommitsBeginning prefix: String) throws(BenchError) -> [RunResult] {
        #if PostgreSQL
        SummaryRow.runs(of: try PostgresStore.open(address).rows(commitPrefix: prefix))
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
