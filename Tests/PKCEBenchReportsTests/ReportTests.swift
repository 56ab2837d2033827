import Foundation
import PKCE
@testable import PKCEBenchCore
@testable import PKCEBenchReports
import PKCEBenchReportsTestSupport
import PKCEBenchTestSupport
import Testing

/// A report of made-up measurements, with environment values that need quoting in CSV.
func sampleReport(runID: String = "20261122T000000.000Z-abc1234-00000000", scale: Double = 1) -> RunResult {
    let environment = RunEnvironment(
        runID: runID, timestamp: "2026-11-22T00:00:00.000Z", commit: RecordedCommit(recorded: "abc1234"),
        build: .release,
        cpu: "Test CPU, \"Model\" 9", cpuFlags: "sha_ni avx2", cores: 2, kernel: "6.1.0", swift: "6.3.1",
        libraries: ["openssl": "OpenSSL 3.0.19 27 Jan 2026", "sodium": "libsodium 1.0.18"])
    return RunResult(environment: environment, measurements: sampleMeasurements(scale: scale))
}

/// The measurements of ``sampleReport(runID:scale:)``: two cases and a failed one.
func sampleMeasurements(scale: Double = 1) -> [CaseMeasurement] {
    [
        CaseMeasurement(
            key: CaseKey(backend: "swift", operation: .sha256, size: 64, threads: 1), iterations: 1000,
            nanosecondsPerOperation: [100, 102, 98, 101, 99].map { $0 * scale }, failure: nil),
        CaseMeasurement(
            key: CaseKey(backend: "openssl", operation: .challenge, size: 43, threads: 1), iterations: 500,
            nanosecondsPerOperation: [200, 210, 190, 205, 195].map { $0 * scale }, failure: nil),
        CaseMeasurement.failed(
            CaseKey(backend: "sodium", operation: .random, size: 32, threads: 1), reason: "randomness failed: a, b\nc"),
    ]
}

@Suite("Report files")
struct ReportTests {
    @Test("Summary rows carry the statistics of their samples")
    func summaryStatistics() throws {
        let row = try #require(sampleReport().rows.first { $0.key.operation == .sha256 })
        #expect(row.median == 100)
        #expect(row.fastest == 98)
        #expect(row.summary.samples == 5)
        #expect(row.operationsPerSecond == 1e7)
        // 64 bytes at 10⁷ operations per second.
        #expect(row.megabytesPerSecond == 640)
        let challenge = try #require(sampleReport().rows.first { $0.key.operation == .challenge })
        #expect(challenge.megabytesPerSecond == nil)
    }

    @Test("Saved reports read back as they were written, including a failed case")
    func roundTrip() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let results = ResultsDirectory(path: directory.path)
        try results.prepare()
        let report = sampleReport()
        let written = try results.save(report)
        #expect(
            Set(written.map(\.lastPathComponent)) == [
                "20261122T000000.000Z-abc1234-00000000.csv", "20261122T000000.000Z-abc1234-00000000.samples.csv",
                "latest.csv",
                "latest.samples.csv", "latest.svg", "latest.html", "history.csv",
            ])

        let summaries = try ReportFiles.readSummary(at: results.latest.path)
        #expect(summaries.count == 3)
        for (read, original) in zip(summaries, report.rows) {
            #expect(read.key == original.key)
            #expect(read.environment == original.environment)
            #expect(read.summary.failure == original.summary.failure)
        }
        // The report's figures are rounded as the file keeps them: what a run shows is what it wrote.
        #expect(summaries == report.rows)
        let samples = try ReportFiles.readSamples(at: ReportFiles.samplesPath(for: results.latest.path))
        #expect(samples.count == 10)
        #expect(
            samples.filter { $0.key.operation == .sha256 }.map(\.sample.nanosecondsPerOperation) == [
                100, 102, 98, 101, 99,
            ])

        let header = try String(contentsOf: results.latest, encoding: .utf8).prefix { $0 != "\r\n" }
        #expect(header.split(separator: ",").map(String.init) == ReportSchema.summaryColumnNames)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasPrefix(".") }
        #expect(leftovers.isEmpty)
    }

    @Test("Each run appends its rows to the history, which stays one readable file")
    func historyAppends() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let results = ResultsDirectory(path: directory.path)
        try results.save(sampleReport(runID: "20261122T000001.000Z-abc1234-00000001"))
        try results.prepare()
        try results.save(sampleReport(runID: "20261122T000002.000Z-abc1234-00000002", scale: 1.1))
        let history = try ReportFiles.readHistory(at: results.history.path)
        #expect(
            history.map(\.environment.runID) == [
                "20261122T000001.000Z-abc1234-00000001", "20261122T000001.000Z-abc1234-00000001",
                "20261122T000001.000Z-abc1234-00000001", "20261122T000002.000Z-abc1234-00000002",
                "20261122T000002.000Z-abc1234-00000002", "20261122T000002.000Z-abc1234-00000002",
            ])
        let text = try String(contentsOf: results.history, encoding: .utf8)
        #expect(!text.contains("\r\n\r\n"), "the appended run must not leave an empty line")
        #expect(text.components(separatedBy: "schema,").count == 2, "one header only")
        // latest.csv is the second run only.
        #expect(
            try ReportFiles.readSummary(at: results.latest.path).allSatisfy {
                $0.environment.runID == "20261122T000002.000Z-abc1234-00000002"
            })
    }

    @Test("A run appends under the history's own header, whatever its column order")
    func historyInItsOwnOrder() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let results = ResultsDirectory(path: directory.path)
        try results.save(sampleReport(runID: "20261122T000001.000Z-abc1234-00000001"))
        // Someone moved the first column last and added a note column.
        let table = try CSV.parse(Array(try Data(contentsOf: results.history)))
        let header = Array(table.header.dropFirst()) + [table.header[0], "note"]
        let records = table.records.map { Array($0.fields.dropFirst()) + [$0.fields[0], "kept"] }
        try Data(CSV.encode(header: header, records: records).utf8).write(to: results.history)

        try results.prepare()
        try results.save(sampleReport(runID: "20261122T000002.000Z-abc1234-00000002", scale: 1.1))
        let history = try ReportFiles.readHistory(at: results.history.path)
        #expect(
            history.map(\.environment.runID) == [
                "20261122T000001.000Z-abc1234-00000001", "20261122T000001.000Z-abc1234-00000001",
                "20261122T000001.000Z-abc1234-00000001", "20261122T000002.000Z-abc1234-00000002",
                "20261122T000002.000Z-abc1234-00000002", "20261122T000002.000Z-abc1234-00000002",
            ])
        #expect(history.suffix(3).map(\.median) == [220, 110, nil])
        let notes = try CSV.parse(Array(try Data(contentsOf: results.history))).records.map { $0.fields.last }
        #expect(notes == ["kept", "kept", "kept", "", "", ""])
    }

    @Test("A history begun before target_cpu and allocs_per_op existed is widened, so no run's values are lost")
    func historyHeaderMigrates() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let results = ResultsDirectory(path: directory.path)
        try results.save(sampleReport(runID: "20261122T000001.000Z-abc1234-00000001"))
        // The history as an older bench wrote it: without the two columns added since.
        let added = ["target_cpu", "allocs_per_op"]
        let table = try CSV.parse(Array(try Data(contentsOf: results.history)))
        let kept = table.header.indices.filter { !added.contains(table.header[$0]) }
        let oldText = CSV.encode(
            header: kept.map { table.header[$0] },
            records: table.records.map { record in kept.map { record.fields[$0] } })
        try Data(oldText.utf8).write(to: results.history)

        var environment = sampleReport(runID: "20261122T000002.000Z-abc1234-00000002").environment
        environment.targetCPU = "x86-64-v4"
        let counted = CaseMeasurement(
            key: CaseKey(backend: "swift", operation: .challenge, size: 43, threads: 1),
            samples: [Sample(iterations: 10, nanosecondsPerOperation: 50, allocations: 20)], failure: nil)
        let report = RunResult(environment: environment, measurements: [counted] + sampleMeasurements())
        try results.prepare()
        try results.save(report)

        let widened = try CSV.parse(Array(try Data(contentsOf: results.history)))
        #expect(widened.header == kept.map { table.header[$0] } + added)
        let history = try ReportFiles.readHistory(at: results.history.path)
        #expect(
            history.map(\.environment.runID) == [
                "20261122T000001.000Z-abc1234-00000001", "20261122T000001.000Z-abc1234-00000001",
                "20261122T000001.000Z-abc1234-00000001", "20261122T000002.000Z-abc1234-00000002",
                "20261122T000002.000Z-abc1234-00000002", "20261122T000002.000Z-abc1234-00000002",
                "20261122T000002.000Z-abc1234-00000002",
            ])
        // The old rows are as they were, the new columns empty; the new rows keep their values.
        let oldRows = try ReportFiles.history(from: Array(oldText.utf8), path: "old")
        #expect(Array(history.prefix(3)) == oldRows)
        #expect(
            history.prefix(3).allSatisfy { $0.summary.allocationsPerOperation == nil && $0.environment.targetCPU == "" }
        )
        let newRow = try #require(
            history.first {
                $0.environment.runID == "20261122T000002.000Z-abc1234-00000002" && $0.key.backend == "swift"
                    && $0.key.operation == .challenge
            })
        #expect(newRow.summary.allocationsPerOperation == 2)
        #expect(history.suffix(4).allSatisfy { $0.environment.targetCPU == "x86-64-v4" })

        // A third run appends under the widened header, keeping the file's bytes.
        let before = try Data(contentsOf: results.history)
        try results.save(sampleReport(runID: "20261122T000003.000Z-abc1234-00000003"))
        let after = try Data(contentsOf: results.history)
        #expect(after.prefix(before.count) == before)
        #expect(try ReportFiles.readHistory(at: results.history.path).count == 10)
    }

    @Test(
        "Schema 1 files read: openssl and libsodium become the library of the backend of that name; a schema 1 history takes schema 2 rows"
    )
    func schemaOneReads() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        // Four rows of the committed results/baseline.csv as schema 1 wrote them: crypto, openssl,
        // sodium and swift at sha256/64.
        let old = root.appendingPathComponent("Tests/Fixtures/summary-schema-1.csv")
        let oldRows = try ReportFiles.readSummary(at: old.path)
        #expect(oldRows.map(\.key.backend) == ["crypto", "openssl", "sodium", "swift"])
        #expect(oldRows.allSatisfy { $0.schema == 1 })
        #expect(
            oldRows.map(\.environment.libraries) == [
                [:], ["openssl": "OpenSSL 3.0.22 25 Aug 2026"], ["sodium": "libsodium 1.0.18"], [:],
            ])
        #expect(
            try ReportFiles.run(summaryAt: old.path).recordedEnvironment?.libraries == [
                "openssl": "OpenSSL 3.0.22 25 Aug 2026", "sodium": "libsodium 1.0.18",
            ])
        // And every committed baseline still reads, whatever its version.
        for name in ["baseline.csv", "baseline-instructions.csv", "baseline-native.csv"] {
            #expect(try !ReportFiles.readSummary(at: root.appendingPathComponent("results/\(name)").path).isEmpty)
        }

        // A history that a schema 1 bench began: new rows go in under its header, widened.
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let results = ResultsDirectory(path: directory.path)
        try FileManager.default.copyItem(at: old, to: results.history)
        try results.prepare()
        try results.save(sampleReport(runID: "20261122T000002.000Z-abc1234-00000002"))
        let header = try CSV.parse(Array(try Data(contentsOf: results.history))).header
        #expect(header.contains("openssl") && header.contains("libsodium") && header.contains("library"))
        #expect(header.last == ReportSchema.summaryColumnNames.last)
        let history = try ReportFiles.readHistory(at: results.history.path)
        #expect(Array(history.prefix(oldRows.count)) == oldRows)
        let newRows = history.dropFirst(oldRows.count)
        #expect(newRows.map(\.schema) == [ReportSchema.version, ReportSchema.version, ReportSchema.version])
        // Each new row records its own backend's library, and no other.
        let libraries = sampleReport().environment.libraries
        for row in newRows {
            #expect(row.environment.libraries == libraries.filter { $0.key == row.key.backend })
        }
        // And a new file is of this schema throughout: `library` where `openssl` and `libsodium` were.
        let latest = try CSV.parse(Array(try Data(contentsOf: results.latest))).header
        #expect(!latest.contains("openssl") && !latest.contains("libsodium") && latest.contains("library"))
    }

    @Test("Runs started in the same millisecond get different ids")
    func runIDsAreUnique() {
        let now = Date()
        let ids = (0..<64).map { _ in RunEnvironment.capture(libraries: [:], at: now).runID }
        #expect(Set(ids).count == ids.count)
        let stamps = Set(ids.map { $0.prefix { $0 != "-" } })
        #expect(stamps.count == 1)
        #expect(ids.allSatisfy { $0.split(separator: "-").last?.count == 8 })
    }

    @Test("A run never overwrites another run's report of the same name")
    func runFileIsNeverOverwritten() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let results = ResultsDirectory(path: directory.path)
        try results.save(sampleReport(runID: "20261122T000001.000Z-abc1234-00000001"))
        let history = try Data(contentsOf: results.history)
        #expect(throws: BenchError.self) {
            try results.save(sampleReport(runID: "20261122T000001.000Z-abc1234-00000001", scale: 2))
        }
        #expect(try Data(contentsOf: results.history) == history)
        #expect(
            try ReportFiles.readSummary(
                at: results.summary(of: sampleReport(runID: "20261122T000001.000Z-abc1234-00000001").environment).path
            )
            .map(\.median) == sampleReport().rows.map(\.median))
    }

    @Test("Temporary files of a run that was killed are removed; another running process's stay")
    func abandonedTemporaryFiles() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // pid_max is at most 2²², so this process cannot exist.
        let abandoned = directory.appendingPathComponent(".latest.csv.99999999.tmp")
        let running = directory.appendingPathComponent(".latest.csv.\(getpid()).tmp")
        let unrelated = directory.appendingPathComponent(".notes.tmp")
        for file in [abandoned, running, unrelated] { try Data("x".utf8).write(to: file) }
        try ResultsDirectory(path: directory.path).prepare()
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
                == [running, unrelated].map(\.lastPathComponent).sorted())
    }

    @Test("A baseline is written with the run when asked")
    func baseline() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let results = ResultsDirectory(path: directory.path)
        try results.save(sampleReport(), asBaseline: .unnamed)
        #expect(try ReportFiles.readSummary(at: results.baseline.path).count == 3)
        #expect(try ReportFiles.readSamples(at: ReportFiles.samplesPath(for: results.baseline.path)).count == 10)
    }

    @Test("An output path that is a file cannot be prepared (73), and nothing is written")
    func outputIsFile() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("results")
        try Data("not a directory".utf8).write(to: file)
        #expect(throws: BenchError(.cannotWrite, "cannot write \(file.path): it is a file, not a directory")) {
            try ResultsDirectory(path: file.path).prepare()
        }
        #expect(try String(contentsOf: file, encoding: .utf8) == "not a directory")
    }

    @Test("A missing output directory is created")
    func createsDirectory() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let nested = directory.appendingPathComponent("a/b")
        try ResultsDirectory(path: nested.path).prepare()
        var isDirectory: ObjCBool = false
        #expect(FileManager.default.fileExists(atPath: nested.path, isDirectory: &isDirectory) && isDirectory.boolValue)
        #expect(try FileManager.default.contentsOfDirectory(atPath: nested.path).isEmpty)
    }

    @Test("A save reads its own rows back before staging them: a row the history could not read is 70, nothing written")
    func saveReadsItsRowsBack() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let results = ResultsDirectory(path: directory.path)
        try results.prepare()
        let environment = RunEnvironment.capture(libraries: [:], buildCommit: "abc1234")
        let key = CaseKey(backend: "swift", operation: .sha256, size: 64, threads: 1)
        let sampled = CaseMeasurement(
            key: key, samples: [Sample(iterations: 10, nanosecondsPerOperation: 61.5)], failure: nil)
        try results.save(RunResult(environment: environment, measurements: [sampled]))
        let before = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        let history = try Data(contentsOf: results.history)

        // Negative counts, as a worker could once report them: counts and figures read only from 0.
        let counted = CaseMeasurement.counted(key, iterations: -3, instructionsPerOperation: -5)
        // Another run: its id's nonce differs.
        let next = RunEnvironment.capture(libraries: [:], buildCommit: "abc1234")
        #expect {
            try results.save(RunResult(environment: next, measurements: [counted]))
        } throws: { error in
            guard let error = error as? BenchError else { return false }
            return error.kind == .internalFailure
                && error.message.hasPrefix("nothing written: the run's rows would not read back: ")
                && error.message.contains("'-3' is not a whole number")
        }
        // Nor does a pair of runs of `bench ab` write any of its files.
        let good = RunResult(environment: environment, measurements: [sampled])
        let comparison = try Comparison(
            baseline: good.named("baseline"), current: good.named("current"),
            criteria: ComparisonCriteria(threshold: 0.05))
        #expect(throws: BenchError.self) {
            try results.save(
                baseline: good, current: RunResult(environment: next, measurements: [counted]), comparison: comparison)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() == before)
        #expect(try Data(contentsOf: results.history) == history)
        #expect(try ReportFiles.readHistory(at: results.history.path).count == 1)
    }

    @Test("A malformed history stops the run before it measures (65), and is left as it was")
    func malformedHistory() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let results = ResultsDirectory(path: directory.path)
        try Data("schema,run_id\n1,x\n".utf8).write(to: results.history)
        #expect(
            throws: BenchError(.malformedInput, "\(results.history.path):1: the required column 'timestamp' is missing")
        ) {
            try results.prepare()
        }
        #expect(try String(contentsOf: results.history, encoding: .utf8) == "schema,run_id\n1,x\n")
    }

    @Test("A summary file read as one run must be of one build: rows of debug and release are 65")
    func mixedBuilds() throws {
        var rows = sampleReport().rows
        rows[1].environment.build = .debug
        #expect(throws: BenchError(.malformedInput, "mixed.csv: its rows mix debug and release builds")) {
            try RunResult(name: "mixed.csv", summaries: rows, samples: nil)
        }
        let run = try RunResult(name: "one.csv", summaries: sampleReport().rows, samples: sampleReport().sampleRows)
        #expect(run.samples == sampleReport().samples && run.name == "one.csv")
        #expect(try RunResult(name: "empty.csv", summaries: [], samples: nil).recordedEnvironment == nil)
        // A samples file with no rows still says the run kept samples; no samples file, that it did not.
        let headerOnly = try RunResult(name: "h.csv", summaries: sampleReport().rows, samples: [])
        #expect(headerOnly.hasSamples && headerOnly.samples.isEmpty)
        #expect(try !RunResult(name: "n.csv", summaries: sampleReport().rows, samples: nil).hasSamples)
        let renamed = sampleReport().named("pair", backend: "b")
        #expect(renamed.name == "pair" && renamed.hasSamples)
        #expect(renamed.summaries.allSatisfy { $0.key.backend == "b" })
        #expect(
            Set(renamed.samples.keys) == Set(sampleReport().samples.keys.map { $0.withBackend("b") })
                && renamed.samples.count == 2)
    }
}

@Suite("Reading reports back")
struct ReportReadingTests {
    /// Writes `text` to a file in a new temporary directory.
    func file(_ text: String, name: String = "report.csv") throws -> String {
        let url = try temporaryDirectory().appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        return url.path
    }

    func validSummary() -> String {
        ReportSchema.encode(sampleReport().rows, columns: ReportSchema.summary)
    }

    @Test("A row of this schema whose commit, run id, timestamp or build is not in its grammar is 65, with its column")
    func recordedFieldGrammars() throws {
        let fields: [(column: String, from: String, to: String)] = [
            ("commit (4)", ",abc1234,", ",origin/other,"),
            ("commit (4)", ",abc1234,", ",--upload-pack=x,"),
            ("run_id (2)", "-abc1234-00000000,", "-abc1234,"),
            ("timestamp (3)", ",2026-11-22T00:00:00.000Z,", ",2026-11-22,"),
            ("build (5)", ",release,", ",fast,"),
        ]
        for (column, from, to) in fields {
            let text = validSummary().replacingOccurrences(of: from, with: to)
            #expect(text != validSummary())
            let path = try file(text)
            #expect {
                try ReportFiles.readSummary(at: path)
            } throws: { error in
                guard let error = error as? BenchError else { return false }
                return error.kind == .malformedInput && error.message.hasPrefix("\(path):2: column \(column): ")
            }
        }
    }

    @Test("An older row's free-text commit reads as unknown; its run id, without a nonce, still reads")
    func olderFreeTextCommit() throws {
        // A schema 2 row as a Bench.main given a branch name wrote it.
        let text = validSummary().replacingOccurrences(of: "\r\n\(ReportSchema.version),", with: "\r\n2,")
            .replacingOccurrences(of: "-abc1234-00000000,", with: "-release/1.0,")
            .replacingOccurrences(of: ",abc1234,", with: ",release/1.0,")
        let rows = try ReportFiles.readSummary(at: try file(text))
        #expect(!rows.isEmpty)
        #expect(rows.allSatisfy { $0.environment.commit == "unknown" && $0.schema == 2 })
        #expect(rows.allSatisfy { $0.environment.runID == "20261122T000000.000Z-release/1.0" })
        // The run id keeps its text, but not a control character, nor a missing timestamp.
        for runID in ["20261122T000000.000Z-a\u{7f}b", "release/1.0"] {
            let bad = validSummary().replacingOccurrences(of: "\r\n\(ReportSchema.version),", with: "\r\n2,")
                .replacingOccurrences(of: "20261122T000000.000Z-abc1234-00000000,", with: runID + ",")
            #expect(throws: BenchError.self) { try ReportFiles.readSummary(at: try file(bad)) }
        }
    }

    @Test("A missing file is 66")
    func missing() {
        #expect(throws: BenchError(.missingInput, "/nonexistent/x.csv: no such file")) {
            try ReportFiles.readSummary(at: "/nonexistent/x.csv")
        }
    }

    @Test("A directory is 66")
    func directory() throws {
        let path = try temporaryDirectory().path
        #expect(throws: BenchError(.missingInput, "\(path): is a directory, not a file")) {
            try ReportFiles.readSummary(at: path)
        }
    }

    @Test("A device or a FIFO is 66, not read forever")
    func notRegular() throws {
        #expect(throws: BenchError(.missingInput, "/dev/zero: is not a regular file")) {
            try ReportFiles.readSummary(at: "/dev/zero")
        }
    }

    @Test("A field with a line break stays one line in the error message")
    func oneLineMessages() throws {
        // The first field of the second line, the schema version, becomes "1⏎x".
        var lines = validSummary().components(separatedBy: "\r\n")
        lines[1] = "\"1\nx\"" + lines[1].drop { $0 != "," }
        let path = try file(lines.joined(separator: "\r\n"))
        #expect(throws: BenchError(.malformedInput, #"\#(path):2: column schema (1): '1\nx' is not a schema version"#))
        {
            try ReportFiles.readSummary(at: path)
        }
        #expect(BenchError(.malformedInput, "a\nb\tc\u{1B}").message == #"a\nb\tc\u{1B}"#)
    }

    @Test("An empty file is 65")
    func empty() throws {
        let path = try file("")
        #expect(throws: BenchError(.malformedInput, "\(path):1: the file is empty; a header row was expected")) {
            try ReportFiles.readSummary(at: path)
        }
    }

    @Test("A missing column is 65 and named")
    func missingColumn() throws {
        let text = validSummary().replacingOccurrences(of: ",ns_median,", with: ",ns_middle,")
        let path = try file(text)
        #expect(throws: BenchError(.malformedInput, "\(path):1: the required column 'ns_median' is missing")) {
            try ReportFiles.readSummary(at: path)
        }
    }

    @Test("A value that is not a number is 65, with its line and column")
    func notANumber() throws {
        var lines = validSummary().components(separatedBy: "\r\n")
        var fields = lines[2].components(separatedBy: ",")
        fields[12] = "fast"
        lines[2] = fields.joined(separator: ",")
        let path = try file(lines.joined(separator: "\r\n"))
        #expect(
            throws: BenchError(
                .malformedInput, "\(path):3: column ns_median (13): 'fast' is not a number of at least 0")
        ) {
            try ReportFiles.readSummary(at: path)
        }
    }

    @Test("Another schema version is 65")
    func otherSchema() throws {
        let text = validSummary().replacingOccurrences(of: "\r\n3,", with: "\r\n4,")
        #expect(text != validSummary())
        let path = try file(text)
        #expect(
            throws: BenchError(
                .malformedInput,
                "\(path):2: column schema (1): schema version 4 is not supported; this bench reads versions 1 to 3")
        ) {
            try ReportFiles.readSummary(at: path)
        }
    }

    @Test("Two rows for one case are 65")
    func duplicateCase() throws {
        let lines = validSummary().components(separatedBy: "\r\n")
        let path = try file((lines + [lines[1]]).filter { !$0.isEmpty }.joined(separator: "\r\n"))
        // The failed case's error holds a line break, so its record takes lines 4 and 5.
        #expect(
            throws: BenchError(
                .malformedInput, "\(path):6: a second row for case challenge/openssl/43; the first is on line 2")
        ) {
            try ReportFiles.readSummary(at: path)
        }
    }

    @Test("Samples alike in every figure are two samples; one sample number twice is 65")
    func duplicateSample() throws {
        let key = CaseKey(backend: "swift", operation: .sha256, size: 64, threads: 1)
        let alike = CaseMeasurement(key: key, iterations: 1000, nanosecondsPerOperation: [100, 100], failure: nil)
        var rows = RunResult(environment: sampleReport().environment, measurements: [alike]).sampleRows
        let path = try file(ReportSchema.encode(rows, columns: ReportSchema.samples))
        #expect(try ReportFiles.readSamples(at: path).map(\.index) == [0, 1])

        rows[1].index = 0
        let twice = try file(ReportSchema.encode(rows, columns: ReportSchema.samples))
        #expect(
            throws: BenchError(
                .malformedInput, "\(twice):3: a second row for sample 0 of case sha256/swift/64; the first is on line 2"
            )
        ) {
            try ReportFiles.readSamples(at: twice)
        }
    }

    @Test("A binary file is 65")
    func binary() throws {
        let url = try temporaryDirectory().appendingPathComponent("binary.csv")
        try Data([0x7F, 0x45, 0x4C, 0x46, 0x02, 0x01, 0x01, 0x00]).write(to: url)
        #expect(throws: BenchError(.malformedInput, "\(url.path):1:8: a NUL byte: this is not a text file")) {
            try ReportFiles.readSummary(at: url.path)
        }
    }

    @Test("The samples file of x.csv is x.samples.csv")
    func samplesPath() {
        #expect(ReportFiles.samplesPath(for: "results/baseline.csv") == "results/baseline.samples.csv")
        #expect(ReportFiles.samplesPath(for: "run") == "run.samples.csv")
    }
}

@Suite("The comparison's table")
struct ComparisonTableTests {
    @Test("Without samples the table says the threshold alone decided")
    func thresholdOnlyNote() throws {
        let target = CaseKey(backend: "openssl", operation: .challenge, size: 43, threads: 1)
        let baseline = SyntheticRun.report().named("baseline")
        let comparison = try Comparison(
            baseline: baseline.withoutSamples,
            current: SyntheticRun.report(scale: [target: 1.10]).named("current"),
            criteria: .init(threshold: 0.05), runToRun: SyntheticRun.runToRun())
        let table = ComparisonFormatter.render(comparison, as: .table)
        #expect(
            table.contains(
                "no samples for \(SyntheticRun.keys.count) case(s): their verdicts use the 5% threshold alone"))
    }
}
