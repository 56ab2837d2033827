import Testing

@testable import PKCEBenchCore

@Suite("The commit a run records")
struct RunEnvironmentTests {
    @Test("The build's commit when the executable recorded one, else the working tree's, and which it was")
    func commitSource() {
        let built = RunEnvironment.capture(libraries: [:], buildCommit: "1a2b3c4-dirty")
        #expect(built.commit == "1a2b3c4-dirty" && built.commitSource == .build)
        #expect(built.runID.contains("-1a2b3c4-dirty-"))
        for unrecorded in [nil, ""] as [String?] {
            let run = RunEnvironment.capture(libraries: [:], buildCommit: unrecorded)
            #expect(run.commit == RecordedCommit.checkedOut().description && run.commitSource == .workingTree)
        }
    }
}
