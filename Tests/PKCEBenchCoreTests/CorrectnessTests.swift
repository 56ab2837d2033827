import PKCE
@testable import PKCEBenchCore
import PKCEBenchTestSupport
import Testing

@Suite("The correctness check")
struct CorrectnessTests {
    @Test("The pure-Swift backend passes")
    func swiftPasses() {
        #expect(Correctness.check(SwiftBackend()) == nil)
    }

    @Test("A backend with a wrong digest is refused, and the reason names the FIPS vector")
    func wrongDigestRefused() throws {
        let reason = try #require(Correctness.check(WrongDigestBackend()))
        #expect(reason.contains("FIPS 180-4"))
    }

    @Test("A backend whose random bytes are constant is refused")
    func constantRandomRefused() {
        #expect(Correctness.check(ZeroRandomBackend()) == "fillRandom returns constant bytes")
    }

    @Test("A backend whose randomness fails is refused with the error")
    func failingRandomRefused() throws {
        let reason = try #require(Correctness.check(FailingLaterBackend(failingAfter: 0)))
        #expect(reason.hasPrefix("randomness failed: "))
        #expect(reason.contains("test returned code 5"))
    }

    @Test("Each build's backends are checked once: this build's here, another build's by its first worker")
    func checkedWhereTheyRun() {
        func checkedInWorkers(_ mode: Pipeline.Mode) -> [Side] { Side.allCases.filter(mode.checksInWorkers) }
        var processes = MeasuringProcesses(count: 2, command: ("/bin/true", []), cancellation: .never)
        #expect(checkedInWorkers(.alone(.inProcess(allocationCounter: nil))) == [])
        #expect(checkedInWorkers(.alone(.processes(processes))) == [])
        processes.isAnotherBuild = true
        #expect(checkedInWorkers(.alone(.processes(processes))) == [.current])

        func sideBySide(_ sides: Sides) -> Pipeline.Mode {
            .sideBySide(.init(sides: sides, looks: .single, criteria: ComparisonCriteria(threshold: 0.01)))
        }
        let link = LinkCommand(executable: "/kept/build/bench", arguments: [], functions: [])
        #expect(checkedInWorkers(sideBySide(.builds(baseline: "/old/bench", current: "/new/bench"))) == [.baseline])
        #expect(checkedInWorkers(sideBySide(.relinked(baseline: link, current: link))) == [.baseline, .current])
        #expect(
            checkedInWorkers(sideBySide(.backends(baseline: "sodium", current: "swift", executable: "bench"))) == [])
    }
}
