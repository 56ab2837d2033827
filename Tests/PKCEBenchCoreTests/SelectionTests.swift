import Foundation
import PKCE
import PKCEBenchCore
import PKCEBenchTestSupport
import Testing

@Suite("Case selection")
struct SelectionTests {
    static let names = ["openssl", "sodium", "swift", "crypto"]

    @Test("The default suite has every operation's default sizes for every backend")
    func defaults() throws {
        let cases = try Selection().cases(from: [SwiftBackend(), WrongDigestBackend()])
        // verifier 2 + verifier-string 1 + challenge 4 + challenge-string 1 + challenge-batch 2 + verify 1
        // + sha256 4 + random 1 = 16 per backend.
        #expect(cases.count == 32)
        #expect(cases.filter { $0.operation == .challenge }.map(\.size) == [43, 43, 55, 55, 56, 56, 128, 128])
        #expect(Set(cases.map(\.threads)) == [1])
    }

    @Test("Backends, operations, sizes and threads narrow the suite")
    func narrowed() throws {
        let selection = Selection(backends: ["swift"], operations: [.sha256], sizes: [0, 100], threads: 3)
        let cases = try selection.cases(from: [SwiftBackend(), WrongDigestBackend()])
        #expect(cases.map(\.key.description) == ["sha256/swift/0×3", "sha256/swift/100×3"])
    }

    @Test("A name or size given twice selects its cases once")
    func duplicates() throws {
        let selection = Selection(
            backends: ["swift", "swift"], operations: [.sha256, .random, .sha256], sizes: [64, 64, 32])
        let cases = try selection.cases(from: [SwiftBackend()])
        #expect(
            cases.map(\.key.description) == [
                "sha256/swift/64", "sha256/swift/32", "random/swift/64", "random/swift/32",
            ])
        #expect(Set(cases.map(\.key)).count == cases.count)
    }

    @Test("A scoped size replaces its operation's sizes and, alone, selects its operation")
    func scopedSizes() throws {
        let backends: [any PKCEBackend] = [SwiftBackend()]
        let alone = Selection(scopedSizes: [.sha256: [1024, 0], .challenge: [43]])
        try alone.validate(available: Self.names)
        #expect(
            try alone.cases(from: backends).map(\.description) == [
                "challenge/swift/43", "sha256/swift/1024", "sha256/swift/0",
            ])
        let beside = Selection(operations: [.verify, .sha256], scopedSizes: [.sha256: [7]])
        #expect(try beside.cases(from: backends).map(\.description) == ["verify/swift/43", "sha256/swift/7"])
        let withUnscoped = Selection(operations: [.verifier, .random], sizes: [64], scopedSizes: [.random: [8]])
        #expect(try withUnscoped.cases(from: backends).map(\.description) == ["verifier/swift/64", "random/swift/8"])
    }

    @Test("Keys select exactly their cases, with the other options; a selection without keys still decodes")
    func keys() throws {
        let sha = CaseKey(backend: "wrong-digest", operation: .sha256, size: 64, threads: 1)
        let challenge = CaseKey(backend: "swift", operation: .challenge, size: 43, threads: 1)
        // A size no operation measures by default: a key names it, and it is measured.
        let small = CaseKey(backend: "swift", operation: .sha256, size: 3, threads: 1)
        let backends: [any PKCEBackend] = [SwiftBackend(), WrongDigestBackend()]
        let selection = Selection(keys: [sha, challenge, small, sha])
        #expect(selection.keys == [sha, challenge, small])
        #expect(try selection.cases(from: backends).map(\.key) == [challenge, small, sha])
        var narrowed = selection
        narrowed.skips = ["^challenge/"]
        #expect(try narrowed.cases(from: backends).map(\.key) == [small, sha])
        let matches = try selection.rowMatcher()
        #expect(matches(sha) && !matches(CaseKey(backend: "swift", operation: .sha256, size: 64, threads: 1)))

        // A build from before keys sends none: the decoded selection selects by its other options.
        let older =
            #"{"backends":["swift"],"operations":[],"sizes":[],"scopedSizes":[],"filters":[],"skips":[],"threads":1}"#
        let decoded = try JSONDecoder().decode(Selection.self, from: Data(older.utf8))
        #expect(decoded == Selection(backends: ["swift"]))
    }

    @Test("Two backends' sides: the baseline side measures each current case's counterpart, by key")
    func backendSides() throws {
        let sides = Sides.backends(baseline: "wrong-digest", current: "swift", executable: "/x/bench")
        let backends: [any PKCEBackend] = [SwiftBackend(), WrongDigestBackend()]
        let chosen = Selection(backends: ["swift"], operations: [.sha256], filters: ["/64×"], threads: 2)
        let current = try chosen.cases(from: backends)
        let baseline = sides.selection(chosen, on: .baseline, for: current)
        #expect(
            try baseline.cases(from: backends).map(\.key)
                == current.map { sides.key(of: $0.key, on: .baseline) })
        #expect(current.map { sides.key(of: $0.key, on: .baseline).description } == ["sha256/wrong-digest/64×2"])
        #expect(sides.executable(of: .baseline) == "/x/bench" && sides.executable(of: .current) == "/x/bench")
        #expect(sides.comparedBackend == "swift-vs-wrong-digest")
        #expect([sides.name(of: .baseline), sides.name(of: .current)] == ["wrong-digest", "swift"])

        // Sizes that are no operation's defaults: every case has its counterpart (`bench pair
        // --size 0,3` once measured only the current side of them).
        let sized = Selection(
            backends: ["swift"], operations: [.sha256, .challenge], scopedSizes: [.sha256: [0, 3], .challenge: [43]])
        let sizedCurrent = try sized.cases(from: backends)
        #expect(sizedCurrent.count == 3)
        #expect(
            Set(try sides.selection(sized, on: .baseline, for: sizedCurrent).cases(from: backends).map(\.key))
                == Set(sizedCurrent.map { sides.key(of: $0.key, on: .baseline) }))

        let builds = Sides.builds(baseline: "/main/bench", current: "/x/bench")
        let selection = Selection(filters: ["/64$"])
        #expect(builds.selection(selection, on: .baseline, for: current) == selection)
        #expect(builds.key(of: current[0].key, on: .baseline) == current[0].key)
        #expect(builds.comparedBackend == nil && builds.executable(of: .baseline) == "/main/bench")
    }

    @Test("--filter admits names matching any filter, --skip removes names matching any skip")
    func patterns() throws {
        let selection = Selection(filters: ["^sha256/", "challenge-batch/.*/128"], skips: ["crypto", "/(43|64)$"])
        try selection.validate(available: Self.names)
        let names = try selection.cases(from: [SwiftBackend(), WrongDigestBackend()]).map(\.description)
        #expect(names.allSatisfy { $0.hasPrefix("sha256/") || $0.hasPrefix("challenge-batch/") })
        #expect(names.contains("challenge-batch/swift/128") && names.contains("sha256/swift/1024"))
        #expect(!names.contains { $0.hasSuffix("/43") || $0.hasSuffix("/64") })

        // Unchecked by validate, a pattern that is not a regular expression throws; it never traps.
        let unchecked = Selection(filters: ["(unclosed"])
        #expect(throws: BenchError.self) { try unchecked.cases(from: [SwiftBackend()]) }
        #expect(throws: BenchError.self) { try unchecked.rowMatcher() }

        let matches = try selection.rowMatcher()
        #expect(matches(CaseKey(backend: "swift", operation: .sha256, size: 1000, threads: 1)))
        #expect(!matches(CaseKey(backend: "crypto", operation: .sha256, size: 1000, threads: 1)))
        #expect(!matches(CaseKey(backend: "swift", operation: .challenge, size: 128, threads: 1)))
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
            message:
                "size 32 is invalid for verifier: it takes 43 to 128 characters; scope a size to one operation with --size OPERATION:SIZE"
        ),
        Invalid(
            selection: Selection(operations: [.challenge], sizes: [42], scopedSizes: [.challenge: [43]]),
            message: "--size 42 applies to no operation: each selected operation has OPERATION:SIZE sizes"),
        Invalid(
            selection: Selection(scopedSizes: [.random: [0]]),
            message: "size 0 is invalid for random: it takes 1 to 1048576 bytes"),
        Invalid(
            selection: Selection(operations: [.verify], scopedSizes: [.random: [1]]),
            message: "--size random:… names an operation that --operation does not select"),
        Invalid(
            selection: Selection(skips: ["/"]),
            message: "--filter and --skip leave no case to measure; 'bench list' shows the names"),
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
