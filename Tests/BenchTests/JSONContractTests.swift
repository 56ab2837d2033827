import Foundation
import PKCEBenchCore
import PKCEBenchReports
import PKCEBenchReportsTestSupport
import PKCEBenchTestSupport
import Testing

/// Every `--format json` that `bench` prints, checked against `schema/report.schema.json` by
/// `schema/validate` (Python's jsonschema), and its figures against the CSV they came from.
@Suite("JSON output: one documented object")
struct JSONContractTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// Whether `schema/validate` can run here: it needs Python's jsonschema 4 or later.
    static let validatorWorks =
        (try? runTool(
            URL(fileURLWithPath: "/usr/bin/env"), ["python3", "-c", "from jsonschema import Draft202012Validator"]
        ).status) == 0

    /// What `schema/validate` finds wrong with `json`: one line per problem, none when it is valid.
    static func problems(_ json: String) throws -> [String] {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let document = directory.appendingPathComponent("document.json")
        try json.write(to: document, atomically: true, encoding: .utf8)
        let (status, text) = try runTool(root.appendingPathComponent("schema/validate"), [document.path])
        let lines = text.split(separator: "\n").map(String.init)
        #expect((status == 0) == lines.isEmpty, "schema/validate exited \(status)")
        return lines
    }

    static func object(_ json: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
    }

    /// A run of every case, the first 20% slower and the fourth failed.
    static let slowerWithFailure = SyntheticRun.report(
        scale: [SyntheticRun.keys[0]: 1.2], failed: [SyntheticRun.keys[3]: "wrong digest"])

    @Test(
        "Every command's JSON is valid against the schema",
        .enabled(if: validatorWorks, "Python's jsonschema is not installed: apt-get install -y python3-jsonschema"))
    func everyCommand() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // Six earlier runs of the build beside the files: its spread between runs is measured.
        try SyntheticRun.writeHistory(in: directory)
        let base = try CompareCommandTests.write(SyntheticRun.report(), "base", in: directory)
        let slower = try CompareCommandTests.write(Self.slowerWithFailure, "slower", in: directory)
        // A history of 16 runs in which the first case steps 6% slower at the eleventh.
        let stepped = directory.appendingPathComponent("stepped")
        try FileManager.default.createDirectory(at: stepped, withIntermediateDirectories: true)
        try SyntheticRun.writeHistory(
            of: SyntheticRun.series(runs: 16) { $0 >= 10 ? [SyntheticRun.keys[0]: 1.06] : [:] }, in: stepped)
        let counted = Self.root.appendingPathComponent("results/baseline-instructions.csv").path
        let me = productsDirectory.appendingPathComponent("bench").path
        let one = ["--filter", "^sha256/openssl/64$", "--quick"]
        var commands: [(arguments: [String], status: Set<Int32>)] = [
            (["--backend", "swift", "--operation", "random", "--quick", "--output", "out"], [0]),
            (
                [
                    "--backend", "swift", "--operation", "random", "--quick", "--output", "out", "--baseline",
                    "out/latest.csv",
                ], [0, 1, 2]
            ),
            (["compare", base, slower], [1]),
            (["compare", base, base], [0]),
            (["compare", base, slower, "--threshold", "0"], [1]),
            (["baseline", "--backend", "swift", "--operation", "random", "--quick", "--output", "saved"], [0]),
            (["compare", counted, counted], [0]),
            (["history", "--output", "out"], [0]),
            (["history", "--changes", "--output", "out"], [0]),
            (["history", "--changes", "--output", "stepped"], [1]),
            (["ab", me, "--output", "ab", "--threshold", "50"] + one, [0, 2]),
            (
                ["pair", "sodium", "openssl", "--operation", "sha256", "--size", "64", "--quick", "--output", "pair"],
                [0, 1, 2]
            ),
        ]
        // A sanitizer's runtime cannot run under Valgrind.
        if MetricCommandTests.valgrind != nil && !processIsSanitized {
            commands.append(
                (["--metric", "instructions", "--output", "counted", "--filter", "^sha256/openssl/64$"], [0]))
        }
        for (arguments, status) in commands {
            let result = try bench(arguments + ["--format", "json"], in: directory)
            #expect(status.contains(result.status), "\(arguments): \(result.stderr)")
            #expect(try Self.problems(result.stdout) == [], "\(arguments)")
            guard result.status < 64 else { continue }
            let document = try Self.object(result.stdout)
            #expect(document["schema"] as? String == JSONReport.schema)
            #expect(
                (document["comparison"] != nil)
                    == (arguments.contains("--baseline") || ["compare", "ab", "pair"].contains(arguments[0])),
                "\(arguments)")
            // Where the two sides' code lay is said only of sides timed side by side.
            if let comparison = document["comparison"] as? [String: Any] {
                let layout: String? = ["ab": "as-linked", "pair": "one-build"][arguments[0]]
                #expect(comparison["layout"] as? String == layout, "\(arguments)")
            }
        }
    }

    @Test(
        "The validator rejects what the schema does not describe",
        .enabled(if: validatorWorks, "Python's jsonschema is not installed: apt-get install -y python3-jsonschema"))
    func validatorRejects() throws {
        let valid = JSONReport.run(SyntheticRun.report())
        #expect(try Self.problems(valid) == [])
        let broken = [
            valid.replacingOccurrences(of: "\"cv_pct\"", with: "\"cv\""),
            valid.replacingOccurrences(of: "\"kind\" : \"run\"", with: "\"kind\" : \"runs\""),
            valid.replacingOccurrences(of: "\"status\" : \"ok\"", with: "\"status\" : \"\""),
            valid.replacingOccurrences(of: "\"cores\" : 2", with: "\"cores\" : \"2\""),
        ]
        for document in broken {
            #expect(document != valid)
            #expect(try !Self.problems(document).isEmpty)
        }
    }

    @Test("A run's JSON holds the CSV's figures, null for what is missing, percentages as percent")
    func figuresAndNulls() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // Six earlier runs of the build beside the files: its spread between runs is measured.
        try SyntheticRun.writeHistory(in: directory)
        let base = try CompareCommandTests.write(SyntheticRun.report(), "base", in: directory)
        let slower = try CompareCommandTests.write(Self.slowerWithFailure, "slower", in: directory)
        let result = try bench(["compare", base, slower, "--format", "json", "--threshold", "3"])
        #expect(result.status == 1)
        let document = try Self.object(result.stdout)

        let rows = try ReportFiles.readSummary(at: slower)
        let results = try #require(document["results"] as? [[String: Any]])
        #expect(results.count == rows.count)
        for (row, result) in zip(rows, results) {
            #expect(result["name"] as? String == row.key.description)
            #expect(result["ns_median"] as? Double == row.median)
            #expect(result["ns_p90"] as? Double == row.p90)
            if row.isOK {
                #expect(result["error"] is NSNull)
                let cv = try #require(result["cv_pct"] as? Double)
                #expect(abs(cv - (row.coefficientOfVariation ?? .nan) * 100) < 1e-9)
            } else {
                #expect(result["error"] as? String == "wrong digest")
                #expect(result["ns_median"] is NSNull && result["cv_pct"] is NSNull)
            }
        }
        let environment = try #require(document["environment"] as? [String: Any])
        #expect(environment["cpu_flags"] as? [String] == ["sha_ni", "avx2"])
        #expect(environment["run_id"] as? String == rows[0].environment.runID)
        // Every backend's library, gathered from the rows that each record their own.
        #expect(environment["libraries"] as? [String: String] == SummaryRow.environment(of: rows)?.libraries)
        #expect((environment["libraries"] as? [String: String])?.count ?? 0 >= 2)

        let comparison = try #require(document["comparison"] as? [String: Any])
        #expect(comparison["threshold_pct"] as? Double == 3)
        #expect(comparison["regression"] as? Bool == true)
        let verdicts = try #require(comparison["verdicts"] as? [String: Int])
        #expect(verdicts["regressed"] == 1 && verdicts["failed-in-current"] == 1)
        let cases = try #require(comparison["cases"] as? [[String: Any]])
        let regressed = try #require(cases.first { $0["verdict"] as? String == "regressed" })
        #expect(regressed["name"] as? String == SyntheticRun.keys[0].description)
        let change = try #require(regressed["change_pct"] as? Double)
        #expect((15...25).contains(change))
        let baselineRun = try #require(comparison["baseline"] as? [String: Any])
        #expect(baselineRun["name"] as? String == base)
    }
}
