import Foundation
import PKCEBenchTestSupport
import Testing

@testable import PKCEBenchCore

@Suite("The spread between runs, from a history")
struct RunToRunSpreadTests {
    static let keys = SyntheticRun.keys

    static func environment(
        _ runID: String, commit: String = "abc1234", kernel: String = "6.1.0", cpu: String = "Test CPU"
    ) -> RunEnvironment {
        RunEnvironment(
            runID: runID, timestamp: "2026-11-22T00:00:00.000Z", commit: RecordedCommit(recorded: commit),
            build: .release, targetCPU: "x86-64",
            cpu: cpu, cpuFlags: "sha_ni avx2", cores: 2, kernel: kernel, swift: "6.3.1", libraries: [:])
    }

    /// `runs` runs of every case: each run's figures shifted alike by `shift(run)`, and each case
    /// by its own Gaussian run effect of standard deviation `effect(key)`.
    static func history(
        runs: Int, seed: UInt64 = 1, commit: String = "abc1234", kernel: String = "6.1.0", cpu: String = "Test CPU",
        shift: (Int) -> Double = { _ in 0 }, effect: (CaseKey) -> Double = { _ in 0.005 }
    ) -> [(environment: RunEnvironment, summary: CaseSummary)] {
        var generator = SplitMix64(seed: seed)
        return (0..<runs).flatMap { run in
            let environment = environment("run-\(seed)-\(run)", commit: commit, kernel: kernel, cpu: cpu)
            return keys.enumerated().map { index, key in
                let figure = (100 + 37 * Double(index)) * (1 + shift(run)) * exp(effect(key) * generator.nextGaussian())
                return (environment, CaseSummary.timed(key, median: figure * 1.02, fastest: figure))
            }
        }
    }

    static func spread(_ history: [(environment: RunEnvironment, summary: CaseSummary)], excluding: Set<String> = [])
        -> RunToRunSpread
    {
        RunToRunSpread(history: history, like: environment("now"), excluding: excluding)
    }

    @Test("Each case's own run effect is measured; a shift of the whole run is not counted as spread")
    func measured() throws {
        let noisy = Self.keys[5]
        let spread = Self.spread(
            Self.history(runs: 12, shift: { run in run.isMultiple(of: 2) ? 0.05 : -0.04 }) {
                $0 == noisy ? 0.04 : 0.005
            })
        #expect(spread.runs == 12 && spread.commits == 1)
        #expect(spread.variances.count == Self.keys.count)
        let quiet = Self.keys.filter { $0 != noisy }.map { spread.variances[$0]!.variance.squareRoot() }
        // The ±5% shifts are gone: the quiet cases show their 0.5%, not several percent.
        #expect(quiet.allSatisfy { (0.002..<0.009).contains($0) })
        // The noisy case keeps most of its own 4%: moderation borrows, it does not erase.
        #expect(spread.variances[noisy]!.variance.squareRoot() > 0.02)
        // The cases agree, so they lend each other degrees of freedom: more than a case's own 11.
        #expect(spread.variances[Self.keys[0]]!.degreesOfFreedom > 11)
    }

    @Test("A step of one case, where bench history --changes finds it, is not counted as its spread")
    func stepIsNotSpread() throws {
        let stepped = Self.keys[7]
        // One run a commit, each case moving by its 0.5%; the stepped case 10% slower from run 8.
        let history = (0..<16).flatMap { run in
            Self.history(runs: 1, seed: UInt64(run), commit: String(format: "c%06d", run)).map { row in
                guard run >= 8, row.summary.key == stepped, var times = row.summary.times else { return row }
                times.fastest *= 1.10
                times.median *= 1.10
                var summary = row.summary
                summary.outcome = .timed(times)
                return (row.environment, summary)
            }
        }
        let spread = try #require(Self.spread(history).variances[stepped]).variance.squareRoot()
        // Counted, the step's one difference of 10% among 15 would make it about 1.9%, and still
        // about 0.9% after borrowing from the other cases.
        #expect(spread < 0.007)
    }

    @Test("A run keeps every backend's library, though each row of the history records only its own")
    func librariesOfEveryBackend() {
        let history = Self.history(runs: 6).map { row in
            var environment = row.environment
            environment.libraries = [row.summary.key.backend: "\(row.summary.key.backend) 1.0"]
            return (environment: environment, summary: row.summary)
        }
        let backends = Set(Self.keys.map(\.backend))
        let runs = RunToRunSpread.usableRuns(of: history, like: Self.environment("now"), excluding: []).runs
        #expect(backends.count > 1 && runs.count == 6)
        // Else a library's upgrade would end no stretch of the cases of any backend but the first row's.
        #expect(runs.allSatisfy { Set($0.environment.libraries.keys) == backends })
    }

    @Test(
        "Fewer than five runs in a row, a dirty or unknown commit, another host, the compared runs: unmeasured; a run a commit is enough"
    )
    func unmeasured() {
        #expect(Self.spread(Self.history(runs: 4)).variances.isEmpty)
        #expect(Self.spread(Self.history(runs: 5)).variances.count == Self.keys.count)
        // One run a commit: their neighbours' differences measure the spread all the same.
        let nightly = (0..<5).flatMap { Self.history(runs: 1, seed: UInt64($0), commit: "c\($0)00000") }
        #expect(Self.spread(nightly).variances.count == Self.keys.count)
        #expect(Self.spread(nightly).commits == 5)
        #expect(Self.spread(Self.history(runs: 8, commit: "abc1234-dirty")).variances.isEmpty)
        #expect(Self.spread(Self.history(runs: 8, commit: "unknown")).variances.isEmpty)
        #expect(Self.spread(Self.history(runs: 8, commit: "unknown")).leftOut.unknownCode == 8)
        #expect(Self.spread(Self.history(runs: 8, cpu: "Other CPU")).variances.isEmpty)
        #expect(Self.spread(Self.history(runs: 8, cpu: "Other CPU")).leftOut.otherHost == 8)
        // Another kernel is the same host in another environment: nothing is measured across the
        // change, so 2 + 3 runs give 3 differences, too few, and 3 + 3 give 4.
        #expect(Self.spread(Self.history(runs: 8, kernel: "6.2.0")).variances.count == Self.keys.count)
        #expect(
            Self.spread(Self.history(runs: 2) + Self.history(runs: 3, seed: 2, kernel: "6.2.0")).variances.isEmpty)
        #expect(
            !Self.spread(Self.history(runs: 3) + Self.history(runs: 3, seed: 2, kernel: "6.2.0")).variances.isEmpty)
        let history = Self.history(runs: 5)
        #expect(Self.spread(history, excluding: ["run-1-0"]).variances.isEmpty)
        // A run of one case (a --filter run) has no shift of its own to measure: it is left out,
        // rather than counted as a case that never moves.
        let filtered = history.filter { $0.summary.key == Self.keys[0] }
        #expect(
            Self.spread(filtered + Self.history(runs: 4, seed: 3).filter { $0.summary.key == Self.keys[0] }).variances
                .isEmpty
        )
        #expect(Self.spread(Self.history(runs: 4) + filtered.prefix(1)).variances.isEmpty)
        #expect(RunToRunSpread.unmeasured.driftFloor == RunToRunSpread.defaultDriftFloor)
    }
}

@Suite("Moderated variances (limma's empirical Bayes)")
struct ModeratedVariancesTests {
    @Test("The polygamma functions match their closed forms")
    func polygamma() {
        func close(_ a: Double, _ b: Double) -> Bool { abs(a - b) < 1e-12 * max(1, abs(b)) }
        // ψ(1) = −γ, ψ(½) = −γ − 2 ln 2, ψ′(1) = π²/6, ψ′(½) = π²/2, ψ″(1) = −2ζ(3).
        let gamma = 0.577_215_664_901_532_9
        #expect(close(ModeratedVariances.digamma(1), -gamma))
        #expect(close(ModeratedVariances.digamma(0.5), -gamma - 2 * log(2.0)))
        #expect(close(ModeratedVariances.trigamma(1), Double.pi * Double.pi / 6))
        #expect(close(ModeratedVariances.trigamma(0.5), Double.pi * Double.pi / 2))
        #expect(close(ModeratedVariances.tetragamma(1), -2 * 1.202_056_903_159_594_3))
        for y in [0.3, 1.7, 4.2, 25.0, 400.0] {
            #expect(abs(ModeratedVariances.trigammaInverse(ModeratedVariances.trigamma(y)) - y) < 1e-6 * y)
        }
    }

    @Test("Variances drawn around a known prior give back its degrees of freedom and its variance")
    func recoversPrior() {
        // σ²ᵢ ~ s₀² d₀ / χ²(d₀), then s²ᵢ ~ σ²ᵢ χ²(d) / d: limma's model, with d₀ = 10, s₀² = 1, d = 4.
        var generator = SplitMix64(seed: 46)
        func chiSquare(_ degrees: Int) -> Double {
            (0..<degrees).reduce(0) { sum, _ in
                let z = generator.nextGaussian(); return sum + z * z
            }
        }
        let variances = (0..<4000).map { _ in
            let truth = 10 / chiSquare(10)
            return truth * chiSquare(4) / 4
        }
        let moderated = ModeratedVariances(variances, degreesOfFreedom: Array(repeating: 4, count: variances.count))
        #expect((7...14).contains(moderated.priorDegreesOfFreedom))
        #expect(abs(moderated.priorVariance - 1) < 0.1)
        #expect(moderated.degreesOfFreedom.allSatisfy { $0 == 4 + moderated.priorDegreesOfFreedom })
        // Each lies between its own variance and the prior.
        #expect(
            zip(variances, moderated.variances).allSatisfy { own, shrunk in
                (min(own, moderated.priorVariance)...max(own, moderated.priorVariance)).contains(shrunk)
            })
    }

    @Test("Variances no more scattered than sampling explains all become the prior")
    func identical() {
        let moderated = ModeratedVariances([2, 2, 2, 2], degreesOfFreedom: [4, 4, 4, 4])
        #expect(moderated.priorDegreesOfFreedom.isInfinite)
        // limma's pooled variance, and degrees of freedom capped at all of them together.
        #expect(moderated.priorVariance == 2)
        #expect(moderated.variances == [2, 2, 2, 2])
        #expect(moderated.degreesOfFreedom == [16, 16, 16, 16])
    }
}
