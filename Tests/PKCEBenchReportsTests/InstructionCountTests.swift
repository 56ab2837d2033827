import Foundation
import PKCE
@testable import PKCEBenchCore
@testable import PKCEBenchReports
import PKCEBenchReportsTestSupport
import PKCEBenchTestSupport
import Testing

@Suite("Instruction counts: their rows, their comparison")
struct InstructionCountTests {
    /// The report of a run of counted cases: `counts` instructions per operation by case.
    static func countedReport(_ name: String, _ counts: [CaseKey: Double]) -> RunResult {
        RunResult(
            environment: sampleReport(runID: name).environment,
            measurements: counts.map { .counted($0.key, iterations: 100, instructionsPerOperation: $0.value) })
    }

    /// A run of counted cases: `counts` instructions per operation by case.
    static func countedRun(_ name: String, _ counts: [CaseKey: Double]) throws -> RunResult {
        let report = countedReport(name, counts)
        return try RunResult(name: name, summaries: report.rows, samples: report.sampleRows)
    }

    static let keys = ["openssl", "sodium", "swift", "crypto"].map {
        CaseKey(backend: $0, operation: .sha256, size: 16384, threads: 1)
    }

    @Test("A counted case's row has the count and metric 'instructions', its time fields empty, and reads back")
    func rows() throws {
        let run = Self.countedReport("20261122T000000.000Z-abc1234-00000000", [Self.keys[0]: 1234.5])
        let row = try #require(run.rows.first)
        #expect(
            row.summary.metric == .instructions && row.summary.instructionsPerOperation == 1234.5
                && row.summary.iterations == 100)
        #expect(
            row.isOK && row.median == nil && row.operationsPerSecond == nil && row.summary.samples == 0)
        let text = ReportSchema.encode(run.rows, columns: ReportSchema.summary)
        let back = try ReportFiles.summaries(from: Array(text.utf8), path: "counted.csv")
        #expect(back == run.rows)
        let table = try CSV.parse(Array(text.utf8))
        let record = try #require(table.records.first).fields
        let field = { (name: String) in record[table.header.firstIndex(of: name)!] }
        #expect(field("metric") == "instructions" && field("instructions_per_op") == "1234.500")
        #expect(field("ns_median").isEmpty && field("ops_per_sec").isEmpty)
    }

    @Test("A report from before the metric column reads as timed; an unknown metric is 65")
    func oldAndBadFiles() throws {
        let text = ReportSchema.encode(sampleReport().rows, columns: ReportSchema.summary)
        let table = try CSV.parse(Array(text.utf8))
        let kept = table.header.indices.filter { !["metric", "instructions_per_op"].contains(table.header[$0]) }
        let old = CSV.encode(
            header: kept.map { table.header[$0] }, records: table.records.map { r in kept.map { r.fields[$0] } })
        #expect(
            try ReportFiles.summaries(from: Array(old.utf8), path: "old.csv").allSatisfy { $0.summary.metric == .time })

        let bad = text.replacingOccurrences(of: ",time,", with: ",cycles,")
        #expect(bad != text)
        #expect(throws: BenchError.self) { try ReportFiles.summaries(from: Array(bad.utf8), path: "bad.csv") }
    }

    @Test("Another kernel does not warn for counts, which are compared across hosts; another OpenSSL does")
    func kernelDoesNotWarn() throws {
        let counts = Dictionary(uniqueKeysWithValues: Self.keys.map { ($0, 100_000.0) })
        let baseline = try Self.countedRun("base", counts)
        func current(kernel: String, openssl: String) throws -> RunResult {
            var environment = sampleReport(runID: "20261122T000009.000Z-abc1234-00000009").environment
            environment.kernel = kernel
            environment.libraries["openssl"] = openssl
            let report = RunResult(
                environment: environment,
                measurements: counts.map { .counted($0.key, iterations: 100, instructionsPerOperation: $0.value) })
            return try RunResult(name: "now", summaries: report.rows, samples: nil)
        }
        let openssl = try #require(baseline.recordedEnvironment?.libraries["openssl"])
        let otherHost = try Comparison(
            baseline: baseline, current: current(kernel: "6.18.44", openssl: openssl), criteria: .init(threshold: 0.05))
        #expect(otherHost.environmentDifferences.isEmpty && otherHost.warnings.isEmpty)
        let otherLibrary = try Comparison(
            baseline: baseline, current: current(kernel: "6.18.44", openssl: "OpenSSL 3.5.0"),
            criteria: .init(threshold: 0.05))
        #expect(otherLibrary.environmentDifferences == ["openssl library '\(openssl)' → 'OpenSSL 3.5.0'"])
    }

    @Test("Counts compare exactly: at the threshold or beyond is a verdict, below it unchanged, never inconclusive")
    func exactComparison() throws {
        let baseline = try Self.countedRun("base", Dictionary(uniqueKeysWithValues: Self.keys.map { ($0, 100_000.0) }))
        let changes = [0.002, 0.0005, -0.003, 0]
        let current = try Self.countedRun(
            "now", Dictionary(uniqueKeysWithValues: zip(Self.keys, changes.map { 100_000 * (1 + $0) })))
        let comparison = try Comparison(
            baseline: baseline, current: current, criteria: ComparisonCriteria(threshold: 0.001))
        #expect(comparison.metric == .instructions)
        let verdicts = Dictionary(uniqueKeysWithValues: comparison.cases.map { ($0.key.backend, $0.verdict) })
        #expect(verdicts == ["openssl": .regressed, "sodium": .unchanged, "swift": .improved, "crypto": .unchanged])
        #expect(comparison.cases.allSatisfy { $0.method == .instructions && $0.pValue == nil })
        #expect(comparison.outcome == .regression)
        let csv = ComparisonFormatter.render(comparison, as: .csv)
        #expect(csv.contains(",regressed,instructions,100000.000,100200.000\n"))
        #expect(!csv.utf8.contains(UInt8(ascii: "\r")))
        #expect(ComparisonFormatter.render(comparison, as: .table).contains("(threshold 0.1%, instruction counts)"))
        #expect(ComparisonCriteria.defaultThresholdPercent(of: .instructions, pairing: .independent) == 0.1)
    }

    @Test("Timings and instruction counts are never compared with each other (65)")
    func mixedMetrics() throws {
        let counted = try Self.countedRun("counted.csv", [Self.keys[0]: 100])
        let timed = try RunResult(name: "timed.csv", summaries: sampleReport().rows, samples: nil)
        #expect(
            throws: BenchError(
                .malformedInput,
                "cannot compare timed.csv (time) with counted.csv (instructions): "
                    + "instruction counts and timings are different measures")
        ) {
            try Comparison(baseline: timed, current: counted, criteria: .init(threshold: 0.05))
        }
        let mixed = try RunResult(
            name: "mixed.csv",
            summaries: Self.countedReport("counted.csv", [Self.keys[0]: 100]).rows + sampleReport().rows,
            samples: nil)
        #expect(throws: BenchError(.malformedInput, "mixed.csv: its rows mix timings and instruction counts")) {
            try mixed.metric()
        }
    }

    @Test("Callgrind's profile totals are read in dump order")
    func profileTotals() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        for (number, total) in [(1, 500), (2, 900), (10, 7), (3, 1300)] {
            try "version: 1\ncmd: bench\nevents: Ir\nsummary: \(total)\ntotals: \(total)\n".write(
                to: directory.appendingPathComponent("callgrind.out.\(number)"), atomically: true, encoding: .utf8)
        }
        try "totals: 0\n".write(
            to: directory.appendingPathComponent("callgrind.out"), atomically: true, encoding: .utf8)
        #expect(try InstructionCounter.profileTotals(in: directory) == [500, 900, 1300, 7])
    }

    @Test("A worker's account of its counted calls is checked before it meets the profiles: 70, never a trap")
    func accountChecked() throws {
        let cases = [
            BenchmarkCase(backend: SwiftBackend(), operation: .sha256, size: 64),
            BenchmarkCase(backend: SwiftBackend(), operation: .random, size: 32),
        ]
        func account(_ calls: [(calls: Int, iterations: Int, failure: String?)]) -> CountedCalls {
            CountedCalls(
                cpuFlags: "", libraries: nil,
                cases: zip(cases, calls).map {
                    CountedCalls.Case(key: $0.key, iterations: $1.iterations, calls: $1.calls, failure: $1.failure)
                })
        }
        // Two calls of 10 and 20 iterations, then a case that failed after one call.
        let measured = try InstructionCounter.measurements(
            of: cases, from: account([(2, 10, nil), (1, 10, "broken")]), profiles: [100, 150, 40])
        #expect(
            measured.map(\.outcome) == [
                .counted(iterations: 10, instructionsPerOperation: 5), .failed(reason: "broken"),
            ])

        let malformed: [[(calls: Int, iterations: Int, failure: String?)]] = [
            [(-1, 10, nil), (2, 10, nil)],  // fewer than none
            [(1, 10, nil), (1, 10, nil)],  // the right total, split wrongly
            [(2, 0, nil), (2, 10, nil)],  // no iterations to divide by
            [(Int.max, 10, "x"), (Int.max, 10, "x")],  // a total that overflows
        ]
        for calls in malformed {
            let error = try #require(throws: BenchError.self) {
                try InstructionCounter.measurements(of: cases, from: account(calls), profiles: [1, 2, 3, 4])
            }
            #expect(error.kind == .workerFailed)
        }
    }

    @Test("The inputs of the cases are the same in every process, and valid verifiers")
    func fixedInputs() throws {
        #expect(try fixedVerifier(3, length: 43).value == fixedVerifier(3, length: 43).value)
        #expect(try fixedVerifier(3, length: 43).value != fixedVerifier(4, length: 43).value)
        #expect(try fixedVerifier(0, length: 128).value.utf8.count == 128)
    }

    @Test("An AVX-512 build cannot be counted (64), whichever side of bench ab it is; other targets can")
    func avx512Refused() throws {
        for build in ["this build", "../main/.build/release/bench"] {
            let error = #expect(throws: BenchError.self) {
                try InstructionCounter.requireCountable(targetCPU: "x86-64-v4", of: build)
            }
            #expect(error?.kind == .usage)
            #expect(
                error?.message.hasPrefix("--metric instructions cannot count \(build): it was compiled for x86-64-v4")
                    == true)
        }
        for target in ["x86-64", "x86-64-v2", "x86-64-v3", "arm64"] {
            try InstructionCounter.requireCountable(targetCPU: target, of: "this build")
        }
    }

    @Test("A failed case of a counted run is a counted run's row: compared as failed, never as mixed metrics (65)")
    func failedCountedCase() throws {
        let environment = sampleReport(runID: "20261122T000009.000Z-abc1234-00000009").environment
        let report = RunResult(
            environment: environment,
            measurements: [
                .counted(Self.keys[0], iterations: 100, instructionsPerOperation: 1000),
                .failed(Self.keys[1], reason: "its count did not grow", metric: .instructions),
            ])
        #expect(report.rows.map(\.summary.metric) == [.instructions, .instructions])
        let current = try RunResult(name: "now", summaries: report.rows, samples: report.sampleRows)
        let baseline = try Self.countedRun("base", [Self.keys[0]: 1000, Self.keys[1]: 2000])
        let comparison = try Comparison(baseline: baseline, current: current, criteria: .init(threshold: 0.05))
        #expect(comparison.metric == .instructions)
        #expect(comparison.cases.map(\.verdict) == [.unchanged, .failedInCurrent])
        #expect(comparison.outcome == .regression)
        // Read back from its file, the failed row still says what its run measured.
        let back = try ReportFiles.summaries(
            from: Array(ReportSchema.encode(report.rows, columns: ReportSchema.summary).utf8), path: "x")
        #expect(back.map(\.summary.metric) == [.instructions, .instructions])
    }

    @Test("A counted run's chart draws each case's instructions per operation, and marks only failed cases 'failed'")
    func countedChart() throws {
        let counts = Dictionary(uniqueKeysWithValues: Self.keys.enumerated().map { ($1, 1000.0 * Double($0 + 1)) })
        let svg = ThroughputChart.svg(Self.countedReport("20261122T000000.000Z-abc1234-00000000", counts))
        let bars = try ChartTests.elements("rect", class: "bar", in: svg)
        #expect(bars.count == Self.keys.count)
        #expect(bars.allSatisfy { ChartTests.attribute("data-metric", of: $0) == "instructions" })
        #expect(
            bars.allSatisfy { ($0.elements(forName: "title").first?.stringValue ?? "").contains("instructions/op") })
        #expect(!svg.contains(">failed</text>") && !svg.contains("ops/s"))
        #expect(svg.contains("instructions per operation by backend"))
    }

    @Test("A run with a case both timed and counted renders in every format; its files are refused, as 65")
    func caseBothTimedAndCounted() throws {
        let both = CaseKey(backend: "swift", operation: .sha256, size: 64, threads: 1)
        let run = RunResult(
            environment: sampleReport().environment,
            measurements: sampleMeasurements() + [.counted(both, iterations: 100, instructionsPerOperation: 1234.5)])
        #expect(run.summaries.filter { $0.key == both }.count == 2)

        for format in [OutputFormat.table, .markdown] {
            let text = SummaryFormatter.render(run, as: format)
            #expect(text.contains("median ns/op") && text.contains("instructions/op") && text.contains("1234.5"))
            let timedTable = try #require(text.components(separatedBy: "instructions/op").first)
            #expect(timedTable.contains("100") && !timedTable.contains("1234.5"))
        }
        let csv = try CSV.parse(Array(SummaryFormatter.render(run, as: .csv).utf8))
        #expect(csv.records.count == run.summaries.count)

        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(SummaryFormatter.render(run, as: .json).utf8))
                as? [String: Any])
        let results = try #require(json["results"] as? [[String: Any]])
        #expect(Set(results.compactMap { $0["metric"] as? String }) == ["time", "instructions"])
        #expect(results.count == run.summaries.count)

        let page = HTMLReport.page(run)
        let rows = try HTMLReportTests.nodes("//section[@id='results']//tr[@data-case='\(both)']", in: page)
        #expect(rows.count == 2)
        #expect(try HTMLReportTests.nodes("//section[@id='results']//table", in: page).count == 2)
        for metric in ["time", "instructions"] {
            let charts = try HTMLReportTests.nodes("//section[@id='charts']/div[@data-metric='\(metric)']", in: page)
            #expect(charts.count == 1)
            let bars = try HTMLReportTests.nodes(".//*[@data-case='\(both)']", in: charts.first?.xmlString ?? "<x/>")
            #expect(bars.count == 1, "the \(metric) charts draw \(both) once")
        }

        let bars = try ChartTests.elements("rect", class: "bar", in: ThroughputChart.svg(run))
        #expect(bars.count == 3)
        #expect(bars.filter { ChartTests.attribute("data-metric", of: $0) == "instructions" }.count == 1)

        let bencher = try #require(
            try JSONSerialization.jsonObject(with: Data(Exporter.render([run], as: .bencher).utf8))
                as? [String: [String: Any]])
        let measures = try #require(bencher[both.description])
        #expect(Set(measures.keys).isSuperset(of: ["latency", "instructions"]))
        let entries = try #require(
            try JSONSerialization.jsonObject(
                with: Data(Exporter.render([run], as: .githubActionBenchmark).utf8)) as? [[String: Any]])
        #expect(Set(entries.compactMap { $0["name"] as? String }).count == entries.count)

        let directory = try temporaryDirectory()
        let store = ResultsDirectory(path: directory.path)
        try store.prepare()
        let before = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        let error = #expect(throws: BenchError.self) { try store.save(run) }
        #expect(error?.kind == .malformedInput)
        #expect(error?.message.contains("\(both) is both timed and counted") == true)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == before)
    }
}
