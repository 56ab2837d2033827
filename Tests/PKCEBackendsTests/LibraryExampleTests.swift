import Foundation
import Testing

@Suite("The README's library example")
struct ReadmeExampleTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    @Test("The README shows Snippets/LibraryExample.swift verbatim")
    func readmeMatchesSnippet() throws {
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        let snippet = try String(
            contentsOf: Self.root.appendingPathComponent("Snippets/LibraryExample.swift"), encoding: .utf8)
        let start = try #require(readme.range(of: "<!-- snippet: LibraryExample"))
        let fenceOpen = try #require(readme.range(of: "```swift\n", range: start.upperBound..<readme.endIndex))
        let fenceClose = try #require(
            readme.range(of: "```\n<!-- end snippet -->", range: fenceOpen.upperBound..<readme.endIndex))
        #expect(String(readme[fenceOpen.upperBound..<fenceClose.lowerBound]) == snippet)
    }

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

    /// Where SwiftPM put the products of this build: beside the test bundle.
    var productsDirectory: URL {
        let bundle = Bundle.main.bundleURL
        return bundle.pathExtension == "xctest" ? bundle.deletingLastPathComponent() : bundle
    }
}
