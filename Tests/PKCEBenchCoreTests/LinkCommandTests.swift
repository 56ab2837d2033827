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

    @Test("A manifest that is not there, has no link of the product or links without lld, or no executable: one line")
    func refusals() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        func refusal(product: String) -> String? {
            do {
                _ = try LinkCommand(
                    executable: "/p/bench", product: product, configuration: "release", scratch: directory)
                return nil
            } catch {
                return error.kind == .buildFailed ? error.message : "\(error.kind)"
            }
        }
        #expect(refusal(product: "bench")?.hasSuffix("release.yaml cannot be read") == true)
        try Self.manifest.write(
            to: directory.appendingPathComponent("release.yaml"), atomically: true, encoding: .utf8)
        // The manifest is right; the executable it names is not there to list the functions of.
        #expect(refusal(product: "bench")?.hasPrefix("cannot list the functions of /p/bench: ") == true)
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
        // The build's own link, in the default order.
        let built = try ChildProcess.run(swiftc, Array(arguments.dropFirst()))
        #expect(built.succeeded, "\(built.error)")
        let asBuilt = try Data(contentsOf: URL(fileURLWithPath: arguments[2]))
        let command = try LinkCommand(
            executable: arguments[2], product: "tiny", configuration: "release", scratch: directory)

        let ours = command.functions.filter { $0.contains("4tiny2f") }
        #expect(ours.count == 8, "\(command.functions)")
        var outputs: [String] = []
        var programs: [Data] = []
        for seed: UInt32 in [1, 2] {
            let linked = directory.appendingPathComponent("tiny-\(seed)").path
            try command.link(to: linked, seed: seed)
            outputs.append(try ChildProcess.run(linked, []).output)
            programs.append(try Data(contentsOf: URL(fileURLWithPath: linked)))
            // lld placed the eight functions in the order the seed gives.
            let placed = try LinkCommand.functions(in: linked, linkedBy: swiftc)
            let addresses = try Self.addresses(in: linked, of: Set(ours))
            #expect(placed.count == command.functions.count)
            #expect(ours.sorted { addresses[$0]! < addresses[$1]! } == LinkCommand.order(ours, seed: seed))
            // The code, and the data written after it, each start a page, whatever came before.
            let segments = try Self.loadSegments(of: linked)
            let code = try #require(segments.firstIndex { $0.flags & 1 != 0 })
            let data = try #require(segments.firstIndex { $0.flags & 2 != 0 })
            #expect(code > 0 && data > code, "\(segments)")
            #expect(segments[code].address % 4096 == 0 && segments[data].address % 4096 == 0, "\(segments)")
        }
        #expect(outputs[0] == outputs[1] && !outputs[0].isEmpty)
        #expect(programs[0] != programs[1])
        #expect(try Data(contentsOf: URL(fileURLWithPath: arguments[2])) == asBuilt, "the build's own is left alone")
    }

    @Test("Kept elsewhere: every path under the build directory moves, the objects list with it, nothing else")
    func relocated() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let root = directory.appendingPathComponent("release").path
        let list = root + "/bench.product/Objects.LinkFileList"
        try FileManager.default.createDirectory(
            atPath: root + "/bench.product", withIntermediateDirectories: true)
        try "\(root)/A.build/a.swift.o\n'\(root)/B.build/b.c.o'\n".write(
            toFile: list, atomically: true, encoding: .utf8)
        let command = LinkCommand(
            executable: root + "/bench",
            arguments: ["/opt/swift/usr/bin/swiftc", "-L", root, "-o", root + "/bench", "@" + list, "-use-ld=lld"],
            functions: ["main"])
        let moved = try command.relocated(into: "/kept")
        #expect(moved.executable == "/kept/build/bench")
        #expect(
            moved.arguments == [
                "/opt/swift/usr/bin/swiftc", "-L", "/kept/build", "-o", "/kept/build/bench",
                "@/kept/build/bench.product/Objects.LinkFileList", "-use-ld=lld",
            ])
        #expect(moved.copies.map(\.source) == [root + "/A.build/a.swift.o", root + "/B.build/b.c.o"])
        #expect(moved.copies.map(\.destination) == ["/kept/build/A.build/a.swift.o", "/kept/build/B.build/b.c.o"])
        #expect(moved.fileList == "'/kept/build/A.build/a.swift.o'\n'/kept/build/B.build/b.c.o'\n")
        #expect(moved.fileListPath == "/kept/build/bench.product/Objects.LinkFileList")

        let withoutList = LinkCommand(
            executable: root + "/bench", arguments: ["swiftc", "-o", root + "/bench"], functions: ["main"])
        #expect(throws: BenchError.self) { try withoutList.relocated(into: "/kept") }
    }

    @Test(
        "A kept command is checked as it is read: the recorded driver, lld, one -o to the kept product, objects inside")
    func keptCommandChecked() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let kept = directory.appendingPathComponent("c-debug-bench-aligned-sections.kept").path
        let list = kept + "/build/bench.product/Objects.LinkFileList"
        try FileManager.default.createDirectory(
            atPath: kept + "/build/bench.product", withIntermediateDirectories: true)
        try "'\(kept)/build/A.build/a.swift.o'\n".write(toFile: list, atomically: true, encoding: .utf8)
        let driver = "/opt/swift/usr/bin/swiftc"
        let good = [driver, "-L", kept + "/build", "-o", kept + "/build/bench", "@" + list, "-use-ld=lld"]
        func refusal(_ arguments: [String]) -> String? {
            do {
                _ = try LinkCommand(kept: kept, product: "bench", arguments: arguments, driver: driver)
                return nil
            } catch {
                return error.kind == .buildFailed ? error.message : "another kind: \(error)"
            }
        }
        // Past the checks, only the executable is missing: listing its functions fails.
        #expect(refusal(good)?.contains("cannot list the functions") == true)
        for (arguments, reason) in [
            (["/usr/bin/true"], "runs /usr/bin/true, not the driver"),
            (["/bin/sh", "-c", "touch x"], "runs /bin/sh, not the driver"),
            ([], "is empty"),
            (good.filter { $0 != "-use-ld=lld" }, "does not link with lld"),
            (good + ["-use-ld=/planted/ld"], "does not link with lld"),
            (Array(good.prefix(3)) + ["-use-ld=lld", "-o"], "does not write exactly one output"),
            (good + ["-o", kept + "/build/bench"], "does not write exactly one output"),
            (
                good.map { $0 == kept + "/build/bench" ? directory.path + "/elsewhere" : $0 },
                "does not write exactly one output"
            ),
            (good.map { $0.hasPrefix("@") ? "@" + kept + "/build/../../x.list" : $0 }, "outside"),
            (good.map { $0.hasPrefix("@") ? "@/etc/passwd" : $0 }, "outside"),
            // Arguments that would run or link code from elsewhere, which SwiftPM's link never has.
            (good + ["-tools-directory", "/planted"], "passes -tools-directory"),
            (good + ["-Xclang-linker", "-B/planted"], "passes -Xclang-linker"),
            (good + ["-Xlinker", "--plugin=/planted/plugin.so"], "passes -Xlinker"),
            (good + ["/planted/object.o"], "passes /planted/object.o"),
            // Every Linux has /tmp, a directory anyone may write: a library search path there is refused.
            (good + ["-L", "/tmp"], "passes -L"),
            (good + ["-Xfrontend", "-load-plugin-library"], "passes -Xfrontend"),
        ] {
            let message = refusal(arguments)
            #expect(message?.contains(reason) == true, "\(arguments): \(message ?? "accepted")")
        }
        // What SwiftPM's link with the layout flags has passes; the checks above were each of one argument.
        let swiftPM =
            good + [
                "-L/usr/lib", "-lsodium", "-lstdc++", "-module-name", "bench", "-emit-executable", "-Xlinker",
                "--gc-sections", "-Xlinker", "--defsym", "-Xlinker", "main=bench_main", "-Xlinker", "-rpath=$ORIGIN",
                "-target", "x86_64-unknown-linux-gnu", "-g", "-Xfrontend", "-function-sections", "-Xllvm",
                "-align-all-functions=6",
            ]
        #expect(LinkCommand.unexpectedArgument(in: swiftPM, kept: kept) == nil)
        // A response file's line that the driver would split into arguments.
        try "'\(kept)/build/a.o' '-tools-directory' '/planted'\n".write(
            toFile: list, atomically: true, encoding: .utf8)
        #expect(refusal(good)?.contains("which a response file would read as more than a path") == true)
        // An object that climbs out of the kept build.
        try "'\(kept)/build/../../../etc/x.o'\n".write(toFile: list, atomically: true, encoding: .utf8)
        #expect(refusal(good)?.contains("links \(kept)/build/../../../etc/x.o, outside") == true)

        // And relocating refuses a path that climbs, rather than keeping it outside.
        let root = directory.appendingPathComponent("release").path
        let climbing = LinkCommand(
            executable: root + "/bench",
            arguments: [driver, "-o", root + "/bench", "@" + root + "/../x/list", "-use-ld=lld"], functions: ["main"])
        #expect(throws: BenchError.self) { try climbing.relocated(into: kept) }
        // A command whose -o is last is refused, not trapped on.
        let dangling = LinkCommand(executable: root + "/bench", arguments: [driver, "-o"], functions: ["main"])
        #expect(throws: BenchError.self) { try dangling.relocated(into: kept) }
        #expect(throws: BenchError.self) { try dangling.link(to: directory.path + "/out", seed: 1) }
    }

    @Test(
        "Keeping refuses what reading the kept command refuses: an object outside the build or climbing, a list elsewhere"
    )
    func keepingRefusesWhatReadingRefuses() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // As SwiftPM and the cache lay them out: the kept build is outside the package's .build.
        let root = directory.appendingPathComponent("p/.build/x86_64-unknown-linux-gnu/release").path
        let kept = directory.appendingPathComponent("cache/c-release-bench-aligned-sections.kept").path
        try FileManager.default.createDirectory(atPath: root + "/bench.product", withIntermediateDirectories: true)
        let inside = root + "/bench.product/Objects.LinkFileList"
        let elsewhere = directory.appendingPathComponent("Objects.LinkFileList").path
        /// What relocating a link whose objects list, at `list`, holds an object of the build and `line` throws.
        func refusal(listing line: String, in list: String = inside) throws -> BenchError? {
            try "'\(root)/A.build/a.swift.o'\n\(line)\n".write(toFile: list, atomically: true, encoding: .utf8)
            let command = LinkCommand(
                executable: root + "/bench",
                arguments: ["/opt/swift/usr/bin/swiftc", "-o", root + "/bench", "@" + list, "-use-ld=lld"],
                functions: ["main"])
            do {
                _ = try command.relocated(into: kept)
                return nil
            } catch {
                return error
            }
        }
        let objectOfTheBuild = try refusal(listing: "'\(root)/B.build/b.c.o'")
        #expect(objectOfTheBuild == nil, "an object of the build is kept: \(objectOfTheBuild?.message ?? "")")
        for (line, list, reason) in [
            ("../x.o", inside, "links ../x.o, outside \(root)"),
            ("'../x.o'", inside, "links ../x.o, outside \(root)"),
            ("\(root)/A.build/../../x.o", inside, "links \(root)/A.build/../../x.o, outside \(root)"),
            ("/usr/lib/swiftrt.o", inside, "links /usr/lib/swiftrt.o, outside \(root)"),
            ("\(root)/A.build/a b.o", inside, "which a response file would read as more than a path"),
            ("'\(root)/B.build/b.c.o'", elsewhere, "reads \(elsewhere), outside \(root)"),
        ] {
            let refused = try refusal(listing: line, in: list)
            #expect(refused?.kind == .buildFailed, "\(line): \(refused?.message ?? "kept")")
            #expect(
                refused?.message.hasPrefix("cannot keep the build of \(root)/bench: its link ") == true
                    && refused?.message.contains(reason) == true,
                "\(line): \(refused?.message ?? "kept")")
        }
    }

    @Test("One seed orders the functions two builds share alike, whatever else either holds")
    func sharedOrder() {
        let names = (0..<200).map { "$s4PKCE8functionyy\($0)F" }
        let fewer = names.filter { !$0.hasSuffix("7F") }
        for seed: UInt32 in [0, 1, 2, .max] {
            let order = LinkCommand.order(names, seed: seed)
            #expect(Set(order) == Set(names) && order.count == names.count)
            #expect(LinkCommand.order(fewer, seed: seed) == order.filter(Set(fewer).contains))
            #expect(LinkCommand.order(names.reversed(), seed: seed) == order, "the order of the list does not count")
        }
        let orders = Set([0, 1, 2, 3].map { LinkCommand.order(names, seed: $0) })
        #expect(orders.count == 4, "each seed its own order")
    }

    /// The loadable segments of an ELF64 executable, in the order of its program headers: each
    /// one's address in memory and its flags (1 execute, 2 write, 4 read).
    static func loadSegments(of executable: String) throws -> [(address: UInt64, flags: UInt32)] {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: executable)))
        func integer(at offset: Int, bytes count: Int) -> UInt64 {
            (0..<count).reversed().reduce(0) { $0 << 8 | UInt64(bytes[offset + $1]) }
        }
        let table = Int(integer(at: 0x20, bytes: 8))
        let size = Int(integer(at: 0x36, bytes: 2))
        let count = Int(integer(at: 0x38, bytes: 2))
        return (0..<count).map { table + $0 * size }.filter { integer(at: $0, bytes: 4) == 1 }.map {
            (address: integer(at: $0 + 0x10, bytes: 8), flags: UInt32(integer(at: $0 + 4, bytes: 4)))
        }
    }

    /// The address of each function in `names` that `executable` defines.
    static func addresses(in executable: String, of names: Set<String>) throws -> [String: UInt64] {
        let listed = try ChildProcess.run(executableInPath("llvm-nm") ?? "/usr/bin/nm", ["--format=posix", executable])
        var addresses: [String: UInt64] = [:]
        for line in listed.output.split(separator: "\n") {
            let fields = line.split(separator: " ")
            if fields.count >= 3, names.contains(String(fields[0])) {
                addresses[String(fields[0])] = UInt64(fields[2], radix: 16)
            }
        }
        return addresses
    }
}
