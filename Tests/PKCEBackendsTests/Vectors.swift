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

    /// A message and its SHA-256 from a NIST CAVS response file.
    struct CAVSVector: CustomTestStringConvertible, Sendable {
        let message: [UInt8]
        let digest: String

        var testDescription: String { "\(message.count) bytes" }
    }

    /// The Monte Carlo test of a NIST CAVS response file: the seed, and the digest at each of the
    /// 100 checkpoints, each 1,000 hashes after the last.
    struct CAVSMonte: Sendable {
        let seed: [UInt8]
        let checkpoints: [String]
    }

    static let fips180 = load(SHA256File.self, from: "sha256-fips-180-4").vectors
    /// NIST's SHA-256 validation vectors (CAVS 11.0, "SHAVS", byte-oriented), as the Cryptographic
    /// Algorithm Validation Program published them and pyca/cryptography's `cryptography_vectors`
    /// package ships them: every message length from 0 to 64 bytes, and 64 messages of 163 to
    /// 6,400 bytes.
    static let cavs = loadCAVS("SHA256ShortMsg") + loadCAVS("SHA256LongMsg")
    static let cavsMonte: CAVSMonte = {
        let fields = rspFields(of: "SHA256Monte")
        return CAVSMonte(
            seed: bytes(fields.first { $0.name == "Seed" }!.value),
            checkpoints: fields.filter { $0.name == "MD" }.map(\.value))
    }()
    static let appendixB = load(AppendixB.self, from: "rfc7636-appendix-b")
    static let s256Encodings = load(S256EncodingFile.self, from: "s256-encoding").vectors

    /// The `Len`, `Msg` and `MD` fields of a response file, as vectors; `Len` is in bits, and a
    /// message of length 0 is written as `00`.
    private static func loadCAVS(_ name: String) -> [CAVSVector] {
        var vectors: [CAVSVector] = []
        var length = 0
        var message: [UInt8] = []
        for field in rspFields(of: name) {
            switch field.name {
            case "Len": length = Int(field.value)! / 8
            case "Msg": message = Array(bytes(field.value).prefix(length))
            case "MD": vectors.append(CAVSVector(message: message, digest: field.value))
            default: break
            }
        }
        return vectors
    }

    /// The `NAME = VALUE` lines of `Vectors/NAME.rsp`, in order (comments and `[L = 32]` aside).
    private static func rspFields(of name: String) -> [(name: String, value: String)] {
        guard let url = Bundle.module.url(forResource: name, withExtension: "rsp", subdirectory: "Vectors"),
            let text = try? String(contentsOf: url, encoding: .ascii)
        else {
            fatalError("test vector file \(name).rsp is missing from the test bundle")
        }
        return text.split(whereSeparator: \.isNewline).compactMap { line in
            let parts = line.split(separator: "=", maxSplits: 1)
            guard !line.hasPrefix("#"), !line.hasPrefix("["), parts.count == 2 else { return nil }
            return (parts[0].trimmingCharacters(in: .whitespaces), parts[1].trimmingCharacters(in: .whitespaces))
        }
    }

    private static func bytes(_ hex: String) -> [UInt8] {
        let digits = Array(hex.utf8)
        return stride(from: 0, to: digits.count, by: 2).map {
            UInt8(String(decoding: digits[$0..<$0 + 2], as: UTF8.self), radix: 16)!
        }
    }

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
