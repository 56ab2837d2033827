import Foundation

/// How SwiftPM linked a build's executable, kept to link the same objects again in another order:
/// lld's `--symbol-ordering-file` places every function (each in its own section) where a seed
/// says. `bench ab --against` links both builds again for every pair of workers, so that a change
/// that only moves code is measured as the variance it is (the article "Comparing two builds" has
/// the design and the measurements).
///
/// A seed orders functions by a hash of the seed and the function's name, so one seed puts the
/// functions two builds share in the same order in both, whatever else either holds: a function
/// added, removed or grown moves the others by its size, not to a new place in a new shuffle.
package struct LinkCommand: Sendable, Equatable {
    /// The executable as built, in SwiftPM's order: its facts and instruction counts are read from it.
    package let executable: String
    /// The compiler driver and its arguments, as the build's manifest gives them.
    let arguments: [String]
    /// The names of the functions the executable defines, as its symbol table lists them.
    let functions: [String]

    /// Reads the command that linked `executable` (a product called `product`, built in
    /// `configuration`) from SwiftPM's build manifest, `<scratch>/<configuration>.yaml`.
    ///
    /// - Throws: ``BenchError``: `.buildFailed` when the manifest has no such command, or one
    ///   that does not link with lld to `executable`.
    package init(executable: String, product: String, configuration: String, scratch: URL) throws(BenchError) {
        let manifest = scratch.appendingPathComponent("\(configuration).yaml")
        func missing(_ reason: String) -> BenchError {
            BenchError(.buildFailed, "cannot link \(executable) again: \(manifest.path) \(reason)")
        }
        guard let text = try? String(contentsOf: manifest, encoding: .utf8) else { throw missing("cannot be read") }
        guard let arguments = Self.linkArguments(in: text, product: product, configuration: configuration) else {
            throw missing("has no command that links \(product)")
        }
        guard arguments.contains("-use-ld=lld"), arguments.filter({ $0 == "-o" }).count == 1,
            let output = arguments.firstIndex(of: "-o").map({ arguments.index(after: $0) }), output < arguments.count,
            URL(fileURLWithPath: arguments[output]).lastPathComponent == product
        else {
            throw missing("links \(product) without lld, or to another file")
        }
        self.executable = executable
        self.arguments = arguments
        self.functions = try Self.functions(in: executable, linkedBy: arguments[0])
    }

    /// A link command kept with its build (``CommitBuilds``) in `directory`: `arguments` as
    /// ``relocated(into:)`` wrote them, checked as strictly as when they were read from SwiftPM's
    /// manifest, since they are run for every pair: `swiftc` the compiler `driver` recorded with
    /// the build, lld, exactly one `-o` (not last) to the kept `product`, every object list and
    /// object in it inside `directory`, with no `..` and nothing a response file would split, and
    /// no argument a SwiftPM link with ``RevisionBuild/layoutFlags`` does not have
    /// (``unexpectedArgument(in:kept:)``).
    ///
    /// - Throws: ``BenchError``: `.buildFailed` naming what fails, or when its functions cannot
    ///   be listed.
    init(kept directory: String, product: String, arguments: [String], driver: String) throws(BenchError) {
        let executable = directory + "/build/" + product
        func refuse(_ reason: String) -> BenchError {
            BenchError(.buildFailed, "refusing to link \(executable) again: its kept command \(reason)")
        }
        guard let first = arguments.first else { throw refuse("is empty") }
        guard first == driver else { throw refuse("runs \(first), not the driver \(driver) that linked it") }
        guard arguments.contains("-use-ld=lld"),
            !arguments.contains(where: { $0.hasPrefix("-use-ld=") && $0 != "-use-ld=lld" })
        else { throw refuse("does not link with lld") }
        let outputs = arguments.indices.filter { arguments[$0] == "-o" }
        guard outputs.count == 1, let output = outputs.first, output + 1 < arguments.count,
            arguments[output + 1] == executable
        else { throw refuse("does not write exactly one output, \(executable)") }
        let lists = arguments.filter { $0.hasPrefix("@") }.map { String($0.dropFirst()) }
        guard !lists.isEmpty else { throw refuse("lists no objects file") }
        for list in lists {
            guard Self.isInside(list, directory) else { throw refuse("reads \(list), outside \(directory)") }
            guard let text = try? String(contentsOfFile: list, encoding: .utf8) else {
                throw refuse("reads \(list), which cannot be read")
            }
            for line in text.split(separator: "\n") {
                let path =
                    line.hasPrefix("'") && line.hasSuffix("'") ? String(line.dropFirst().dropLast()) : String(line)
                guard Self.isInside(path, directory) else { throw refuse("links \(path), outside \(directory)") }
                // The driver splits a response file at spaces and quotes: one line, one path.
                guard !path.contains(where: { $0.isWhitespace || $0 == "'" || $0 == "\"" || $0 == "\\" }) else {
                    throw refuse("links '\(printable(path))', which a response file would read as more than a path")
                }
            }
        }
        if let unexpected = Self.unexpectedArgument(in: arguments, kept: directory) {
            throw refuse("passes \(printable(unexpected)), which a SwiftPM link of the kept build does not")
        }
        self.init(
            executable: executable, arguments: arguments, functions: try Self.functions(in: executable, linkedBy: first)
        )
    }

    /// The first argument after the driver that a link by SwiftPM with ``RevisionBuild/layoutFlags``,
    /// relocated into `directory`, does not have, or `nil`: `-o` and `@` lists (checked apart),
    /// `-L` to a directory inside `directory` or trusted (``RevisionBuild/requireTrusted(_:cache:)``),
    /// `-l` of a library name, `-module-name`, `-target`, `-emit-executable`, `-g`, the linker's
    /// `--gc-sections`, `--defsym NAME=NAME` and `-rpath=$ORIGIN`, and the layout flags' own.
    /// Any other could run or link code from elsewhere (`-tools-directory`, `-Xclang-linker -B`).
    static func unexpectedArgument(in arguments: [String], kept directory: String) -> String? {
        func isName(_ text: String, _ allowed: String = "_") -> Bool {
            !text.isEmpty && text.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || allowed.contains($0)) }
        }
        func isTrustedDirectory(_ path: String) -> Bool {
            isInside(path, directory) || path.hasPrefix("/") && (try? RevisionBuild.requireTrusted(path)) != nil
        }
        // The layout flags' -Xswiftc values, as pairs where one takes a value: -Xfrontend X, -Xllvm X.
        let layout = stride(from: 1, to: RevisionBuild.layoutFlags.count, by: 2).map { RevisionBuild.layoutFlags[$0] }
        let linkerFlags: Set = ["--gc-sections", "--defsym", "-rpath=$ORIGIN"]
        var index = 1
        while index < arguments.count {
            let argument = arguments[index]
            let value = index + 1 < arguments.count ? arguments[index + 1] : nil
            var consumed = 1
            switch argument {
            case "-o":
                consumed = 2
            case "-L" where value.map(isTrustedDirectory) == true:
                consumed = 2
            case "-module-name" where value.map { isName($0) } == true,
                "-target" where value.map { isName($0, "_.-") } == true:
                consumed = 2
            case "-Xlinker"
            where value.map {
                linkerFlags.contains($0)
                    || $0.split(separator: "=").count == 2 && $0.split(separator: "=").allSatisfy { isName(String($0)) }
            } == true:
                consumed = 2
            case "-emit-executable", "-g", "-use-ld=lld":
                break
            case let flag where flag.hasPrefix("@"):
                break
            case let flag where flag.hasPrefix("-L") && flag.count > 2 && isTrustedDirectory(String(flag.dropFirst(2))):
                break
            case let flag where flag.hasPrefix("-l") && isName(String(flag.dropFirst(2)), "_.+-"):
                break
            default:
                // A layout flag, alone or with the value it takes.
                guard let position = layout.firstIndex(of: argument) else { return argument }
                if argument == "-Xfrontend" || argument == "-Xllvm" {
                    guard position + 1 < layout.count, layout[position + 1] == value else { return argument }
                    consumed = 2
                }
            }
            index += consumed
        }
        return nil
    }

    /// Whether `path` is absolute, has no `.` or `..` component, and is inside `directory`.
    static func isInside(_ path: String, _ directory: String) -> Bool {
        path.hasPrefix(directory + "/")
            && !path.split(separator: "/", omittingEmptySubsequences: false).dropFirst().contains {
                $0 == ".." || $0 == "." || $0.isEmpty
            }
    }

    init(executable: String, arguments: [String], functions: [String]) {
        self.executable = executable
        self.arguments = arguments
        self.functions = functions
    }

    /// This command with the build directory it reads from (the directory of its output) moved
    /// into `directory`: what to copy there, the list of objects to write, and the arguments that
    /// then link from the copies.
    func relocated(into directory: String) throws(BenchError) -> Relocated {
        guard let flag = arguments.firstIndex(of: "-o"), flag + 1 < arguments.count else {
            throw BenchError(.buildFailed, "cannot keep the build of \(executable): its link command has no -o")
        }
        let output = arguments[flag + 1]
        let root = URL(fileURLWithPath: output).deletingLastPathComponent().path
        let newRoot = directory + "/build"
        func moved(_ path: String) -> String? {
            path.hasPrefix(root + "/") ? newRoot + path.dropFirst(root.count) : path == root ? newRoot : nil
        }
        // A path that climbs out of the build directory would be copied from, and kept, outside it.
        if let climbing = arguments.first(where: { $0.split(separator: "/").contains("..") }) {
            throw BenchError(.buildFailed, "cannot keep the build of \(executable): its link names \(climbing)")
        }
        // What the kept command's check (``init(kept:product:arguments:driver:)``) would refuse is
        // refused here: a build kept with it would be refused on every use, and never built again.
        func refuse(_ reason: String) -> BenchError {
            BenchError(.buildFailed, "cannot keep the build of \(executable): its link \(reason)")
        }
        var copies: [(String, String)] = []
        var fileList: (path: String, text: String)? = nil
        var relocatedArguments: [String] = []
        for argument in arguments {
            if argument.hasPrefix("@") {
                guard let listPath = moved(String(argument.dropFirst())) else {
                    throw refuse("reads \(argument.dropFirst()), outside \(root)")
                }
                guard let text = try? String(contentsOfFile: String(argument.dropFirst()), encoding: .utf8) else {
                    throw BenchError(
                        .buildFailed, "cannot keep the build of \(executable): \(argument) cannot be read")
                }
                // One object a line, quoted or not, each moved into the kept build.
                var lines: [String] = []
                for line in text.split(separator: "\n") {
                    let path =
                        line.hasPrefix("'") && line.hasSuffix("'") ? String(line.dropFirst().dropLast()) : String(line)
                    guard let destination = moved(path), Self.isInside(destination, directory) else {
                        throw refuse("links \(path), outside \(root)")
                    }
                    guard !destination.contains(where: { $0.isWhitespace || $0 == "'" || $0 == "\"" || $0 == "\\" })
                    else {
                        throw refuse(
                            "links '\(printable(destination))', which a response file would read as more than a path")
                    }
                    copies.append((path, destination))
                    lines.append("'\(destination)'")
                }
                fileList = (listPath, lines.joined(separator: "\n") + "\n")
                relocatedArguments.append("@" + listPath)
            } else {
                relocatedArguments.append(moved(argument) ?? argument)
            }
        }
        // A path into the build directory that was not moved would read another commit's files.
        let scratch = URL(fileURLWithPath: root).deletingLastPathComponent().deletingLastPathComponent().path + "/"
        if let left = (relocatedArguments + (fileList?.text.split(separator: "\n").map(String.init) ?? []))
            .first(where: { $0.contains(scratch) })
        {
            throw BenchError(
                .buildFailed, "cannot keep the build of \(executable): its link reads \(left), outside \(root)")
        }
        guard let fileList else {
            throw BenchError(
                .buildFailed, "cannot keep the build of \(executable): its link command lists no objects file")
        }
        return Relocated(
            executable: newRoot + "/" + URL(fileURLWithPath: output).lastPathComponent, copies: copies,
            fileListPath: fileList.path, fileList: fileList.text, arguments: relocatedArguments)
    }

    /// What ``relocated(into:)`` gives.
    struct Relocated {
        /// Where the executable goes.
        var executable: String
        /// Each object the command reads, and where it goes.
        var copies: [(source: String, destination: String)]
        var fileListPath: String
        var fileList: String
        var arguments: [String]
    }

    /// The functions `executable` defines (symbols in a code section, local ones too), read with
    /// the toolchain's `llvm-nm`, next to the compiler driver `driver`, or the first `llvm-nm` or
    /// `nm` on the path.
    static func functions(in executable: String, linkedBy driver: String) throws(BenchError) -> [String] {
        let besideDriver = URL(fileURLWithPath: driver).deletingLastPathComponent().appendingPathComponent("llvm-nm")
            .path
        guard
            let nm = FileManager.default.isExecutableFile(atPath: besideDriver)
                ? besideDriver : executableInPath("llvm-nm") ?? executableInPath("nm")
        else { throw BenchError(.toolMissing, "cannot list the functions of \(executable): no llvm-nm or nm found") }
        let listed = try ChildProcess.run(nm, ["--defined-only", "--format=posix", executable])
        // `name type value [size]`; t, T, w and W are code and weak symbols; a name never has a space.
        let functions = listed.output.split(separator: "\n").compactMap { line -> String? in
            let fields = line.split(separator: " ")
            guard fields.count >= 2, ["t", "T", "w", "W"].contains(fields[1]) else { return nil }
            return String(fields[0])
        }
        guard listed.succeeded, !listed.isTruncated, !functions.isEmpty else {
            throw BenchError(.buildFailed, "cannot list the functions of \(executable): \(listed.lastLine)")
        }
        return functions.uniqued()
    }

    /// `functions` in the order `seed` gives: by a 64-bit hash of the seed and each name, so that
    /// the order of any two names depends on them and the seed alone.
    static func order(_ functions: [String], seed: UInt32) -> [String] {
        func key(_ name: String) -> UInt64 {
            // FNV-1a over the name from a start the seed sets, then SplitMix64's finalizer, so that
            // neighbouring seeds and names give unrelated keys.
            var hash = 0xcbf2_9ce4_8422_2325 ^ (UInt64(seed) &* splitMix64Increment)
            for byte in name.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
            return splitMix64Finalized(hash)
        }
        return functions.map { (key: key($0), name: $0) }.sorted { ($0.key, $0.name) < ($1.key, $1.name) }.map(\.name)
    }

    /// The arguments of `product`'s link command in an llbuild manifest: the `args` of the
    /// command named `C.<product>-<target triple>-<configuration>.exe`.
    static func linkArguments(in manifest: String, product: String, configuration: String) -> [String]? {
        let lines = manifest.split(separator: "\n", omittingEmptySubsequences: false)
        guard
            let name = lines.firstIndex(where: { line in
                let trimmed = line.drop { $0 == " " }
                return trimmed.hasPrefix("\"C.\(product)-") && trimmed.hasSuffix("-\(configuration).exe\":")
            })
        else { return nil }
        // The command's attributes are indented further than its name, up to the next command.
        let indentation = lines[name].prefix { $0 == " " }.count
        for line in lines[(name + 1)...] {
            guard line.prefix(while: { $0 == " " }).count > indentation else { return nil }
            let attribute = line.drop { $0 == " " }
            guard attribute.hasPrefix("args: ") else { continue }
            return try? JSONDecoder().decode([String].self, from: Data(attribute.dropFirst("args: ".count).utf8))
        }
        return nil
    }

    /// Links the executable again, to `output`, with its functions in the order `seed` gives
    /// (listed in `output.order`), and without debug information (which nothing running needs,
    /// and which is most of the file).
    ///
    /// - Throws: ``BenchError``: `.cannotWrite` when the order cannot be written; `.buildFailed`
    ///   when the link fails.
    func link(to output: String, seed: UInt32) throws(BenchError) {
        let orderFile = output + ".order"
        do {
            try (Self.order(functions, seed: seed).joined(separator: "\n") + "\n")
                .write(toFile: orderFile, atomically: false, encoding: .utf8)
        } catch {
            throw .cannotWrite(orderFile, error.localizedDescription)
        }
        var arguments = arguments
        // Both initialisers checked that `-o` is there and not last.
        guard let flag = arguments.firstIndex(of: "-o"), flag + 1 < arguments.count else {
            throw BenchError(.buildFailed, "cannot link \(executable) again: its command has no -o")
        }
        arguments[flag + 1] = output
        // Each segment on a page of its own (`-z separate-code`): without it, a segment starts
        // where the one before ends, so that code or data added anywhere moves every later segment
        // by the same few bytes in every pair, a difference of layout no seed varies.
        arguments += [
            "-Xlinker", "--symbol-ordering-file=\(orderFile)", "-Xlinker", "--no-warn-symbol-ordering",
            "-Xlinker", "-z", "-Xlinker", "separate-code", "-Xlinker", "--strip-debug",
        ]
        let linked = try ChildProcess.run(arguments[0], Array(arguments.dropFirst()))
        guard linked.succeeded, FileManager.default.isExecutableFile(atPath: output) else {
            throw BenchError(
                .buildFailed, "cannot link \(executable) again in order \(seed): \(linked.lastLine)")
        }
    }
}
