import ArgumentParser
import Foundation
import PKCEBenchCore
import PKCEBenchReports

extension History {
    /// `bench history import FILE`: a history file's runs into the store.
    struct Import: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Store the runs of a history file (history.csv, or a run's summary) in the PostgreSQL store.",
            discussion: """
                Each run goes in one transaction, and a run the store holds already (by its id) is left \
                as it is, so importing a file twice stores its runs once.
                """)

        @Argument(help: ArgumentHelp("The file of runs.", valueName: "file.csv"))
        var file: String

        @OptionGroup var store: StoreOptions

        func run() throws {
            try store.required().importRuns(of: file)
        }
    }

    /// `bench history push`: the results directory's runs that the store lacks.
    struct Push: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Store the runs of the results directory's history.csv that the PostgreSQL store lacks.",
            discussion: """
                A run that could not be stored when it was made (the database down) waits in history.csv; \
                push stores it, once: the store keeps a run by its id.
                """)

        @OptionGroup var directory: DirectoryOptions
        @OptionGroup var store: StoreOptions

        func run() throws {
            let store = try store.required()
            let path = ResultsDirectory(path: directory.path).history.path
            guard ReportFiles.exists(path) else {
                throw BenchError(.missingInput, "\(path): no such file; every run of bench appends to it")
            }
            try store.importRuns(of: path)
        }
    }

    /// `bench history export FILE`: the store's runs as a history file.
    struct Export: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write the PostgreSQL store's runs to a file as history.csv holds them (whole or not at all).")

        @Argument(help: ArgumentHelp("The file to write.", valueName: "file.csv"))
        var file: String

        @OptionGroup var store: StoreOptions

        func run() throws {
            let store = try store.required()
            let rows = try store.rows()
            try ReportFiles.write(HistoryStore.file(of: rows), to: file)
            print("wrote \(SummaryRow.grouped(rows).count) run(s) of \(store.address) to \(file)")
        }
    }
}

extension StoreOptions {
    /// The store, which the command cannot do without.
    ///
    /// - Throws: `BenchError` (`.usage`): as ``store()``, or when neither `--store` nor the environment names one.
    func required() throws(BenchError) -> HistoryStore {
        guard let store = try store() else {
            throw BenchError(
                .usage, "name the PostgreSQL store with --store URL or $\(StoreAddress.environmentVariable)")
        }
        return store
    }
}

extension HistoryStore {
    /// Stores the runs of the history file at `path` that the store lacks, and says how many.
    func importRuns(of path: String) throws(BenchError) {
        let runs = SummaryRow.grouped(try ReportFiles.readHistory(at: path))
        let added = try append(runs: runs)
        print("stored \(added) of the \(runs.count) run(s) of \(path) in \(address); the others were there")
    }
}
