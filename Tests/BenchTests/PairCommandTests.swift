import Foundation
import PKCEBenchCore
import PKCEBenchReports
import PKCEBenchTestSupport
import Testing

@Suite("bench pair")
struct PairCommandTests {
    @Test("Two backends side by side: each side's report names its own backend, the comparison both")
    func twoBackends() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("out")
        let result = try bench(
            // A filter that names the measured backend selects the other's counterparts too.
            ["pair", "sodium", "swift", "--operation", "sha256", "--filter", "swift/(43|64)$", "--quick"]
                + ["--output", output.path, "--format", "csv"])
        // Which backend is faster is the measurement's to say, not this test's: any verdict.
        #expect([0, 1, 2].contains(result.status), "\(result.stderr)")
        #expect(result.stderr.contains("measuring both backends on CPU") || result.stderr.contains("cannot pin"))
        let rows = result.stdout.split(separator: "\n").dropFirst().map { $0.split(separator: ",").map(String.init) }
        #expect(
            rows.map { $0.prefix(3).joined(separator: ",") } == [
                "swift-vs-sodium,sha256,43", "swift-vs-sodium,sha256,64",
            ])
        #expect(rows.allSatisfy { $0.contains("pairs") })
        #expect(
            try listing(output) == [
                "ab-baseline.csv", "ab-baseline.samples.csv", "ab-comparison.csv", "ab-current.csv",
                "ab-current.samples.csv", "ab.html",
            ])
        let baseline = try ReportFiles.readSummary(at: output.appendingPathComponent("ab-baseline.csv").path)
        let current = try ReportFiles.readSummary(at: output.appendingPathComponent("ab-current.csv").path)
        #expect(baseline.map(\.key.description) == ["sha256/sodium/43", "sha256/sodium/64"])
        #expect(current.map(\.key.description) == ["sha256/swift/43", "sha256/swift/64"])
        // The comparison's medians are the two backends' own.
        for (row, (old, new)) in zip(rows, zip(baseline, current)) {
            #expect(Double(row[4]).map { abs($0 - old.median!) / old.median! < 1e-3 } == true)
            #expect(Double(row[5]).map { abs($0 - new.median!) / new.median! < 1e-3 } == true)
        }
        // The samples come in turns: as many of each backend, in every pair of processes.
        let baselineSamples = try ReportFiles.readSamples(
            at: output.appendingPathComponent("ab-baseline.samples.csv").path)
        let currentSamples = try ReportFiles.readSamples(
            at: output.appendingPathComponent("ab-current.samples.csv").path)
        #expect(
            Set(baselineSamples.map(\.key.backend)) == ["sodium"] && Set(currentSamples.map(\.key.backend)) == ["swift"]
        )
        #expect(baselineSamples.count == currentSamples.count && currentSamples.count == 2 * 40)
        #expect(Set(currentSamples.map(\.sample.process)) == Set(0..<4))
    }

    @Test(
        "A bad pair: one line, exit 64, nothing written",
        arguments: [
            (["pair", "swift", "swift"], "bench: bench pair needs two different backends, not swift twice"),
            (
                ["pair", "sodium", "boringssl"],
                "bench: unknown backend 'boringssl'; valid backends: openssl, sodium, swift, crypto"
            ),
            (
                ["pair", "sodium", "swift", "--backend", "openssl"],
                "bench: bench pair takes its two backends as arguments, not --backend"
            ),
        ])
    func badPair(arguments: [String], message: String) throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try bench(arguments + ["--quick", "--output", "out"], in: directory)
        #expect(result.status == 64)
        #expect(result.stderrLines == [message + " (see 'bench --help')"])
        #expect(result.stdout.isEmpty)
        #expect(try listing(directory).isEmpty)
    }
}
