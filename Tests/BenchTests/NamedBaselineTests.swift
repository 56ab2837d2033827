import Foundation
import PKCEBenchCore
@testable import PKCEBenchReports
import PKCEBenchTestSupport
import Testing

@testable import PKCEBenchKit

@Suite("Named baselines: --save-baseline NAME, --baseline NAME, bench baseline --name", .serialized)
struct NamedBaselineTests {
    static let small = ["--quick", "--operation", "random", "--processes", "1", "--output", "out"]

    @Test("--save-baseline NAME keeps baseline-NAME.csv beside baseline.csv; --baseline NAME compares with it")
    func saveAndCompare() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let saved = try bench(Self.small + ["--save-baseline", "main"], in: directory)
        #expect(saved.status == 0, "\(saved.stderr)")
        let bare = try bench(["--save-baseline"] + Self.small, in: directory)
        #expect(bare.status == 0, "\(bare.stderr)")
        let files = try listing(directory.appendingPathComponent("out"))
        #expect(files.contains("baseline-main.csv") && files.contains("baseline-main.samples.csv"))
        #expect(files.contains("baseline.csv") && files.contains("baseline.samples.csv"))
        let main = try ReportFiles.readSummary(at: directory.appendingPathComponent("out/baseline-main.csv").path)
        let unnamed = try ReportFiles.readSummary(at: directory.appendingPathComponent("out/baseline.csv").path)
        #expect(main.first?.environment.runID != unnamed.first?.environment.runID)

        // A threshold no real change reaches: the verdicts are unchanged or inconclusive, never regressed.
        let compared = try bench(Self.small + ["--baseline", "main", "--threshold", "900"], in: directory)
        #expect(compared.status == 0 || compared.status == 2, "\(compared.stderr)")
        #expect(compared.stdout.contains("baseline ns/op"))
        let byPath = try bench(
            Self.small + ["--baseline", "out/baseline-main.csv", "--threshold", "900", "--format", "json"],
            in: directory)
        #expect(byPath.stdout.contains(main[0].environment.runID))
    }

    @Test("bench baseline --name measures into, or promotes a run to, a named baseline")
    func baselineCommand() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let measured = try bench(["baseline", "--name", "v1.2"] + Self.small, in: directory)
        #expect(measured.status == 0, "\(measured.stderr)")
        let promoted = try bench(["baseline", "out/latest.csv", "--name", "copy", "--output", "out"], in: directory)
        #expect(promoted.status == 0, "\(promoted.stderr)")
        #expect(promoted.stdout.hasPrefix("out/latest.csv is now baseline 'copy': "))
        let files = try listing(directory.appendingPathComponent("out"))
        #expect(files.contains("baseline-v1.2.csv") && files.contains("baseline-copy.samples.csv"))
        #expect(!files.contains("baseline.csv"))
    }

    @Test("A name that is not one is 64, a named baseline that is not there 66; nothing is measured or written")
    func failures() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        for arguments in [
            ["--save-baseline", "a b"], ["--baseline", "a b"], ["--save-baseline=-x"], ["baseline", "--name", "../up"],
        ] {
            let result = try bench(arguments + Self.small, in: directory)
            #expect(result.status == 64, "\(arguments): \(result.stderr)")
            #expect(result.stderrLines.count == 1)
            #expect(result.stderrLines.first?.contains("is not 1 to 64 letters, digits") == true, "\(result.stderr)")
        }
        let missing = try bench(Self.small + ["--baseline", "nosuch"], in: directory)
        #expect(missing.status == 66)
        #expect(missing.stderrLines == ["bench: out/baseline-nosuch.csv: no such file"])
        #expect(try listing(directory).isEmpty)
    }

    @Test("--save-baseline NAME becomes the flag and the hidden name, attached; a bare --save-baseline stays as it is")
    func normalized() {
        #expect(BenchCommand.normalized(["--save-baseline"]) == ["--save-baseline"])
        #expect(BenchCommand.normalized(["--save-baseline", "--quick"]) == ["--save-baseline", "--quick"])
        #expect(
            BenchCommand.normalized(["--save-baseline", "main", "--quick"])
                == ["--save-baseline", "--save-baseline-name=main", "--quick"])
        #expect(BenchCommand.normalized(["--save-baseline=v2"]) == ["--save-baseline", "--save-baseline-name=v2"])
        #expect(BenchCommand.normalized(["--baseline", "main"]) == ["--baseline", "main"])
    }
}
