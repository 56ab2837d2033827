import Foundation

/// How SwiftPM linked a build's executable, kept to link the same objects again in another order:
/// lld's `--shuffle-sections` with a seed places every function (each in its own section) at
/// another address. `bench ab --against` links both builds again for every pair of workers, so
/// that a change that only moves code is measured as the variance it is (the article "Comparing
/// two builds" has the design and the measurements).
package struct LinkCommand: Sendable, Equatable {
    /// The executable as built, in SwiftPM's order: its facts and instruction counts are read from it.
    package let executable: String
    /// The compiler driver and its arguments, as the build's manifest gives them.
    let arguments: [String]

    /// The section names a shuffle moves: one per function with `-function-sections`.
    static let shuffledSections = ".text.*"

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

    /// Links the executable again, to `output`, with its functions in the order `seed` gives, and
    /// without debug information (which nothing running needs, and which is most of the file).
    ///
    /// - Throws: ``BenchError``: `.backendFailed` when the link fails.
    func link(to output: String, seed: UInt32) throws(BenchError) {
        var arguments = arguments
        arguments[arguments.index(after: arguments.firstIndex(of: "-o")!)] = output
        arguments += ["-Xlinker", "--shuffle-sections=\(Self.shuffledSections)=\(seed)", "-Xlinker", "--strip-debug"]
        let linked = try ChildProcess.run(arguments[0], Array(arguments.dropFirst()))
        guard linked.succeeded, FileManager.default.isExecutableFile(atPath: output) else {
            throw BenchError(
                .backendFailed, "cannot link \(executable) again in order \(seed): \(linked.lastLine)")
        }
    }
}
