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
    /// - Throws: ``BenchError``: `.backendFailed` when the manifest has no such command, or one
    ///   that does not link with lld to `executable`.
    package init(executable: String, product: String, configuration: String, scratch: URL) throws(BenchError) {
        let manifest = scratch.appendingPathComponent("\(configuration).yaml")
        func missing(_ reason: String) -> BenchError {
            BenchError(.backendFailed, "cannot link \(executable) again: \(manifest.path) \(reason)")
        }
        guard let text = try? String(contentsOf: manifest, encoding: .utf8) else { throw missing("cannot be read") }
        guard let arguments = Self.linkArguments(in: text, product: product, configuration: configuration) else {
            throw missing("has no command that links \(product)")
        }
        guard arguments.contains("-use-ld=lld"),
            let output = arguments.firstIndex(of: "-o").map({ arguments.index(after: $0) }), output < arguments.count,
            URL(fileURLWithPath: arguments[output]).lastPathComponent == product
        else {
            throw missing("links \(product) without lld, or to another file")
        }
        self.executable = executable
        self.arguments = arguments
        self.functions = try Self.functions(in: executable, linkedBy: arguments[0])
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
        guard listed.succeeded, !functions.isEmpty else {
            throw BenchError(.backendFailed, "cannot list the functions of \(executable): \(listed.lastLine)")
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
    /// - Throws: ``BenchError``: `.cannotWrite` when the order cannot be written; `.backendFailed`
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
        arguments[arguments.index(after: arguments.firstIndex(of: "-o")!)] = output
        arguments += [
            "-Xlinker", "--symbol-ordering-file=\(orderFile)", "-Xlinker", "--no-warn-symbol-ordering",
            "-Xlinker", "--strip-debug",
        ]
        let linked = try ChildProcess.run(arguments[0], Array(arguments.dropFirst()))
        guard linked.succeeded, FileManager.default.isExecutableFile(atPath: output) else {
            throw BenchError(
                .backendFailed, "cannot link \(executable) again in order \(seed): \(linked.lastLine)")
        }
    }
}
