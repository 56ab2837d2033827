import ArgumentParser
import Foundation
import PKCEBackends
import Testing

@testable import PKCEBenchKit

/// The README, CONTRIBUTING and the DocC catalogs show only what works: their Swift is compiled
/// snippets, and every `bench` command they show parses with this build's arguments.
@Suite("The documentation")
struct DocumentationTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// README.md, CONTRIBUTING.md and every article of every DocC catalog in `Sources`.
    static let documents: [URL] = {
        var documents = ["README.md", "CONTRIBUTING.md"].map { root.appendingPathComponent($0) }
        let sources = root.appendingPathComponent("Sources")
        let enumerator = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil)
        while let url = enumerator?.nextObject() as? URL {
            if url.pathExtension == "md" && url.path.contains(".docc/") { documents.append(url) }
        }
        return documents.sorted { $0.path < $1.path }
    }()

    static let commands: [ShownCommand] = documents.flatMap { document in
        // A document that cannot be read fails `everyDocumentReads`, which names it.
        (try? String(contentsOf: document, encoding: .utf8)).map { ShownCommand.all(in: $0, of: document) } ?? []
    }

    @Test("Every document reads, and the catalogs exist")
    func everyDocumentReads() throws {
        for document in Self.documents {
            _ = try String(contentsOf: document, encoding: .utf8)
        }
        let catalogs = Set(Self.documents.map { $0.deletingLastPathComponent().lastPathComponent })
        #expect(catalogs.isSuperset(of: ["PKCE.docc", "PKCEBenchKit.docc"]))
    }

    @Test("The README is a front door: at most 300 lines")
    func readmeIsShort() throws {
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        #expect(readme.split(separator: "\n", omittingEmptySubsequences: false).count <= 300)
    }

    @Test("Swift in the documents is a snippet that SwiftPM compiles, shown verbatim")
    func swiftIsSnippets() throws {
        for document in Self.documents {
            let text = try String(contentsOf: document, encoding: .utf8)
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            for (number, line) in lines.enumerated() {
                if line.trimmingCharacters(in: .whitespaces).hasPrefix("```swift") {
                    // Only as the copy of a snippet, marked on the line before.
                    let marker = number > 0 ? lines[number - 1] : ""
                    let name = try #require(
                        Self.snippetName(marker, after: "<!-- snippet: "),
                        "\(document.lastPathComponent):\(number + 1): Swift outside a snippet")
                    let end = try #require(lines[(number + 1)...].firstIndex { $0.hasPrefix("```") })
                    let shown = lines[(number + 1)..<end].joined(separator: "\n") + "\n"
                    #expect(shown == (try snippet(name)), "\(document.lastPathComponent):\(number + 1)")
                }
                if let name = Self.snippetName(line, after: "@Snippet(path: \"PKCEBench/Snippets/") {
                    #expect(throws: Never.self, "\(document.lastPathComponent):\(number + 1)") { try snippet(name) }
                }
            }
        }
    }

    @Test("Every bench command in the documents parses", arguments: commands)
    func commandParses(_ command: ShownCommand) throws {
        do {
            // The command line is read with the backends bench runs, as Bench.main(backends:) reads it.
            _ = try CommandContext.$backends.withValue(try allBackends()) {
                try BenchCommand.parseAsRoot(BenchCommand.normalized(command.arguments))
            }
        } catch {
            // --help and --version end parsing cleanly.
            #expect(BenchCommand.exitCode(for: error) == .success, "\(command): \(BenchCommand.message(for: error))")
        }
    }

    @Test("The documents show bench commands to check")
    func commandsFound() {
        #expect(Self.commands.count >= 20)
        #expect(Set(Self.commands.map(\.document)).count >= 5)
    }

    @Test("The command finder splits a shell line as the shell would")
    func finderReadsShell() {
        let line =
            #"status=0; .build/release/bench ab ../b/bench --format markdown $MORE > ab.md 2>/dev/null || status=$?"#
        #expect(
            ShownCommand.simpleCommands(line) == [
                ["status=0"], [".build/release/bench", "ab", "../b/bench", "--format", "markdown"], ["status=$?"],
            ])
        #expect(
            ShownCommand.simpleCommands("bench list --filter '^sha256/(swift|sodium)/'  # the names")
                == [["bench", "list", "--filter", "^sha256/(swift|sodium)/"]])
        #expect(
            ShownCommand.simpleCommands(#"bench history --changes "${since[@]}" --last 30"#)
                == [["bench", "history", "--changes", "--last", "30"]])
        #expect(
            ShownCommand.benchArguments(["env", "A=1", "swift", "run", "-c", "release", "bench", "list"]) == ["list"])
        #expect(ShownCommand.benchArguments(["git", "worktree", "add", "../bench"]) == nil)
    }

    @Test("A command bench refuses fails the check")
    func refusedCommandFails() {
        for arguments in [["--format", "yaml"], ["--bogus"], ["ab"], ["compare", "--threshold", "-1", "a", "b"]] {
            #expect(throws: (any Error).self, "\(arguments)") { try BenchCommand.parseAsRoot(arguments) }
        }
    }

    private func snippet(_ name: String) throws -> String {
        try String(contentsOf: Self.root.appendingPathComponent("Snippets/\(name).swift"), encoding: .utf8)
    }

    /// The name that follows `prefix` in `line`, up to a space, quote or parenthesis.
    private static func snippetName(_ line: String, after prefix: String) -> String? {
        guard let start = line.range(of: prefix)?.upperBound else { return nil }
        let name = line[start...].prefix { !" \")(".contains($0) }
        return name.isEmpty ? nil : String(name)
    }
}

/// A `bench` command shown in a document's code block, with the arguments after `bench`.
struct ShownCommand: CustomTestStringConvertible, Sendable {
    let document: String
    let line: Int
    let arguments: [String]

    var testDescription: String { "\(document):\(line): bench \(arguments.joined(separator: " "))" }

    /// The `bench` commands in the shell, console, YAML and text blocks of `text`: lines of a shell
    /// or YAML block, and lines that start with `$ ` in a text block, continued by a final `\`.
    static func all(in text: String, of document: URL) -> [ShownCommand] {
        var commands: [ShownCommand] = []
        var language: String?
        var pending = ""
        var pendingLine = 0
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("```") {
                language = language == nil ? String(line.dropFirst(3)) : nil
                continue
            }
            guard let language else { continue }
            var shell = pending.isEmpty ? line : pending + " " + line
            if pending.isEmpty {
                pendingLine = index + 1
                if line.hasPrefix("$ ") {
                    shell = String(line.dropFirst(2))
                } else if language == "text" {
                    continue
                } else if language == "yaml" || language == "yml" {
                    shell = line.replacingOccurrences(of: #"^(- )?run: *"#, with: "", options: .regularExpression)
                } else if !["sh", "bash", "shell", "console"].contains(language) {
                    continue
                }
            }
            if shell.hasSuffix("\\") {
                pending = String(shell.dropLast())
                continue
            }
            pending = ""
            for words in simpleCommands(shell) {
                if let arguments = benchArguments(words) {
                    commands.append(
                        ShownCommand(document: document.lastPathComponent, line: pendingLine, arguments: arguments))
                }
            }
        }
        return commands
    }

    /// The arguments after `bench` when `words` runs it (`bench …`, `…/bench …`, `swift run … bench …`,
    /// after variable assignments, `env`, `time` or `timeout N`).
    static func benchArguments(_ words: [String]) -> [String]? {
        var rest = words[...]
        while let first = rest.first {
            if first == "env" || first == "time" || first == "sudo" || first.contains("=") && !first.hasPrefix("-") {
                rest = rest.dropFirst()
            } else if first == "timeout" {
                rest = rest.dropFirst(2)
            } else {
                break
            }
        }
        guard let command = rest.first else { return nil }
        if command == "bench" || command.hasSuffix("/bench") { return Array(rest.dropFirst()) }
        guard command == "swift", rest.dropFirst().first == "run",
            let product = rest.firstIndex(of: "bench")
        else { return nil }
        return Array(rest[(product + 1)...])
    }

    /// The simple commands of a shell line, as words: quotes removed, split at unquoted `|`, `&&`,
    /// `||` and `;`, without redirections or what follows an unquoted `#`. An unquoted word that
    /// is only a variable (`$OPTIONS`) is left out, as the shell leaves out an empty one, and so is
    /// a quoted array's expansion (`"${options[@]}"`), which an empty array leaves out too.
    static func simpleCommands(_ line: String) -> [[String]] {
        var commands: [[String]] = []
        var words: [String] = []
        var word = ""
        var inWord = false
        var quoted = false
        var quote: Character?
        var skipNextWord = false
        func endWord() {
            let variable =
                !quoted && word.wholeMatch(of: /\$\{?[A-Za-z_][A-Za-z0-9_]*\}?/) != nil
                || word.wholeMatch(of: /\$\{[A-Za-z_][A-Za-z0-9_]*\[@\]\}/) != nil
            if inWord && !variable {
                if skipNextWord { skipNextWord = false } else { words.append(word) }
            }
            word = ""
            inWord = false
            quoted = false
        }
        func endCommand() {
            endWord()
            if !words.isEmpty { commands.append(words) }
            words = []
        }
        var characters = line[...]
        while let character = characters.popFirst() {
            if let open = quote {
                if character == open { quote = nil } else { word.append(character) }
                continue
            }
            switch character {
            case "'", "\"":
                quote = character
                inWord = true
                quoted = true
            case " ", "\t":
                endWord()
            case "|", "&", ";":
                if characters.first == character { characters = characters.dropFirst() }
                endCommand()
            case ">", "<":
                // A redirection: its target is not an argument (`2>` drops the 2 too).
                if word == "2" || word == "1" || word == "&" { word = ""; inWord = false }
                endWord()
                if characters.first == ">" || characters.first == "&" { characters = characters.dropFirst() }
                while characters.first == " " { characters = characters.dropFirst() }
                skipNextWord = true
            case "#" where !inWord:
                characters = ""
            default:
                word.append(character)
                inWord = true
            }
        }
        endCommand()
        return commands
    }
}
