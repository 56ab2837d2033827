import Foundation
import PKCEBenchTestSupport
import Testing

@testable import PKCEBenchCore

/// `bench history --changes` on real runs, and Apache Otava on the same series as the oracle.
///
/// `Reference/history-runs.csv` holds each run's fastest sample per case (`extract_history.py`):
/// `one-build`, the 32 runs of one build in `runs-apart.csv` (24 quiet, then 8 with the second
/// core loaded in bursts); `base` and `slow`, 24 runs each of two builds taking turns, the second
/// with one more SHA-256 block per message (AMD EPYC, 2 cores, 2026-11-27). The article "Tracking
/// regressions over time" gives the simulation built on them.
@Suite("Change points on real runs, against Apache Otava")
struct OtavaAgreementTests {
    static let histories: [String: [[CaseKey: Double]]] = {
        guard
            let url = Bundle.module.url(forResource: "history-runs", withExtension: "csv", subdirectory: "Reference"),
            let text = try? String(contentsOf: url, encoding: .utf8)
        else { return [:] }
        var histories: [String: [Int: [CaseKey: Double]]] = [:]
        for line in text.split(whereSeparator: \.isNewline).dropFirst() {
            let fields = line.split(separator: ",").map(String.init)
            let name = fields[2].split(separator: "/").map(String.init)
            guard fields.count == 4, name.count == 3, let run = Int(fields[1]),
                let operation = BenchmarkOperation(rawValue: name[0]), let size = Int(name[2]),
                let fastest = Double(fields[3])
            else { continue }
            let key = CaseKey(backend: name[1], operation: operation, size: size, threads: 1)
            histories[fields[0], default: [:]][run, default: [:]][key] = fastest
        }
        return histories.mapValues { runs in runs.keys.sorted().map { runs[$0]! } }
    }()

    /// `figures` as a history of runs a minute apart, each of its own commit.
    static func history(_ figures: [[CaseKey: Double]]) -> [RunResult] {
        figures.enumerated().map { index, run in
            let commit = String(format: "c%06d", index)
            let environment = RunEnvironment(
                runID: "run-\(index)",
                timestamp: String(format: "2026-11-27T%02d:%02d:00.000Z", index / 60, index % 60),
                commit: RecordedCommit(recorded: commit), build: .release, targetCPU: "x86-64", cpu: "AMD EPYC",
                cpuFlags: "sha_ni avx2",
                cores: 2, kernel: "6.18.44-fc-v857", swift: "6.3.1", libraries: [:])
            let summaries = run.keys.sorted().map { CaseSummary.timed($0, median: run[$0]!, fastest: run[$0]!) }
            return RunResult(environment: environment, summaries: summaries)
        }
    }

    static let analysis = ChangePointAnalysis.standard(threshold: 0.02)

    /// The two builds' runs, the slower build's after the other's.
    static var stepped: [RunResult] {
        history((histories["base"] ?? []) + (histories["slow"] ?? []))
    }

    @Test("The real flat history has no change point; each step of 3% or more is found where it is")
    func realHistories() throws {
        let flat = Self.analysis.series(of: Self.history(Self.histories["one-build"] ?? []), metric: .time)
        #expect(flat.count == 64)
        #expect(flat.allSatisfy { $0.points.count == 32 && $0.changePoints.isEmpty })

        let base = try #require(Self.histories["base"]), slow = try #require(Self.histories["slow"])
        let series = Self.analysis.series(of: Self.stepped, metric: .time)
        var stepped = 0
        for series in series {
            let before = Statistics(base.compactMap { $0[series.key] })!.median
            let step = Statistics(slow.compactMap { $0[series.key] })!.median / before - 1
            let near = series.changePoints.filter { abs($0.index - base.count) <= 2 }
            if abs(step) >= 0.03 {
                stepped += 1
                #expect(near.count == 1 && near.first?.isRegression == (step > 0), "\(series.key): \(step)")
            }
            if abs(step) < 0.01 {
                #expect(series.changePoints.isEmpty, "\(series.key): \(step)")
            }
        }
        #expect(stepped >= 10)
    }

    /// Whether Apache Otava can be imported here.
    static let otavaWorks: Bool = {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", "import otava.analysis"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }()

    /// Otava's change points in each of `series`, given the levels the analysis compares (as ratios,
    /// whose relative change its magnitude filter reads), by series name.
    static func otava(_ series: [CaseSeries], threshold: Double, pValue: Double) throws -> [String: [Int]] {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = directory.appendingPathComponent("series.csv")
        var text = "series,index,value\n"
        for series in series {
            for (index, point) in series.points.enumerated() {
                text += "\(series.key),\(index),\(exp(point.level))\n"
            }
        }
        try text.write(to: input, atomically: true, encoding: .utf8)
        let script = try #require(
            Bundle.module.url(forResource: "otava_change_points", withExtension: "py", subdirectory: "Reference"))
        let process = Process()
        let output = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script.path, String(threshold), String(pValue)]
        process.standardInput = try FileHandle(forReadingFrom: input)
        process.standardOutput = output
        try process.run()
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        var found: [String: [Int]] = [:]
        for line in printed.split(separator: "\n").dropFirst() {
            let fields = line.split(separator: ",")
            if fields.count == 2, let index = Int(fields[1]) { found[String(fields[0]), default: []].append(index) }
        }
        return found
    }

    @Test(
        "Apache Otava finds the same change points within 2 runs, where both find one",
        .enabled(if: otavaWorks, "Apache Otava is not installed: python3 -m pip install apache-otava"))
    func otavaAgrees() throws {
        for history in [Self.history(Self.histories["one-build"] ?? []), Self.stepped] {
            let series = Self.analysis.series(of: history, metric: .time)
            let theirs = try Self.otava(series, threshold: 0.02, pValue: 0.05)
            var both = 0
            for series in series {
                let ours = series.changePoints.map(\.index)
                let otava = theirs[series.key.description] ?? []
                guard !ours.isEmpty, !otava.isEmpty else { continue }
                both += 1
                for index in ours {
                    #expect(otava.contains { abs($0 - index) <= 2 }, "\(series.key): ours \(ours), Otava's \(otava)")
                }
                for index in otava {
                    #expect(ours.contains { abs($0 - index) <= 2 }, "\(series.key): ours \(ours), Otava's \(otava)")
                }
            }
            if history.count == 32 {
                // The flat history of one build: neither finds a step.
                #expect(theirs.isEmpty && series.allSatisfy(\.changePoints.isEmpty), "Otava's: \(theirs)")
            } else {
                // Where the history has steps, both find them.
                #expect(both >= 10)
            }
        }
    }
}
