import PKCEBenchCore
import Testing

@Suite("Backend names: what a case name, a CSV row and --backend can carry")
struct BackendNamesTests {
    @Test(
        "Lowercase letters, digits, '-', '_' and '.', from a letter, up to 32",
        arguments: [
            "swift", "openssl", "my-backend_2", "boringssl.fips", "a", String(repeating: "x", count: 32),
        ])
    func valid(_ name: String) throws {
        #expect(BackendNames.isValid(name))
        try BackendNames.check([name, "swift-other"])
    }

    @Test(
        "Anything else is 70 in one line that names it",
        arguments: [
            "", "Swift", "2fast", "-x", "my backend", "a/b", "a,b", "a×2", "é", String(repeating: "x", count: 33),
        ])
    func invalid(_ name: String) {
        #expect(!BackendNames.isValid(name))
        #expect(
            throws: BenchError(
                .backendFailed,
                "backend name '\(name)' is not valid: a name is 1 to 32 lowercase letters, digits, '-', '_' and '.', "
                    + "starting with a letter")
        ) { try BackendNames.check(["swift", name]) }
    }

    @Test("Two backends of one name, or none at all, are 70")
    func duplicatesAndNone() {
        #expect(throws: BenchError(.backendFailed, "two backends are named 'swift': each needs a name of its own")) {
            try BackendNames.check(["swift", "sodium", "swift"])
        }
        #expect(throws: BenchError(.backendFailed, "no backends to measure: give Bench.main(backends:) at least one")) {
            try BackendNames.check([])
        }
    }
}
