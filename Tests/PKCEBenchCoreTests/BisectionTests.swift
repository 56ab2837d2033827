import Foundation
import PKCEBenchTestSupport
import Testing

@testable import PKCEBenchCore

@Suite("Bisecting a range of commits")
struct BisectionTests {
    /// Commits `c0` (the good end) to `c<count>`, whose case takes `level(i)` nanoseconds.
    static func commits(_ count: Int) -> [CommitBuilds.Commit] {
        (0...count).map {
            CommitBuilds.Commit(id: "c\($0)" + String(repeating: "0", count: 38), subject: "commit \($0)")
        }
    }

    /// A bisection of `count` commits whose comparisons decide exactly: changed when the newer is
    /// at least `threshold` slower (or faster) than the older, as the direction asks; `undecided`
    /// for the commits in `noisy`. Returns the outcome and the comparisons made.
    static func bisect(
        _ count: Int, threshold: Double = 0.01, noisy: Set<Int> = [], level: @escaping (Int) -> Double
    ) throws -> (Bisection.Outcome, [Bisection.Step]) {
        let commits = commits(count)
        func index(_ commit: CommitBuilds.Commit) -> Int { commits.firstIndex(of: commit)! }
        var steps: [Bisection.Step] = []
        let bisection = Bisection(
            commits: commits, threshold: threshold,
            compare: { older, newer, direction in
                let change = level(index(newer)) / level(index(older)) - 1
                let decision: Bisection.Decision
                var found = direction
                if noisy.contains(index(newer)) {
                    decision = .undecided
                } else if direction != .faster && change >= threshold {
                    (decision, found) = (.changed, .slower)
                } else if direction != .slower && change <= -threshold {
                    (decision, found) = (.changed, .faster)
                } else {
                    decision = .same
                }
                return Bisection.Step(
                    older: older, newer: newer, decision: decision, direction: found, change: change, pairs: 20)
            },
            report: { steps.append($0) })
        return (try bisection.run(), steps)
    }

    @Test("A step at any commit of ranges of 1 to 17 is found, in at most log₂ n + 2 comparisons")
    func findsEveryStep() throws {
        for count in 1...17 {
            for step in 1...count {
                for factor in [1.05, 0.8] {
                    let (outcome, steps) = try Self.bisect(count) { $0 >= step ? 100 * factor : 100 }
                    guard case .found(let last) = outcome else {
                        Issue.record("no commit found for a step at \(step) of \(count): \(outcome)")
                        continue
                    }
                    #expect(last.newer == Self.commits(count)[step])
                    #expect(last.older == Self.commits(count)[step - 1], "the last step compares it with its parent")
                    #expect(last.direction == (factor > 1 ? .slower : .faster))
                    let bound = Int(log2(Double(count)).rounded(.up)) + 2
                    #expect(steps.count <= bound, "\(steps.count) comparisons for \(count) commits")
                }
            }
        }
    }

    @Test("No change between the ends, a change spread over commits, and noise are undecided, each said")
    func undecided() throws {
        let (flat, flatSteps) = try Self.bisect(8) { _ in 100 }
        guard case .undecided(let reason) = flat else { Issue.record("\(flat)"); return }
        #expect(reason.contains("is not 1% slower or faster than"))
        #expect(flatSteps.count == 1)

        // 0.5% a commit: 4% from end to end, no commit 1%.
        let (spread, _) = try Self.bisect(8) { 100 * pow(1.005, Double($0)) }
        guard case .undecided(let spreadReason) = spread else { Issue.record("\(spread)"); return }
        #expect(spreadReason.hasPrefix("the change is spread over several commits"))

        let (noisy, _) = try Self.bisect(8, noisy: [4]) { $0 >= 6 ? 110 : 100 }
        guard case .undecided(let noise) = noisy else { Issue.record("\(noisy)"); return }
        #expect(noise.hasPrefix("noise: the comparison of c4"))
    }
}

@Suite("A bisection that checks itself")
struct BisectionRetryTests {
    @Test("A halving step that wrongly found a commit the same: the parent, asked again, resumes the halving below it")
    func wrongHalvingStep() throws {
        let commits = BisectionTests.commits(16)
        let changed = 5
        var asked: [Int: Int] = [:]
        var steps: [Bisection.Step] = []
        let bisection = Bisection(
            commits: commits, threshold: 0.01,
            compare: { older, newer, direction in
                let (from, to) = (commits.firstIndex(of: older)!, commits.firstIndex(of: newer)!)
                asked[to, default: 0] += from == 0 ? 1 : 0
                // Commit 6 against the good end: wrongly the same the first time it is asked.
                let truth = from < changed && to >= changed
                let decision: Bisection.Decision = truth && !(to == 6 && asked[to] == 1) ? .changed : .same
                return Bisection.Step(
                    older: older, newer: newer, decision: decision, direction: direction ?? .slower,
                    change: truth ? 0.02 : 0, pairs: 20, detectable: 0.012)
            },
            report: { steps.append($0) })
        guard case .found(let step) = try bisection.run() else { Issue.record("no commit found"); return }
        #expect(step.newer == commits[changed] && step.older == commits[changed - 1])
        #expect(asked[6] == 2, "commit 6 is asked again")
        // The ends, four halving steps, the first commit against its parent, the parent again, one
        // halving step below it, and the commit found against its parent.
        #expect(steps.count == 9, "\(steps.count) comparisons")
    }

    @Test("Step 3 is made afresh even when a halving step or the parent asked again compared the same two commits")
    func parentCheckAfresh() throws {
        let commits = BisectionTests.commits(16)
        let (found, steps) = try BisectionTests.bisect(16) { $0 >= 1 ? 102 : 100 }
        guard case .found(let step) = found else { Issue.record("\(found)"); return }
        #expect(step.newer == commits[1])
        // The halving step (c0, c1), then step 3 on the same two commits.
        #expect(steps.suffix(2).allSatisfy { $0.older == commits[0] && $0.newer == commits[1] }, "\(steps.count)")

        // Two commits, the change at the first, whose halving step wrongly says the same: step 3 of
        // the second says the same, the first asked again changed, then step 3 of the first.
        let two = BisectionTests.commits(2)
        var first = true
        var pairs: [(Int, Int, Bisection.Decision)] = []
        let bisection = Bisection(
            commits: two, threshold: 0.01,
            compare: { older, newer, direction in
                let (from, to) = (two.firstIndex(of: older)!, two.firstIndex(of: newer)!)
                var decision: Bisection.Decision = from < 1 && to >= 1 ? .changed : .same
                if (from, to) == (0, 1), first, direction != nil, pairs.count == 1 {
                    (decision, first) = (.same, false)
                }
                pairs.append((from, to, decision))
                return Bisection.Step(
                    older: older, newer: newer, decision: decision, direction: direction ?? .slower, change: nil,
                    pairs: nil)
            },
            report: { _ in })
        guard case .found(let named) = try bisection.run() else { Issue.record("not found"); return }
        #expect(named.newer == two[1] && named.older == two[0])
        #expect(
            pairs.map { "\($0.0)-\($0.1) \($0.2)" } == [
                "0-2 changed", "0-1 same", "1-2 same", "0-1 changed", "0-1 changed",
            ])
    }

    @Test("Only a comparison of a commit with its parent, in the direction found, names it: at most two a bisection")
    func namingComparisons() throws {
        var generator = SplitMix64(seed: 67)
        for count in 1...17 {
            let commits = BisectionTests.commits(count)
            for changed in 1...count {
                for _ in 0..<20 {
                    // Decisions right or wrong at random, one in three wrong.
                    var steps: [Bisection.Step] = []
                    var asked: [Bisection.Direction?] = []
                    let bisection = Bisection(
                        commits: commits, threshold: 0.01,
                        compare: { older, newer, direction in
                            let (from, to) = (commits.firstIndex(of: older)!, commits.firstIndex(of: newer)!)
                            asked.append(direction)
                            let truth = from < changed && to >= changed
                            let right = generator.next() % 3 != 0
                            let decision: Bisection.Decision = truth == right ? .changed : .same
                            return Bisection.Step(
                                older: older, newer: newer, decision: decision, direction: direction ?? .slower,
                                change: nil, pairs: nil)
                        },
                        report: { steps.append($0) })
                    let outcome = try bisection.run()
                    // A comparison that could name a commit: of a commit with its parent, after
                    // which the bisection ended or asked the parent again.
                    let naming = steps.indices.filter { index in
                        let step = steps[index]
                        guard commits.firstIndex(of: step.newer) == commits.firstIndex(of: step.older)! + 1 else {
                            return false
                        }
                        return index == steps.count - 1
                            || (step.older != commits[0] && steps[index + 1].older == commits[0]
                                && steps[index + 1].newer == step.older)
                    }
                    #expect(naming.count <= 2, "\(naming.count) comparisons that could name a commit")
                    if case .found(let step) = outcome {
                        let (from, to) = (commits.firstIndex(of: step.older)!, commits.firstIndex(of: step.newer)!)
                        #expect(to == from + 1 && asked.last! != nil, "asked \(String(describing: asked.last))")
                        #expect(steps.last?.older == step.older && steps.last?.newer == step.newer)
                    }
                }
            }
        }
    }

    @Test("A change spread over commits is said so only once the parent, asked again, is the same")
    func spreadAskedAgain() throws {
        let (outcome, steps) = try BisectionTests.bisect(16) { 100 * pow(1.004, Double($0)) }
        guard case .undecided(let reason) = outcome else { Issue.record("\(outcome)"); return }
        #expect(
            reason.hasPrefix("the change is spread over several commits") && reason.hasSuffix("asked again, is not"))
        let parent = try #require(steps.dropLast().last?.older)
        #expect(steps.last?.newer == parent && steps.last?.older == BisectionTests.commits(16)[0])
    }

    @Test("Each comparison: twice bench ab's looks, alpha split over the two that can name a commit")
    func budget() {
        let schedule = Bisection.schedule(LookSchedule(pairsPerLook: 20, looks: 4))
        #expect(schedule == LookSchedule(pairsPerLook: 20, looks: 8))
        let criteria = Bisection.criteria(ComparisonCriteria(threshold: 0.01, alpha: 0.01))
        #expect(criteria.alpha == 0.005 && criteria.threshold == 0.01 && criteria.confidence == 0.95)
    }
}

@Suite("What a backfill measures")
struct BackfillPlanTests {
    static let commits = BisectionTests.commits(7).dropFirst().map { $0 }

    @Test("Every n-th commit counted back from the newest, which is always measured")
    func picked() {
        #expect(BackfillPlan.picked(Self.commits, every: 1) == Self.commits)
        #expect(BackfillPlan.picked(Self.commits, every: 3).map(\.subject) == ["commit 1", "commit 4", "commit 7"])
        #expect(BackfillPlan.picked(Self.commits, every: 100).map(\.subject) == ["commit 7"])
    }

    @Test("A commit's runs count on its host and build when they timed what its build measures; others do not")
    func runsMissing() {
        let commit = Self.commits[2]
        let host = SyntheticRun.report().environment
        func run(
            commit: String, keys: [CaseKey], cpuFlags: String? = nil, build: BuildConfiguration = .release,
            id: String = UUID().uuidString
        ) -> RunResult {
            var environment = host
            environment.runID = id
            environment.recordedCommit = RecordedCommit(recorded: commit)
            environment.build = build
            if let cpuFlags { environment.cpuFlags = cpuFlags }
            return RunResult(
                environment: environment, summaries: keys.map { CaseSummary.timed($0, median: 100, fastest: 90) })
        }
        let a = CaseKey(backend: "swift", operation: .sha256, size: 64, threads: 1)
        let b = CaseKey(backend: "openssl", operation: .sha256, size: 64, threads: 1)
        // What this commit's build measures of the selection.
        let cases: Set = [a, b]
        func missing(_ history: [RunResult], wanted: Int = 2) -> Int {
            BackfillPlan.runsMissing(of: commit, on: host.host, cases: cases, history: history, wanted: wanted)
        }
        #expect(missing([]) == 2)
        #expect(missing([run(commit: commit.short, keys: [a, b])]) == 1)
        #expect(missing([run(commit: commit.short, keys: [a, b]), run(commit: commit.short, keys: [b, a])]) == 0)
        #expect(missing([run(commit: commit.short, keys: [a, b])], wanted: 1) == 0)
        // One run read from the results directory and from the store counts once.
        let both = run(commit: commit.short, keys: [a, b])
        #expect(missing([both, both]) == 1)
        // A run of part of the selection (another backfill's, with --backend swift), or of more, does not count.
        #expect(missing([run(commit: commit.short, keys: [a])]) == 2)
        #expect(missing([run(commit: commit.short, keys: [a, b, CaseKey(name: "sha256/sodium/64")!])]) == 2)
        // Nor does another commit, host or build, or a commit recorded by too short a prefix.
        #expect(missing([run(commit: Self.commits[3].short, keys: [a, b])]) == 2)
        #expect(missing([run(commit: commit.short, keys: [a, b], cpuFlags: "other")]) == 2)
        #expect(missing([run(commit: commit.short, keys: [a, b], build: .debug)]) == 2)
        #expect(missing([run(commit: "c2", keys: [a, b])]) == 2)
    }

    @Test("N shares of a range are apart and cover it, each spread over it; --shard reads K/N and nothing else")
    func shares() throws {
        let shares = try (1...3).map { try #require(BackfillPlan.Shard("\($0)/3")).share(of: Self.commits) }
        #expect(
            shares.map { $0.map(\.subject) } == [
                ["commit 1", "commit 4", "commit 7"], ["commit 2", "commit 5"], ["commit 3", "commit 6"],
            ])
        #expect(BackfillPlan.Shard.whole.share(of: Self.commits) == Self.commits)
        #expect(BackfillPlan.Shard("1/1") == .whole)
        #expect(try #require(BackfillPlan.Shard("8/8")).share(of: Self.commits).isEmpty)
        for text in ["", "1", "0/3", "4/3", "1/0", "-1/3", "1/3/5", "a/b", "1/1001", " 1/3"] {
            #expect(BackfillPlan.Shard(text) == nil, "\(text)")
        }
    }

    @Test("Case names read back into keys; anything else is not one")
    func caseNames() {
        #expect(CaseKey(name: "sha256/swift/64") == CaseKey(backend: "swift", operation: .sha256, size: 64, threads: 1))
        #expect(CaseKey(name: "verify/openssl/43×4")?.threads == 4)
        for name in [
            "", "sha256/swift", "nope/swift/64", "sha256//64", "sha256/swift/0", "sha256/swift/64×1", "a/b/c/d",
        ] {
            #expect(CaseKey(name: name) == nil, "\(name)")
        }
    }
}
