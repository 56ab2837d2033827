import Foundation
import PKCEBenchTestSupport
import Testing

@testable import PKCEBenchCore

@Suite("Change points in a history")
struct ChangePointTests {
    /// `count` values of Gaussian noise with standard deviation `spread` about 0, from `seed`.
    static func noise(_ count: Int, spread: Double = 0.01, seed: UInt64) -> [Double] {
        var generator = SplitMix64(seed: seed)
        return (0..<count).map { _ in spread * generator.nextGaussian() }
    }

    static let detector = EDivisive(significance: 0.01, permutations: 199, minimumSegment: 3)

    @Test("E-divisive finds a step where it is, and each step of two", arguments: [1, 2, 3] as [UInt64])
    func steps(seed: UInt64) {
        let one = Self.noise(30, seed: seed).enumerated().map { $0.offset >= 15 ? $0.element + 0.05 : $0.element }
        let found = Self.detector.splits(of: one)
        // Seed 1's noise also shifts by 1.5 standard deviations at 22: 1% of series of noise split.
        #expect(found.map(\.index).contains(15) && found.count <= (seed == 1 ? 2 : 1))
        #expect(found.allSatisfy { $0.pValue <= 0.01 })
        let two = Self.noise(30, seed: seed).enumerated().map {
            (10..<20).contains($0.offset) ? $0.element + 0.05 : $0.element
        }
        #expect(Self.detector.splits(of: two).map(\.index) == [10, 20])
    }

    @Test(
        "E-divisive splits series of noise about as often as its significance says",
        arguments: [(0.01, 15), (0.01, 30), (0.05, 15), (0.05, 30)] as [(Double, Int)])
    func falseSplits(significance: Double, length: Int) {
        let detector = EDivisive(significance: significance, permutations: 199, minimumSegment: 3)
        let split = (0..<300).filter { seed in
            !detector.splits(of: Self.noise(length, seed: 10_000 + UInt64(seed))).isEmpty
        }
        // Twice the nominal rate at most: 6 or 30 of 300.
        #expect(Double(split.count) <= 2 * significance * 300, "\(split.count) of 300")
    }

    @Test("E-divisive finds nothing in noise, and the same answer every time", arguments: [1, 2, 3] as [UInt64])
    func noiseOnly(seed: UInt64) {
        let values = Self.noise(30, seed: 100 + seed)
        #expect(Self.detector.splits(of: values).isEmpty)
        let stepped = values.enumerated().map { $0.offset >= 12 ? $0.element + 0.03 : $0.element }
        #expect(Self.detector.splits(of: stepped) == Self.detector.splits(of: stepped))
    }

    @Test("A split falls only where one commit's runs end")
    func onlyBetweenCommits() {
        let values = Self.noise(30, seed: 7).enumerated().map { $0.offset >= 15 ? $0.element + 0.05 : $0.element }
        let found = Self.detector.splits(of: values, allowedAt: [12, 18])
        #expect(found.count == 1)
        #expect([12, 18].contains(found.first?.index ?? 0))
        #expect(Self.detector.splits(of: values, allowedAt: []).isEmpty)
    }

    static let case1024 = CaseKey(backend: "swift", operation: .sha256, size: 1024, threads: 1)
    static let analysis = ChangePointAnalysis.standard(threshold: 0.02)

    @Test("A slower case is found at its commit, and the whole host slowing down is not a step")
    func stepInOneCase() throws {
        let everyCase = Dictionary(uniqueKeysWithValues: SyntheticRun.keys.map { ($0, 1.10) })
        let runs = SyntheticRun.series(runs: 20) { index in
            // Runs 6 to 9 on a busier host: every case 10% slower. From run 12 on, one case 6% slower.
            var scale = (6..<10).contains(index) ? everyCase : [:]
            if index >= 12 { scale[Self.case1024] = (scale[Self.case1024] ?? 1) * 1.06 }
            return scale
        }
        let series = Self.analysis.series(of: runs, metric: .time)
        #expect(series.count == SyntheticRun.keys.count)
        let stepped = try #require(series.first { $0.key == Self.case1024 })
        let step = try #require(stepped.changePoints.first)
        #expect(stepped.changePoints.count == 1)
        #expect(step.index == 12 && step.isRegression)
        #expect(step.lastBefore.commit.description == "c000011" && step.firstAfter.commit.description == "c000012")
        #expect(step.lastBefore.runID == runs[11].environment.runID)
        #expect(abs(step.estimate.change - 0.06) < 0.01)
        #expect((step.pValue ?? 1) <= 0.05 && step.environmentChanges.isEmpty && !step.isEnvironmental)
        #expect(series.filter { !$0.changePoints.isEmpty }.map(\.key) == [Self.case1024])
        // The canaries' host factor takes the busy runs' 10% out; a run without canaries keeps it.
        let busy = stepped.points[6].level - stepped.points[5].level
        #expect(abs(busy) < 0.02 && stepped.points.allSatisfy { $0.hostFactor != nil })
        let uncorrected = runs.map { run in
            var run = run
            run.summaries = run.summaries.filter { $0.key == Self.case1024 }
            return run
        }
        let alone = try #require(Self.analysis.series(of: uncorrected, metric: .time).first)
        #expect(alone.points.allSatisfy { $0.hostFactor == nil })
        #expect(abs(alone.points[6].level - alone.points[5].level - log(1.10)) < 0.02)
    }

    @Test("Runs of one commit are one group; a step below the threshold is not reported")
    func groupsAndThreshold() throws {
        let commits = (0..<20).map { String(format: "d%06d", $0 / 2) }
        let runs = SyntheticRun.series(runs: 20, commits: commits) { index in
            index >= 10 ? [Self.case1024: 1.06] : [:]
        }
        let found = try #require(Self.analysis.series(of: runs, metric: .time).first { $0.key == Self.case1024 })
        #expect(found.changePoints.map(\.index) == [10])
        // A step within commit 4's runs (8 and 9) can only be put where a commit begins.
        let inside = SyntheticRun.series(runs: 20, commits: commits) { index in
            index >= 9 ? [Self.case1024: 1.06] : [:]
        }
        let split = try #require(Self.analysis.series(of: inside, metric: .time).first { $0.key == Self.case1024 })
        #expect(split.changePoints.allSatisfy { $0.index.isMultiple(of: 2) })
        let strict = ChangePointAnalysis.standard(threshold: 0.10)
        #expect(strict.series(of: runs, metric: .time).allSatisfy { $0.changePoints.isEmpty })
    }

    @Test("A library's new version is a step of the environment, named, not tested; a short series says so")
    func libraryAndShort() throws {
        let openssl = CaseKey(backend: "openssl", operation: .sha256, size: 1024, threads: 1)
        let runs = SyntheticRun.series(runs: 12, scale: { $0 >= 6 ? [openssl: 0.9] : [:] }) { index in
            index >= 6 ? "OpenSSL 3.5.0 8 Apr 2025" : nil
        }
        let series = try #require(Self.analysis.series(of: runs, metric: .time).first { $0.key == openssl })
        let step = try #require(series.changePoints.first)
        #expect(step.index == 6 && !step.isRegression && step.isEnvironmental && step.pValue == nil)
        #expect(
            step.environmentChanges.map(\.description) == [
                "library OpenSSL 3.0.19 27 Jan 2026 → OpenSSL 3.5.0 8 Apr 2025"
            ])
        #expect(step.libraryChange?.before == "OpenSSL 3.0.19 27 Jan 2026")
        #expect(step.libraryChange?.after == "OpenSSL 3.5.0 8 Apr 2025")
        let short = Self.analysis.series(of: Array(runs.prefix(5)), metric: .time)
        #expect(short.allSatisfy { $0.isTooShort && $0.changePoints.isEmpty })
        #expect(Self.analysis.series(of: Array(runs.prefix(6)), metric: .time).allSatisfy { !$0.isTooShort })
    }

    @Test("Runs without a known commit are a group each; only the last runs of each host are read")
    func unknownCommitsAndWindow() throws {
        let runs = SyntheticRun.series(runs: 20, commits: Array(repeating: "unknown", count: 20)) {
            $0 >= 12 ? [Self.case1024: 1.06] : [:]
        }
        let found = try #require(Self.analysis.series(of: runs, metric: .time).first { $0.key == Self.case1024 })
        #expect(found.changePoints.map(\.index) == [12])
        let last = try #require(
            Self.analysis.series(of: runs, metric: .time, lastRuns: 10).first { $0.key == Self.case1024 })
        #expect(last.points.count == 10 && last.points.first?.runID == runs[10].environment.runID)
        #expect(last.changePoints.map(\.index) == [2] || last.changePoints.isEmpty)
    }

    /// The cases a toolchain compiles: all but the canaries and the random bytes that OpenSSL and
    /// libsodium take from the kernel.
    static func isCompiled(_ key: CaseKey) -> Bool {
        !ChangePointAnalysis.isCanary(key)
            && !(key.operation == .random && ["openssl", "sodium"].contains(key.backend))
    }

    @Test("A regression in most cases is found: the host factor comes from the canaries alone")
    func regressionInMostCases() throws {
        let pkce: Set<BenchmarkOperation> = [
            .challenge, .challengeBatch, .challengeString, .verifier, .verifierString, .verify,
        ]
        let slowed = SyntheticRun.keys.filter { pkce.contains($0.operation) }
        #expect(slowed.count == 44)
        let runs = SyntheticRun.series(runs: 20) { index in
            index >= 12 ? Dictionary(uniqueKeysWithValues: slowed.map { ($0, 1.03) }) : [:]
        }
        let series = Self.analysis.series(of: runs, metric: .time)
        #expect(series.allSatisfy { $0.points.allSatisfy { $0.hostFactor != nil } })
        for one in series {
            if pkce.contains(one.key.operation) {
                #expect(one.changePoints.map(\.index) == [12], "\(one.key)")
                #expect(one.changePoints.allSatisfy { $0.isRegression && !$0.isEnvironmental }, "\(one.key)")
            } else {
                #expect(one.changePoints.isEmpty, "\(one.key)")
            }
        }
        #expect(HistoryChanges(series: series, threshold: 0.02, since: nil).alerts.count == 44)
    }

    @Test(
        "A new toolchain or kernel is a step of the environment in the cases it moved, named and never an alert",
        arguments: [false, true])
    func environmentSteps(kernel: Bool) throws {
        let moved = SyntheticRun.keys.filter { kernel ? $0.operation == .random : Self.isCompiled($0) }
        #expect(moved.count == (kernel ? 4 : 54))
        var runs = SyntheticRun.series(runs: 20) { index in
            guard index >= 10 else { return [:] }
            var scale = Dictionary(uniqueKeysWithValues: moved.map { ($0, kernel ? 1.05 : 1.04) })
            // The timing loop around the canaries is compiled too.
            if !kernel { for key in SyntheticRun.keys where ChangePointAnalysis.isCanary(key) { scale[key] = 1.005 } }
            return scale
        }
        for index in 10..<20 {
            if kernel { runs[index].environment.kernel = "6.12.0" } else { runs[index].environment.swift = "6.4.0" }
        }
        let series = Self.analysis.series(of: runs, metric: .time)
        let cause = kernel ? "kernel 6.1.0 → 6.12.0" : "Swift 6.3.1 → 6.4.0"
        for one in series {
            let expected = moved.contains(one.key) ? [10] : []
            #expect(one.changePoints.map(\.index) == expected, "\(one.key)")
            #expect(one.changePoints.allSatisfy { $0.environmentChanges.map(\.description) == [cause] })
        }
        #expect(HistoryChanges(series: series, threshold: 0.02, since: nil).alerts.isEmpty)
    }

    @Test("A slow drift is not a step: a step's size is what the runs either side of it show")
    func slowDrift() throws {
        // 0.15% slower every run: 9% over the series, under 1% over any ten neighbouring runs.
        let runs = SyntheticRun.series(runs: 60) { [Self.case1024: pow(1.0015, Double($0))] }
        let drifting = try #require(Self.analysis.series(of: runs, metric: .time).first { $0.key == Self.case1024 })
        #expect(drifting.changePoints.isEmpty)
        // Measured from one step to the next, as before the window, the drift is steps.
        let unwindowed = ChangePointAnalysis(
            detector: Self.analysis.detector, threshold: 0.02, window: 60,
            stepSignificance: Self.analysis.stepSignificance,
            environmentStepSignificance: Self.analysis.environmentStepSignificance)
        let segments = try #require(unwindowed.series(of: runs, metric: .time).first { $0.key == Self.case1024 })
        #expect(!segments.changePoints.isEmpty)
    }

    @Test("Five quiet runs either side of a step do not make a noisy series quiet")
    func noisySeries() throws {
        // A step of 2.5% at run 30, around which runs 25 to 34 sit still; elsewhere each run lies
        // `noise` above or below the level, in turn.
        func series(noise: Double) throws -> CaseSeries {
            let runs = SyntheticRun.series(runs: 60) { index in
                let wobble = (25..<35).contains(index) ? 1 : 1 + (index.isMultiple(of: 2) ? noise : -noise)
                return [Self.case1024: wobble * (index >= 30 ? 1.025 : 1)]
            }
            return try #require(Self.analysis.series(of: runs, metric: .time).first { $0.key == Self.case1024 })
        }
        #expect(try series(noise: 0.001).changePoints.map(\.index) == [30])
        // Runs 1.5% from the level, 3% from their neighbours but within runs 25 to 34: a run-to-run
        // noise of about 1.9% (von Neumann's), so the near change's standard error is at least
        // 1.9% × √(2/5), about 1.2%, and 2.5% is not significant at p ≤ 0.001. E-divisive does
        // propose the step: the near test is what drops it.
        let noisy = try series(noise: 0.015)
        #expect(noisy.changePoints.isEmpty)
        #expect(Self.analysis.detector.splits(of: noisy.points.map(\.level)).contains { $0.index == 30 })
    }

    @Test("A step at an environment change is one test at a known place: p ≤ 0.025, not 0.001")
    func noisyEnvironmentStep() throws {
        // Each run 1.5% above or below the level, in turn (a run-to-run noise of about 2.1%), and
        // 4% slower from run 30, where Swift changed: the near change's standard error is at least
        // 2.1% × √(2/5), about 1.3%, so the step is significant at p ≤ 0.025 and not at 0.001.
        var runs = SyntheticRun.series(runs: 60) { index in
            [Self.case1024: (1 + (index.isMultiple(of: 2) ? 0.015 : -0.015)) * (index >= 30 ? 1.04 : 1)]
        }
        for index in 30..<60 { runs[index].environment.swift = "6.4.0" }
        func steps(_ analysis: ChangePointAnalysis) throws -> [ChangePoint] {
            try #require(analysis.series(of: runs, metric: .time).first { $0.key == Self.case1024 }).changePoints
        }
        let named = try steps(Self.analysis)
        #expect(named.map(\.index) == [30] && named.allSatisfy(\.isEnvironmental))
        var searched = Self.analysis
        searched.environmentStepSignificance = searched.stepSignificance
        #expect(try steps(searched).isEmpty)
    }

    @Test("--since names a run or a commit; only regressions after it alert")
    func since() throws {
        let runs = SyntheticRun.series(runs: 20) { $0 >= 12 ? [Self.case1024: 1.06] : [:] }
        let series = Self.analysis.series(of: runs, metric: .time)
        let byRun = try #require(HistoryChanges.since(runs[13].environment.runID, in: runs, resolve: { _ in nil }))
        #expect(byRun.commit.description == "c000013")
        #expect(HistoryChanges(series: series, threshold: 0.02, since: byRun).alerts.isEmpty)
        let byCommit = try #require(HistoryChanges.since("c000011", in: runs, resolve: { _ in nil }))
        #expect(byCommit.runID == runs[11].environment.runID)
        let alerts = HistoryChanges(series: series, threshold: 0.02, since: byCommit).alerts
        #expect(alerts.map(\.series.key) == [Self.case1024])
        // A revision git resolves to a hash whose prefix a run recorded.
        let resolved = HistoryChanges.since("main~8", in: runs) { $0 == "main~8" ? "c000011aaaabbbbcccc" : nil }
        #expect(resolved?.commit.description == "c000011")
        #expect(HistoryChanges.since("nothing", in: runs, resolve: { _ in nil }) == nil)
        #expect(HistoryChanges(series: series, threshold: 0.02, since: nil).alerts.count == 1)
    }
}
