import PKCE
import PKCEBenchKit
import PKCEBenchTestSupport
import Testing

@Suite("Case selection")
struct SelectionTests {
    static let names = ["openssl", "sodium", "swift", "crypto"]

    @Test("The default suite has every operation's default sizes for every backend")
    func defaults() {
        let cases = Selection().cases(from: [SwiftBackend(), WrongDigestBackend()])
        // verifier 2 + challenge 4 + challenge-batch 2 + verify 1 + sha256 4 + random 1 = 14 per backend.
        #expect(cases.count == 28)
        #expect(cases.filter { $0.operation == .challenge }.map(\.size) == [43, 43, 55, 55, 56, 56, 128, 128])
        #expect(Set(cases.map(\.threads)) == [1])
    }

    @Test("Backends, operations, sizes and threads narrow the suite")
    func narrowed() {
        let selection = Selection(backends: ["swift"], operations: [.sha256], sizes: [0, 100], threads: 3)
        let cases = selection.cases(from: [SwiftBackend(), WrongDigestBackend()])
        #expect(cases.map(\.key.description) == ["sha256/swift/0×3", "sha256/swift/100×3"])
    }

    @Test("A name or size given twice selects its cases once")
    func duplicates() {
        let selection = Selection(
            backends: ["swift", "swift"], operations: [.sha256, .random, .sha256], sizes: [64, 64, 32])
        let cases = selection.cases(from: [SwiftBackend()])
        #expect(cases.map(\.key.description) == ["sha256/swift/64", "sha256/swift/32", "random/swift/64", "random/swift/32"])
        #expect(Set(cases.map(\.key)).count == cases.count)
    }

    struct Invalid: Sendable, CustomTestStringConvertible {
        let selection: Selection
        let message: String
        var testDescription: String { message }
    }

    static let invalid = [
        Invalid(
            selection: Selection(backends: ["swift", "boringssl"]),
            message: "unknown backend 'boringssl'; valid backends: openssl, sodium, swift, crypto"),
        Invalid(
            selection: Selection(operations: [.challenge], sizes: [42]),
            message: "size 42 is invalid for challenge: it takes 43 to 128 characters"),
        Invalid(
            selection: Selection(operations: [.verify], sizes: [129]),
            message: "size 129 is invalid for verify: it takes 43 to 128 characters"),
        Invalid(
            selection: Selection(operations: [.sha256], sizes: [-1]),
            message: "size -1 is invalid for sha256: it takes 0 to 1048576 bytes"),
        Invalid(
            selection: Selection(sizes: [32]),
            message: "size 32 is invalid for verifier: it takes 43 to 128 characters"),
        Invalid(selection: Selection(threads: 0), message: "--threads must be 1 to 256, not 0"),
        Invalid(selection: Selection(threads: 100_000), message: "--threads must be 1 to 256, not 100000"),
        Invalid(
            selection: Selection(operations: [.sha256], sizes: [1 << 20], threads: 32),
            message: "--size 1048576 on 32 threads is more than 16 MiB of input; use fewer threads or a smaller size"),
    ]

    @Test("Invalid selections are usage errors that say what is valid", arguments: invalid)
    func rejected(invalid: Invalid) {
        #expect(throws: BenchError(.usage, invalid.message)) {
            try invalid.selection.validate(available: Self.names)
        }
    }

    @Test("A size valid for every selected operation passes")
    func validSizes() throws {
        try Selection(operations: [.verifier, .challenge], sizes: [43, 128]).validate(available: Self.names)
        try Selection(operations: [.sha256, .random], sizes: [1, 1 << 20]).validate(available: Self.names)
    }
}
