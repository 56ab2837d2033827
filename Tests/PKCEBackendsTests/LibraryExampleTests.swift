import Foundation
import Testing

/// Snippets/LibraryExample.swift, which the PKCE catalog shows; DocumentationTests checks that every
/// document shows snippets verbatim.
@Suite("The library example")
struct LibraryExampleTests {
    @Test("The example runs and prints what its comments say")
    func exampleRuns() throws {
        let process = Process()
        process.executableURL = productsDirectory.appendingPathComponent("LibraryExample")
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let lines = String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
        #expect(process.terminationStatus == 0)
        #expect(lines.count == 3)
        #expect(lines.first?.hasPrefix("code_challenge=") == true)
        #expect(lines.first?.hasSuffix("&code_challenge_method=S256") == true)
        #expect(lines.dropFirst().first == "verified true")
        #expect(lines.last == "invalid_request code_verifier has the forbidden character U+000A at position 43")
    }

    @Test("Every snippet runs to its end", arguments: snippetNames)
    func snippetRuns(_ name: String) throws {
        let process = Process()
        process.executableURL = productsDirectory.appendingPathComponent(name)
        process.arguments = Self.snippetArguments[name] ?? []
        // A snippet that writes files (OwnBackend is a whole bench) writes them there.
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "pkcebench-snippet-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        process.currentDirectoryURL = directory
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        if name == "OwnBackend" {
            // The backend of the snippet's own, and only it, as --backend mine selects.
            #expect(printed.contains("sha256/mine/64\n") && !printed.contains("/swift/"))
        }
    }

    @Test("Snippets/ is found: the test above passes trivially over no snippets")
    func snippetsFound() {
        #expect(Self.snippetNames.contains("OwnBackend"))
    }

    /// Arguments for the snippets that read them: OwnBackend is a whole bench, which would
    /// measure for a minute without.
    static let snippetArguments = ["OwnBackend": ["list", "--backend", "mine"]]

    /// The files in Snippets/, each an executable that SwiftPM builds.
    static let snippetNames: [String] = {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let files = (try? FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("Snippets").path))
        return (files ?? []).filter { $0.hasSuffix(".swift") }.map { String($0.dropLast(6)) }.sorted()
    }()

    /// Where SwiftPM put the products of this build: beside the test bundle.
    var productsDirectory: URL {
        let bundle = Bundle.main.bundleURL
        return bundle.pathExtension == "xctest" ? bundle.deletingLastPathComponent() : bundle
    }
}
