import CPKCEOpenSSL
import Foundation
import Testing

@Suite("OpenSSL's particulars")
struct OpenSSLTests {
    @Test("Reading an OpenSSL error empties the thread's error queue, so no later failure reports it")
    func takeErrorEmptiesTheQueue() {
        ERR_clear_error()
        // A fetch of an unknown digest fails and leaves errors in the queue, as a real failure would.
        #expect(EVP_MD_fetch(nil, "NO-SUCH-DIGEST", nil) == nil)
        #expect(ERR_peek_error() != 0)
        #expect(CPKCEOpenSSL_takeError() != 0)
        #expect(ERR_peek_error() == 0)
        #expect(CPKCEOpenSSL_takeError() == 0)
    }

    /// A C compiler to run the shim through; the toolchain's clang, or the system's `cc`.
    static let compiler = ["/usr/bin/cc", "/usr/bin/clang", "/usr/bin/gcc"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    @Test(
        "Against OpenSSL headers older than 3.0, the shim's first error says what is needed",
        .enabled(if: compiler != nil, "no C compiler (cc, clang, gcc) in /usr/bin to compile the shim with"))
    func olderOpenSSLIsRefusedClearly() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let headers = FileManager.default.temporaryDirectory.appendingPathComponent("openssl-1.1-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: headers) }
        try FileManager.default.createDirectory(
            at: headers.appendingPathComponent("openssl"), withIntermediateDirectories: true)
        // OpenSSL 1.1.1w's opensslv.h, as far as the version goes.
        try "#define OPENSSL_VERSION_NUMBER 0x1010117fL\n".write(
            to: headers.appendingPathComponent("openssl/opensslv.h"), atomically: true, encoding: .utf8)

        let process = Process()
        process.executableURL = URL(fileURLWithPath: try #require(Self.compiler))
        process.arguments = [
            "-fsyntax-only", "-I", headers.path, "-x", "c",
            root.appendingPathComponent("Sources/CPKCEOpenSSL/shim.h").path,
        ]
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let output = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus != 0)
        let firstError = output.split(separator: "\n").first { $0.contains("error:") }
        #expect(firstError?.contains("PKCEOpenSSL needs OpenSSL 3.0 or later") == true, "\(output)")
    }
}
