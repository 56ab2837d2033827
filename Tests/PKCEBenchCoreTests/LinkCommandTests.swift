import Foundation
@testable import PKCEBenchCore
import PKCEBenchTestSupport
import Testing

@Suite("Linking a build again in another order of its functions")
struct LinkCommandTests {
    /// Two commands of an llbuild manifest as SwiftPM writes it, the link of `bench` between them.
    static let manifest = """
        commands:
          "C.bench-x86_64-unknown-linux-gnu-release.module":
            tool: shell
            args: ["/usr/bin/swiftc","-module-name","bench"]

          "C.bench-x86_64-unknown-linux-gnu-release.exe":
            tool: shell
            description: "Linking ./.build/x86_64-unknown-linux-gnu/release/bench"
            args: ["/usr/bin/swiftc","-o","/p/.build/x86_64-unknown-linux-gnu/release/bench","-use-ld=lld"]

          "C.benchmarks-x86_64-unknown-linux-gnu-release.exe":
            tool: shell
            args: ["/usr/bin/swiftc","-o","/p/benchmarks"]
        """

    @Test("The manifest's link command of the product, and of no other product or configuration")
    func linkArguments() {
        #expect(
            LinkCommand.linkArguments(in: Self.manifest, product: "bench", configuration: "release")
                == ["/usr/bin/swiftc", "-o", "/p/.build/x86_64-unknown-linux-gnu/release/bench", "-use-ld=lld"])
        #expect(
            LinkCommand.linkArguments(in: Self.manifest, product: "benchmarks", configuration: "release")
                == ["/usr/bin/swiftc", "-o", "/p/benchmarks"])
        #expect(LinkCommand.linkArguments(in: Self.manifest, product: "bench", configuration: "debug") == nil)
        #expect(LinkCommand.linkArguments(in: Self.manifest, product: "ben", configuration: "release") == nil)
        // A command without arguments does not lend it the next command's.
        let bare = "  \"C.bench-x-release.exe\":\n    tool: shell\n  \"C.other\":\n    args: [\"/bin/true\"]\n"
        #expect(LinkCommand.linkArguments(in: bare, product: "bench", configuration: "release") == nil)
    }

    @Test("A manifest that is not there, has no link of the product, or links without lld: one line, no link")
    func refusals() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        func refusal(product: String) -> String? {
            do {
                _ = try LinkCommand(
                    executable: "/p/bench", product: product, configuration: "release", scratch: directory)
                return nil
            } catch {
                return error.kind == .backendFailed ? error.message : "\(error.kind)"
            }
        }
        #expect(refusal(product: "bench")?.hasSuffix("release.yaml cannot be read") == true)
        try Self.manifest.write(
            to: directory.appendingPathComponent("release.yaml"), atomically: true, encoding: .utf8)
        #expect(refusal(product: "bench") == nil)
        #expect(refusal(product: "benchmarks")?.hasSuffix("links benchmarks without lld, or to another file") == true)
        #expect(refusal(product: "other")?.hasSuffix("has no command that links other") == true)
    }

    @Test("Linked again with two seeds: two orders of the functions, the same program")
    func relinks() throws {
        guard let swiftc = executableInPath("swiftc") else { return }
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // Eight functions the optimizer keeps, each in its own section.
        let functions = (0..<8).map { "@inline(never) func f\($0)(_ x: Int) -> Int { x &* \($0 + 3) &+ \($0) }" }
        let calls = (0..<8).map { "f\($0)" }.joined(separator: "(") + "(Int(CommandLine.arguments.count))"
        let source = directory.appendingPathComponent("main.swift")
        try (functions + ["print(\(calls + String(repeating: ")", count: 7)))"])
            .joined(separator: "\n").write(to: source, atomically: true, encoding: .utf8)
        let object = directory.appendingPathComponent("main.o").path
        let compiled = try ChildProcess.run(
            swiftc, ["-O", "-c", source.path, "-o", object, "-Xfrontend", "-function-sections", "-module-name", "tiny"])
        #expect(compiled.succeeded, "\(compiled.error)")
        let arguments = [swiftc, "-o", directory.appendingPathComponent("tiny").path, object, "-use-ld=lld"]
        let encoded = String(decoding: try JSONEncoder().encode(arguments), as: UTF8.self)
            .replacingOccurrences(of: "\\/", with: "/")
        try "  \"C.tiny-x86_64-unknown-linux-gnu-release.exe\":\n    args: \(encoded)\n".write(
            to: directory.appendingPathComponent("release.yaml"), atomically: true, encoding: .utf8)
        let command = try LinkCommand(
            executable: arguments[2], product: "tiny", configuration: "release", scratch: directory)

        var outputs: [String] = []
        var programs: [Data] = []
        for seed: UInt32 in [1, 2] {
            let linked = directory.appendingPathComponent("tiny-\(seed)").path
            try command.link(to: linked, seed: seed)
            outputs.append(try ChildProcess.run(linked, []).output)
            programs.append(try Data(contentsOf: URL(fileURLWithPath: linked)))
        }
        #expect(outputs[0] == outputs[1] && !outputs[0].isEmpty)
        #expect(programs[0] != programs[1])
        #expect(!FileManager.default.fileExists(atPath: arguments[2]), "the build's own executable is left alone")
    }
}
