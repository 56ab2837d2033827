import PKCEBenchCore
import Testing

@Suite("The grammars of what a run records: commit, run id, timestamp")
struct RecordedFieldsTests {
    @Test(
        "A commit is 4 to 64 lowercase hex digits, -dirty or not, unknown or empty; nothing git would read as more",
        arguments: [
            ("a11f3bc", true), ("a11f3bc-dirty", true), ("unknown", true), ("", true),
            (String(repeating: "f", count: 64), true), (String(repeating: "f", count: 64) + "-dirty", true),
            ("abc", false), (String(repeating: "f", count: 65), false), ("A11F3BC", false),
            ("origin/other", false), ("HEAD~1", false), ("--output=x", false), ("a11f3bc-dirty-dirty", false),
            ("a11f3bc\n", false), ("a11f3bc ", false), ("g123456", false),
        ])
    func commit(text: String, valid: Bool) {
        #expect(RecordedFields.isCommit(text) == valid)
        #expect(RecordedFields.isKnownCommit(text) == (valid && !text.isEmpty && text != "unknown"))
    }

    @Test("A run id is <timestamp>-<commit>-<8 hex digits>, -baseline or not")
    func runID() {
        for valid in [
            "20261122T041556.042Z-5106788-4f0c2a9e", "20261126T104623.740Z-a11f3bc-dirty-bae315ed",
            "20261122T041556.042Z-unknown-4f0c2a9e", "20261122T041556.042Z-5106788-4f0c2a9e-baseline",
            "20261122T041556.042Z--4f0c2a9e",
        ] {
            #expect(RecordedFields.isRunID(valid), "\(valid)")
        }
        for invalid in [
            "20261122T041556.042Z-5106788", "20261122T041556Z-5106788-4f0c2a9e", "run-1",
            "20261122T041556.042Z-origin/x-4f0c2a9e", "20261122T041556.042Z-5106788-4F0C2A9E",
            "20261122T041556.042Z-5106788-4f0c2a9e-baseline-baseline", "../20261122T041556.042Z-5106788-4f0c2a9e",
            "20261122T041556.042Z-" + String(repeating: "a", count: 200) + "-4f0c2a9e",
        ] {
            #expect(!RecordedFields.isRunID(invalid), "\(invalid)")
        }
    }

    @Test("A timestamp is ISO 8601 in UTC with milliseconds")
    func timestamp() {
        #expect(RecordedFields.isTimestamp("2026-11-22T04:15:56.042Z"))
        for invalid in ["2026-11-22T04:15:56Z", "2026-11-22T04:15:56.042+01:00", "2026-11-22 04:15:56.042Z", ""] {
            #expect(!RecordedFields.isTimestamp(invalid), "\(invalid)")
        }
    }

    @Test("A build commit that is not a commit is recorded as unknown, and the run id stays in its grammar")
    func capturedCommit() {
        let environment = RunEnvironment.capture(libraries: [:], buildCommit: "origin/other")
        #expect(environment.commit == "unknown")
        #expect(environment.commitSource == .build)
        #expect(RecordedFields.isRunID(environment.runID), "\(environment.runID)")
        #expect(RecordedFields.isTimestamp(environment.timestamp))
        let kept = RunEnvironment.capture(libraries: [:], buildCommit: "a11f3bc-dirty")
        #expect(kept.commit == "a11f3bc-dirty" && RecordedFields.isRunID(kept.runID))
    }
}
