import Foundation
import PKCE
import PKCEBenchReports
import PKCEBenchTestSupport
import Testing

/// A package outside this repository, with a backend of its own, gets the whole harness from the
/// `PKCEBenchKit` product: `Tests/Fixtures/OwnBackend`, built against this checkout.
@Suite(
    "A package of a user's own: its executable calls Bench.main(backends:) with a backend of its own",
    .enabled(if: buildTestsEnabled, "builds a package; set PKCEBENCH_BUILD_TESTS=1 to run it"))
struct OwnBackendPackageTests {
    /// The fixture, copied beside a link named `PKCEBench` to this checkout, as a user's package
    /// and repository would hold it; and its `ownbench`, built once for every test of this process
    /// (``builtOnce``), which runs alike from any directory.
    static func build(in directory: URL) throws -> URL {
        try copyFixture(to: directory)
        return try builtOnce.get()
    }

    /// The fixture's files, and the link to this checkout, in `directory`: `OwnBackend/` beside `PKCEBench`.
    private static func copyFixture(to directory: URL) throws {
        let fixture = DocumentationTests.root.appendingPathComponent("Tests/Fixtures/OwnBackend")
        let package = directory.appendingPathComponent("OwnBackend")
        try FileManager.default.createDirectory(at: package, withIntermediateDirectories: true)
        for item in ["Package.swift", "Sources"] {
            try FileManager.default.copyItem(
                at: fixture.appendingPathComponent(item), to: package.appendingPathComponent(item))
        }
        try FileManager.default.createSymbolicLink(
            at: directory.appendingPathComponent("PKCEBench"), withDestinationURL: DocumentationTests.root)
    }

    /// One debug build of the fixture's `ownbench` for the test process: three suites run it, and
    /// each build of it takes minutes.
    private static let builtOnce: Result<URL, BuildFailure> = {
        do {
            let directory = try temporaryDirectory()
            try copyFixture(to: directory)
            let package = directory.appendingPathComponent("OwnBackend")
            #if PostgreSQL
            // Tests built with the store build the fixture with it too, as a user's package turns it on.
            let manifest = package.appendingPathComponent("Package.swift")
            let dependency = #".package(path: "../PKCEBench")"#
            let text = try String(contentsOf: manifest, encoding: .utf8)
            guard text.contains(dependency) else {
                return .failure(BuildFailure(description: "the fixture's Package.swift no longer has \(dependency)"))
            }
            try text.replacingOccurrences(
                of: dependency, with: #".package(path: "../PKCEBench", traits: ["PostgreSQL"])"#
            ).write(to: manifest, atomically: true, encoding: .utf8)
            #endif
            let built = try WorkflowTests.shell(["swift", "build", "--product", "ownbench"], in: package)
            guard built.status == 0 else {
                return .failure(BuildFailure(description: "swift build of the fixture failed: \(built.output)"))
            }
            return .success(package.appendingPathComponent(".build/debug/ownbench"))
        } catch {
            return .failure(BuildFailure(description: "cannot build the fixture's ownbench: \(error)"))
        }
    }()

    struct BuildFailure: Error, CustomStringConvertible {
        let description: String
    }

    /// Standard error without the warning every debug build gives.
    static func errors(_ result: CommandResult) -> [String] {
        result.stderrLines.filter { !$0.hasPrefix("warning: this is a debug build") }
    }

    @Test(
        "Its backend is in every report of a run, an ab against itself, an export and a count of instructions; wrong, it is refused with 70 in one line naming it and the input, before anything is timed; so are names the harness cannot use"
    )
    func wholeHarness() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let ownbench = try Self.build(in: directory)

        let listed = try bench(["list", "--operation", "sha256", "--size", "64"], in: directory, executable: ownbench)
        #expect(listed.status == 0)
        #expect(listed.stdout == "sha256/urandom/64\nsha256/swift/64\n")

        let run = try bench(
            ["--quick", "--output", "results", "--export-json", "run.json", "-q"], in: directory, executable: ownbench)
        #expect(run.status == 0, "\(run.stderr)")
        let rows = try ReportFiles.readSummary(at: directory.appendingPathComponent("results/latest.csv").path)
        let backends = Set(rows.map(\.key.backend))
        #expect(backends == ["urandom", "swift"])
        // Without the PKCEBenchBuildCommit plugin, a run records its working tree's commit, and says so.
        #expect(rows.allSatisfy { $0.environment.commitSource == .workingTree })
        #expect(rows.allSatisfy { $0.isOK })
        // Every operation of the default suite, for both backends.
        #expect(rows.filter { $0.key.backend == "urandom" }.count == rows.count / 2)
        // Each row records its backend's library, the package's own backend's too.
        for row in rows {
            let expected = row.key.backend == "urandom" ? "/dev/urandom with PKCE's SHA-256" : SwiftBackend().library
            #expect(row.environment.libraries == [row.key.backend: expected])
        }
        for file in ["results/latest.samples.csv", "results/latest.html", "results/latest.svg", "run.json"] {
            let contents = try String(contentsOf: directory.appendingPathComponent(file), encoding: .utf8)
            #expect(contents.contains("urandom"), "\(file)")
        }

        let ab = try bench(
            [
                "ab", ownbench.path, "--quick", "--backend", "urandom", "--operation", "sha256", "--size", "64",
                "--threshold", "50", "--output", "ab", "-q",
            ], in: directory, executable: ownbench)
        #expect(ab.status == 0, "\(ab.stderr)")
        let comparison = try String(
            contentsOf: directory.appendingPathComponent("ab/ab-comparison.csv"), encoding: .utf8)
        #expect(comparison.contains("urandom"))

        let export = try bench(
            ["export", "results/latest.csv", "--format", "bencher"], in: directory, executable: ownbench)
        #expect(export.status == 0)
        #expect(export.stdout.contains(#""sha256/urandom/64""#))

        let counted = try bench(
            [
                "--metric", "instructions", "--backend", "urandom", "--operation", "sha256", "--size", "64",
                "--output", "counted", "--format", "csv", "-q",
            ], in: directory, executable: ownbench)
        #expect(counted.status == 0, "\(counted.stderr)")
        #expect(counted.stdout.contains(",urandom,sha256,64,"))

        // The same backend with a bug: every digest has one bit flipped.
        let environment = ProcessInfo.processInfo.environment.merging(["OWNBENCH_WRONG_SHA256": "1"]) { $1 }
        for arguments in [["--quick", "--output", "wrong"], ["ab", ownbench.path, "--quick", "--output", "wrong-ab"]] {
            let result = try bench(arguments, in: directory, environment: environment, executable: ownbench)
            #expect(result.status == 70)
            let errors = Self.errors(result)
            #expect(errors.count == 1, "\(errors)")
            #expect(
                errors.first?.hasPrefix(
                    "bench: backend urandom failed its correctness check: SHA-256 of \"abc\" is bb7816bf") == true,
                "\(errors)")
            #expect(result.stdout.isEmpty)
        }
        for written in ["wrong/latest.csv", "wrong-ab/ab-comparison.csv"] {
            #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent(written).path))
        }

        // Names a case name cannot carry, or two backends of one name: 70, one line, before anything.
        let names = [
            "Bad Name": "bench: backend name 'Bad Name' is not valid: a name is 1 to 32 lowercase letters, digits, "
                + "'-', '_' and '.', starting with a letter",
            "swift": "bench: two backends are named 'swift': each needs a name of its own",
        ]
        for (name, message) in names {
            let environment = ProcessInfo.processInfo.environment.merging(["OWNBENCH_NAME": name]) { $1 }
            let result = try bench(["--version"], in: directory, environment: environment, executable: ownbench)
            #expect(result.status == 70)
            #expect(result.stderrLines == [message])
        }
    }

    @Test(
        "bench ab --against REF from the package, nested in its repository: REF's build of the same product, once, then reused"
    )
    func againstRevision() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let ownbench = try Self.build(in: directory)
        // A repository whose package is OwnBackend/, beside the link to PKCEBench.
        let environment = ABAgainstTests.environment(caching: directory.appendingPathComponent("home"))
        let package = directory.appendingPathComponent("OwnBackend")
        try WorkflowTests.run(["git", "init", "--quiet", "-b", "main"], in: directory, environment: environment)
        try WorkflowTests.run(
            ["git", "add", "OwnBackend/Package.swift", "OwnBackend/Sources", "PKCEBench"], in: directory,
            environment: environment)
        try WorkflowTests.run(
            ["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "--quiet", "-m", "own backend"],
            in: directory, environment: environment)
        // A worktree of the user's own whose folder is gone: bench must not forget it for them.
        let own = directory.appendingPathComponent("own-worktree")
        try WorkflowTests.run(
            ["git", "worktree", "add", "--quiet", "--detach", own.path, "HEAD"], in: directory,
            environment: environment)
        try FileManager.default.removeItem(at: own)
        let arguments = [
            "ab", "--against", "main", "--quick", "--backend", "urandom", "--operation", "sha256", "--size", "64",
            "--threshold", "50", "--output", "ab",
        ]
        let cache = directory.appendingPathComponent("home/cache/pkcebench/builds")

        let first = try bench(arguments, in: package, environment: environment, executable: ownbench)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stderr.contains("building main ("), "\(first.stderr)")
        #expect(first.stderr.contains("in \(cache.path)"))
        #expect(first.stderr.contains("built main ("), "\(first.stderr)")
        // The checkout's commit is main's: one build serves both sides.
        #expect(first.stderr.contains("reusing the build of HEAD ("), "\(first.stderr)")
        #expect(first.stderr.contains("linked again in a fresh random order"), "\(first.stderr)")
        #expect(first.stdout.contains("code layout: both builds linked again for every pair"), "\(first.stdout)")
        let kept = try FileManager.default.contentsOfDirectory(atPath: cache.path)
            .filter { $0.hasSuffix("-debug-ownbench-aligned-sections.kept") }
        #expect(kept.count == 1, "\(kept)")
        let baseline = try ReportFiles.readSummary(at: package.appendingPathComponent("ab/ab-baseline.csv").path)
        #expect(baseline.map(\.key.description) == ["sha256/urandom/64"])

        let second = try bench(arguments, in: package, environment: environment, executable: ownbench)
        #expect(second.status == 0, "\(second.stderr)")
        #expect(second.stderr.contains("reusing the build of main ("), "\(second.stderr)")
        #expect(!second.stderr.contains("building main"))

        // The worktree is outside the source tree, which is as it was; the user's own is still listed.
        let status = try WorkflowTests.run(
            ["git", "status", "--porcelain", "--untracked-files=no"], in: directory, environment: environment)
        #expect(status.isEmpty)
        let worktrees = try WorkflowTests.run(
            ["git", "worktree", "list", "--porcelain"], in: directory, environment: environment)
        #expect(worktrees.contains("worktree \(own.path)\n"), "\(worktrees)")
    }
}
