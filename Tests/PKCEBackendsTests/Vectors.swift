import Foundation
import Testing
import PKCEBackends

/// The published test vectors, decoded from the JSON files in `Vectors/`.
enum Vectors {
    struct SHA256Vector: Decodable, CustomTestStringConvertible {
        let text: String
        let `repeat`: Int
        let digest: String

        var message: [UInt8] { Array(repeating: Array(text.utf8), count: `repeat`).flatMap { $0 } }
        var testDescription: String { `repeat` == 1 ? "\"\(text)\"" : "\(`repeat`) × \"\(text)\"" }
    }

    struct SHA256File: Decodable {
        let vectors: [SHA256Vector]
    }

    struct AppendixB: Decodable {
        let octets: [UInt8]
        let verifier: String
        let challenge: String
    }

    struct S256Encoding: Decodable {
        let message: String
        let encoded: String
    }

    struct S256EncodingFile: Decodable {
        let vectors: [S256Encoding]
    }

    static let fips180 = load(SHA256File.self, from: "sha256-fips-180-4").vectors
    static let appendixB = load(AppendixB.self, from: "rfc7636-appendix-b")
    static let s256Encodings = load(S256EncodingFile.self, from: "s256-encoding").vectors

    private static func load<T: Decodable>(_ type: T.Type, from name: String) -> T {
        do {
            guard let url = Bundle.module.url(forResource: name, withExtension: "json", subdirectory: "Vectors") else {
                fatalError("test vector file \(name).json is missing from the test bundle")
            }
            return try JSONDecoder().decode(type, from: Data(contentsOf: url))
        } catch {
            fatalError("cannot decode test vector file \(name).json: \(error)")
        }
    }
}

/// Every shipped backend, for `@Test(arguments:)`.
///
/// A backend that cannot be set up here is a test failure, not a skipped test: the set-up line in
/// the README installs every library the backends need.
let backends: [any PKCEBackend] = {
    do {
        return try allBackends()
    } catch {
        fatalError("a backend cannot be set up: \(error)")
    }
}()

/// Lowercase hexadecimal, the form FIPS publishes digests in.
func hex(_ bytes: [UInt8]) -> String {
    bytes.map { String(format: "%02x", $0) }.joined()
}

/// A deterministic message of `length` bytes that differs from every other length's.
func message(ofLength length: Int) -> [UInt8] {
    (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ length) }
}
