import PKCEBenchCore
import Testing

@Suite("The facts a run records, as values: its commit, its id, its host")
struct RecordedFactsTests {
    @Test(
        "A commit's text reads back as itself; what is not one is refused, or read as unknown from older rows",
        arguments: ["a11f3bc", "a11f3bc-dirty", "unknown", "", String(repeating: "f", count: 64) + "-dirty"])
    func commitText(text: String) throws {
        let commit = try #require(RecordedCommit(exactly: text))
        #expect(commit.description == text)
        #expect(RecordedCommit(recorded: text) == commit)
        #expect(commit.isKnown == (text != "unknown" && !text.isEmpty))
        #expect(commit.isClean == (commit.isKnown && !text.hasSuffix("-dirty")))
    }

    @Test("Text that is not a commit")
    func notACommit() {
        for text in ["origin/other", "abc", "A11F3BC", "a11f3bc-dirty-dirty", "-dirty"] {
            #expect(RecordedCommit(exactly: text) == nil, "\(text)")
            #expect(RecordedCommit(recorded: text) == .unknown, "\(text)")
        }
    }

    @Test("A commit matches a hash or a prefix of at least 4 digits either way, dirty or not; an unknown one none")
    func matching() throws {
        let dirty = try #require(RecordedCommit(exactly: "a11f3bc-dirty"))
        #expect(dirty.matches("a11f3bc0123456789"))
        #expect(dirty.matches("a11f"))
        #expect(!dirty.matches("a11"))
        #expect(!dirty.matches("b11f3bc"))
        #expect(!RecordedCommit.unknown.matches("a11f3bc"))
        #expect(RecordedCommit(hash: "a11f3bc", isDirty: true) == dirty)
        #expect(RecordedCommit(hash: "origin/x") == nil)
    }

    @Test("A run id takes apart into its timestamp, commit, nonce and side, and puts back together as it was")
    func runID() throws {
        for text in [
            "20261122T041556.042Z-5106788-4f0c2a9e", "20261126T104623.740Z-a11f3bc-dirty-bae315ed",
            "20261122T041556.042Z-unknown-4f0c2a9e-baseline", "20261122T041556.042Z--4f0c2a9e",
        ] {
            let id = try #require(RunID(text), "\(text)")
            #expect(id.description == text)
        }
        let id = try #require(RunID("20261126T104623.740Z-a11f3bc-dirty-bae315ed-baseline"))
        #expect(id.timestamp == "20261126T104623.740Z" && id.nonce == "bae315ed" && id.isBaseline)
        #expect(id.commit == RecordedCommit(hash: "a11f3bc", isDirty: true))
        #expect(RunID("run-1") == nil && RunID("20261122T000000.000Z-release/1.0") == nil)

        let new = RunID(startedAt: "2026-11-22T04:15:56.042Z", commit: .unknown)
        #expect(RecordedFields.isRunID(new.description), "\(new)")
        #expect(new.timestamp == "20261122T041556.042Z" && new.nonce.utf8.count == 8)
    }

    @Test("Hosts: one machine when every fact is alike, cores and target CPU too")
    func hosts() {
        let host = Host(cpu: "AMD EPYC", cpuFlags: "sha_ni avx2", cores: 2, build: .release, targetCPU: "x86-64")
        let others: [(inout Host) -> Void] = [
            { $0.cpu = "Intel Xeon" }, { $0.cpuFlags = "sha_ni" }, { $0.cores = 4 }, { $0.build = .debug },
            { $0.targetCPU = "x86-64-v3" },
        ]
        for change in others {
            var other = host
            change(&other)
            #expect(host != other && Set([host, other]).count == 2)
        }
        #expect(host == Host(cpu: "AMD EPYC", cpuFlags: "sha_ni avx2", cores: 2, build: .release, targetCPU: "x86-64"))
    }

    @Test("A build configuration is recorded by its name")
    func buildConfiguration() {
        #expect(BuildConfiguration(rawValue: "release") == .release && BuildConfiguration(rawValue: "debug") == .debug)
        #expect(BuildConfiguration(rawValue: "Release") == nil)
        #expect("\(BuildConfiguration.release) build" == "release build")
    }
}
