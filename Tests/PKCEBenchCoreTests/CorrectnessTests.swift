import PKCE
import PKCEBenchCore
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
}
