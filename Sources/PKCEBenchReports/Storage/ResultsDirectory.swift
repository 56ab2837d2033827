import Foundation
import PKCEBenchCore

/// The directory runs write their reports to (`results/` by default), and the names in it.
package struct ResultsDirectory: Sendable {
    package let url: URL

    /// Touches nothing until ``prepare(checkingHistory:)``.
    package init(path: String) {
        self.url = URL(fileURLWithPath: path, isDirectory: true)
    }

    /// The summary of the last successful run.
    package var latest: URL { url.appendingPathComponent("latest.csv") }
    package var baseline: URL { baseline(.unnamed) }
    package func baseline(_ name: BaselineName) -> URL { url.appendingPathComponent(name.fileName) }
    /// The summary rows of every run, appended run by run.
    package var history: URL { url.appendingPathComponent("history.csv") }
    package var chart: URL { url.appendingPathComponent("latest.svg") }
    package var page: URL { url.appendingPathComponent("latest.html") }

    package func summary(of environment: RunEnvironment) -> URL {
        url.appendingPathComponent("\(environment.runID).csv")
    }

    /// Makes sure reports can be written, before anything is measured: the directory made, writable
    /// and lockable, `history.csv` readable when `checkingHistory`, a killed run's temporary files
    /// removed.
    ///
    /// - Throws: `BenchError`: `.cannotWrite`; `.malformedInput` when `history.csv` does not read.
    package func prepare(checkingHistory: Bool = true) throws(BenchError) {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else {
                throw .cannotWrite(url.path, "it is a file, not a directory")
            }
        } else {
            do {
                try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
            } catch {
                throw .cannotWrite(url.path, "the directory cannot be created")
            }
        }
        AtomicFiles.removeAbandoned(in: url)
        // Permission bits do not tell the whole story (root, read-only mounts): try to write.
        var probe = AtomicFiles()
        defer { probe.discard() }
        try probe.stage("", at: url.appendingPathComponent(".write-probe"))
        try DirectoryLock.check(url)

        if checkingHistory && FileManager.default.fileExists(atPath: history.path) {
            _ = try ReportFiles.readHistory(at: history.path)
        }
    }

    /// Writes a run's reports, all or nothing, with the directory locked, as the article "Reports"
    /// describes; with `asBaseline`, also that baseline's summary and samples.
    ///
    /// - Throws: `BenchError`: `.cannotWrite`; `.malformedInput` when `history.csv` no longer reads or
    ///   a case is both timed and counted, `.internalFailure` when the run's own rows would not read
    ///   back (``files(of:as:)``).
    @discardableResult
    package func save(
        _ run: RunResult, asBaseline: BaselineName? = nil, comparison: Comparison? = nil,
        changes: HistoryChanges? = nil
    ) throws(BenchError) -> [URL] {
        let runSummary = self.summary(of: run.environment)
        let (summary, samples) = try Self.files(of: run, as: runSummary)
        return try DirectoryLock.withLock(on: url) { () throws(BenchError) in
            // Run ids carry a random nonce; a file of the same name is another run's, and stays.
            guard !FileManager.default.fileExists(atPath: runSummary.path) else {
                throw .cannotWrite(runSummary.path, "another run's report has this name")
            }
            var outputs: [(URL, String)] = [
                (runSummary, summary), (samplesURL(of: runSummary), samples),
                (latest, summary), (samplesURL(of: latest), samples),
                (chart, ThroughputChart.svg(run)),
                (page, HTMLReport.page(run, comparison: comparison, changes: changes)),
                (history, try appendedHistory(run)),
            ]
            if let name = asBaseline {
                outputs += [(baseline(name), summary), (samplesURL(of: baseline(name)), samples)]
            }

            try AtomicFiles.writeAll(outputs)
            return outputs.map(\.0)
        }
    }

    /// The names of the files `bench ab` and `bench pair` write.
    package enum ABFiles {
        package static let baseline = "ab-baseline.csv"
        package static let current = "ab-current.csv"
        package static let comparison = "ab-comparison.csv"
        package static let page = "ab.html"
    }

    /// Writes what `bench ab` and `bench pair` measured and decided (``ABFiles``), all or none,
    /// under the directory's lock.
    ///
    /// - Throws: `BenchError`: `.cannotWrite` when a file cannot be written, then none is;
    ///   `.malformedInput` or `.internalFailure` when a run's rows would not read back (``files(of:as:)``).
    package func save(baseline: RunResult, current: RunResult, comparison: Comparison) throws(BenchError) {
        var files: [(URL, String)] = []
        for (run, name) in [(baseline, ABFiles.baseline), (current, ABFiles.current)] {
            let summaryURL = url.appendingPathComponent(name)
            let (summary, samples) = try Self.files(of: run, as: summaryURL)
            files += [(summaryURL, summary), (samplesURL(of: summaryURL), samples)]
        }
        files.append(
            (url.appendingPathComponent(ABFiles.comparison), ComparisonFormatter.csv(comparison, lineEnding: .crlf)))
        files.append((url.appendingPathComponent(ABFiles.page), HTMLReport.page(current, comparison: comparison)))
        try DirectoryLock.withLock(on: url) { () throws(BenchError) in
            try AtomicFiles.writeAll(files)
        }
    }

    /// Copies a summary and its samples to a baseline's files (`baseline.csv` and
    /// `baseline.samples.csv` by default), atomically.
    ///
    /// - Throws: `BenchError`: `.missingInput`, `.malformedInput` (the source), `.cannotWrite`.
    package func promoteToBaseline(summaryAt path: String, as name: BaselineName = .unnamed) throws(BenchError) {
        try DirectoryLock.withLock(on: url) { () throws(BenchError) in
            // Read under the lock: `path` may be `latest.csv`, which a run finishing now replaces.
            let summary = try ReportFiles.contents(of: path)
            _ = try ReportFiles.summaries(from: summary, path: path)
            let samplesPath = ReportFiles.samplesPath(for: path)
            let samples = try ReportFiles.contents(of: samplesPath)
            _ = try ReportFiles.samples(from: samples, path: samplesPath)
            try AtomicFiles.writeAll([
                (baseline(name), String(decoding: summary, as: UTF8.self)),
                (samplesURL(of: baseline(name)), String(decoding: samples, as: UTF8.self)),
            ])
        }
    }

    /// The contents of a run's summary file, to be saved at `summaryURL`, and of its samples file,
    /// each read back with the schema that every command reads them with. A row that did not read
    /// back, once stored, would make every later command on the directory exit 65 (`history.csv`
    /// keeps it for good), so it is refused before anything is staged. A run's rows come from its
    /// measurements, which another build's workers may have made (`bench backfill`, `bench ab`):
    /// the worker protocol's checks should have refused anything that this refuses.
    ///
    /// A report file holds one row per case, so a run with a case both timed and counted, which
    /// the type admits and no command makes, is refused as every reader would refuse its file.
    ///
    /// - Throws: `BenchError`: `.malformedInput` naming a case both timed and counted;
    ///   `.internalFailure` quoting what did not read.
    package static func files(of run: RunResult, as summaryURL: URL) throws(BenchError) -> (
        summary: String, samples: String
    ) {
        let timed = Set(run.summaries.filter { $0.metric == .time }.map(\.key))
        if let both = run.summaries.first(where: { $0.metric == .instructions && timed.contains($0.key) }) {
            throw BenchError(
                .malformedInput,
                "nothing written: case \(both.key) is both timed and counted, and a report file holds one row per case")
        }
        let summary = ReportSchema.encode(SummaryRow.rows(of: run), columns: ReportSchema.summary)
        let samples = ReportSchema.encode(SampleRow.rows(of: run), columns: ReportSchema.samples)
        do {
            _ = try ReportFiles.summaries(from: Array(summary.utf8), path: summaryURL.path)
            _ = try ReportFiles.samples(from: Array(samples.utf8), path: ReportFiles.samplesPath(for: summaryURL.path))
        } catch {
            throw BenchError(.internalFailure, "nothing written: the run's rows would not read back: \(error.message)")
        }
        return (summary, samples)
    }

    package func samplesURL(of summary: URL) -> URL {
        URL(fileURLWithPath: ReportFiles.samplesPath(for: summary.path))
    }

    /// `history.csv` as it will be with this run's rows at its end, read under the lock. The rows go
    /// in under the file's own header (its order, empty cells for its columns we do not write); a
    /// header from an older `bench` that lacks our columns is widened at its end, so nothing is lost.
    private func appendedHistory(_ run: RunResult) throws(BenchError) -> String {
        let rows = SummaryRow.rows(of: run)
        guard FileManager.default.fileExists(atPath: history.path) else {
            return ReportSchema.encode(rows, columns: ReportSchema.summary)
        }
        let bytes = try ReportFiles.contents(of: history.path)
        // It read in ``prepare()``, but another run may have replaced it since: read it again.
        _ = try ReportFiles.history(from: bytes, path: history.path)
        var reader = try ReportFiles.reader(of: bytes, path: history.path)
        let missing = ReportSchema.summaryColumnNames.filter { !reader.header.contains($0) }
        let header = reader.header + missing
        let columns = header.map { name in
            ReportSchema.summary.first { $0.name == name }
                ?? Column(name: name, encode: { _ in "" }, decode: { _, _ in })
        }
        let newRows = ReportSchema.encodeRecords(rows, columns: columns)
        guard missing.isEmpty else {
            // Record by record: a history is not held as fields whole.
            var widened = CSV.encodeRecord(header)
            let empty = Array(repeating: "", count: missing.count)
            while let record = try ReportFiles.next(of: &reader, path: history.path) {
                widened += CSV.encodeRecord(record.fields + empty)
            }
            return widened + newRows
        }
        // The header holds every column: keep the file's bytes as they are, and append.
        var existing = String(decoding: bytes, as: UTF8.self)
        if let last = existing.utf8.last, last != UInt8(ascii: "\n") {
            existing += "\r\n"
        }
        return existing + newRows
    }
}
