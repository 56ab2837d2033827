import Foundation
@testable import PKCE
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A backend whose `fillRandom` reports success and writes nothing, and whose `sha256` writes no
/// digest: a broken third-party backend.
struct SilentBackend: PKCEBackend {
    var name: String { "silent" }
    func fillRandom(_ buffer: UnsafeMutableRawBufferPointer) throws {}
    func sha256(_ message: UnsafeRawBufferPointer, into digest: UnsafeMutableRawBufferPointer) {}
}

/// The points of the security review of the library (RFC 7636, RFC 9700, RFC 6749).
@Suite("Security hardening: equality, consuming the code, OAuth errors, secret-free lookups, bounds")
struct HardeningTests {
    let backend = SwiftBackend()
    let allowingPlain = PKCEPolicy(allowsPlain: true)

    // MARK: - Equality

    @Test("Challenges compare by method and every character, and hash alike when equal")
    func equality() throws {
        let verifier = try CodeVerifier(validating: AppendixB.verifier)
        let plain = CodeChallenge(verifier: verifier, method: .plain, using: backend)
        let samePlain = try CodeChallenge(validating: AppendixB.verifier, method: .plain, policy: allowingPlain)
        #expect(plain == samePlain && plain.hashValue == samePlain.hashValue)
        // One character off, first or last; one character longer; the same characters as S256.
        for other in [
            "e" + AppendixB.verifier.dropFirst(), AppendixB.verifier.dropLast() + "j", AppendixB.verifier + "a",
        ] {
            #expect(plain != (try CodeChallenge(validating: other, method: .plain, policy: allowingPlain)))
        }
        let s256 = try CodeChallenge(validating: AppendixB.challenge, method: .s256)
        let plainOfChallenge = try CodeChallenge(validating: AppendixB.challenge, method: .plain, policy: allowingPlain)
        #expect(s256 != plainOfChallenge)
        #expect(Set([s256, plainOfChallenge, plain, samePlain]).count == 3)
    }

    @Test("The constant-time compare: equal only for the same length and bytes, at every position")
    func constantTimeCompare() {
        let bytes = (0..<128).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
        for length in [0, 1, 7, 8, 9, 43, 128] {
            let left = Array(bytes.prefix(length))
            #expect(left.withUnsafeBytes { l in left.withUnsafeBytes { r in constantTimeEquals(l, r) } })
            for position in 0..<length {
                for flip: UInt8 in [0x01, 0x80] {
                    var right = left
                    right[position] ^= flip
                    #expect(!left.withUnsafeBytes { l in right.withUnsafeBytes { r in constantTimeEquals(l, r) } })
                }
            }
            let longer = left + [0]
            #expect(!left.withUnsafeBytes { l in longer.withUnsafeBytes { r in constantTimeEquals(l, r) } })
        }
    }

    /// The probe that compares two secrets with `==`, as this build made it, and the release
    /// build's, since an optimiser's early exit would show there: always in CI, where `.ci/run`
    /// builds it first, and elsewhere when it is built and no older than this build's, so not left
    /// from an older tree.
    static var compareProbes: [URL] {
        let bundle = Bundle.main.bundleURL
        let products = bundle.pathExtension == "xctest" ? bundle.deletingLastPathComponent() : bundle
        let probe = products.appendingPathComponent("PKCECompareProbe")
        let release = products.deletingLastPathComponent().appendingPathComponent("release/PKCECompareProbe")
        func modified(_ url: URL) -> Date? {
            try? FileManager.default.attributesOfItem(atPath: url.path)[.modificationDate] as? Date
        }
        let releaseIsCurrent = modified(release).map { $0 >= modified(probe) ?? .distantFuture } ?? false
        let required = ProcessInfo.processInfo.environment["CI"] != nil
        return [probe] + (required || releaseIsCurrent ? [release] : [])
    }

    static let valgrind = ["/usr/bin/valgrind", "/usr/local/bin/valgrind"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    /// Whether this process, and so the probe built with it, runs under a sanitizer, whose runtime
    /// cannot run under Valgrind.
    static let sanitized = ["__asan_init", "__tsan_init"].contains { (symbol: String) in
        dlsym(UnsafeMutableRawPointer(bitPattern: 0), symbol) != nil
    }

    /// The instructions Callgrind counts for the probe's whole run.
    static func instructions(probe: URL, arguments: [String]) throws -> Int {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try #require(valgrind))
        process.arguments = ["--tool=callgrind", "--callgrind-out-file=/dev/null", probe.path] + arguments
        // The runtime's hash seed is random per process, and with it the instructions of start-up.
        process.environment = ["SWIFT_DETERMINISTIC_HASHING": "1"]
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(text)")
        let line = try #require(text.split(separator: "\n").first { $0.contains("Collected :") })
        return try #require(Int(line.split(separator: " ").last ?? ""))
    }

    @Test(
        "== runs the same instructions wherever two plain challenges differ (Callgrind counts)",
        .enabled(if: valgrind != nil, "valgrind is not installed: apt-get install -y valgrind"),
        .enabled(if: !sanitized, "a sanitizer's runtime cannot run under Valgrind"))
    func compareCountsDoNotDependOnTheSecret() throws {
        let compares = 10_000
        for probe in Self.compareProbes {
            try #require(FileManager.default.isExecutableFile(atPath: probe.path), "\(probe.path) is not built")
            // Where the first difference lies is what an early exit would reveal; that two
            // secrets differ at all, the answer reveals anyway.
            let counts = try ["0", "64", "127"].map {
                try Self.instructions(probe: probe, arguments: [$0, String(compares)])
            }
            // An early exit saves instructions on every compare: at least `compares` over the run.
            // The same code on other data runs the same instructions, but for the process's own
            // start-up noise, far below one per compare.
            #expect(counts.max()! - counts.min()! < compares / 10, "\(probe.lastPathComponent): \(counts)")
        }
    }

    // MARK: - Consuming the code first

    /// What the consuming forms saw: whether the code was consumed, and whether it was consumed
    /// before the backend hashed anything.
    final class CodeStore: @unchecked Sendable {
        var consumed = 0
    }

    /// A backend that records, in `store`, how many codes were consumed when it first hashed.
    struct WatchingBackend: PKCEBackend {
        let store: CodeStore
        let consumedAtHash: CodeStore
        var name: String { "watching" }
        func fillRandom(_ buffer: UnsafeMutableRawBufferPointer) throws { try SwiftBackend().fillRandom(buffer) }
        func sha256(_ message: UnsafeRawBufferPointer, into digest: UnsafeMutableRawBufferPointer) {
            consumedAtHash.consumed = store.consumed
            SwiftBackend().sha256(message, into: digest)
        }
    }

    @Test("The code is consumed before the comparison, whatever the outcome, once")
    func consumeFirst() throws {
        let stored = try CodeChallenge(validating: AppendixB.challenge, method: .s256)
        let wrong = String(AppendixB.verifier.dropLast()) + "j"
        let cases: [(String?, CodeChallenge?, PKCEError?)] = [
            (AppendixB.verifier, stored, nil), (wrong, stored, .verifierMismatch),
            (AppendixB.verifier + "\n", stored, .invalidCharacter(.codeVerifier, character: "\n", position: 43)),
            (nil, stored, .missingVerifier), (AppendixB.verifier, nil, .unexpectedVerifier),
            (nil, nil, .missingChallenge),
        ]
        for (presented, challenge, expected) in cases {
            let store = CodeStore()
            let seen = CodeStore()
            seen.consumed = -1
            let watching = WatchingBackend(store: store, consumedAtHash: seen)
            do {
                let outcome = try CodeChallenge.verify(presented: presented, against: challenge, using: watching) {
                    store.consumed += 1
                }
                #expect(expected == nil && outcome == .verified)
            } catch let error as PKCEError {
                #expect(error == expected)
            }
            #expect(store.consumed == 1)
            // Where a hash was computed, the code had been consumed by then.
            #expect(seen.consumed == -1 || seen.consumed == 1)
        }
    }

    @Test("A code that cannot be consumed is not checked: the store's error, and no hash")
    func consumeFails() async throws {
        struct StoreDown: Error {}
        let stored = try CodeChallenge(validating: AppendixB.challenge, method: .s256)
        let store = CodeStore()
        let seen = CodeStore()
        seen.consumed = -1
        let watching = WatchingBackend(store: store, consumedAtHash: seen)
        #expect(throws: StoreDown.self) {
            try CodeChallenge.verify(presented: AppendixB.verifier, against: stored, using: watching) {
                throw StoreDown()
            }
        }
        await #expect(throws: StoreDown.self) {
            try await CodeChallenge.verify(presented: AppendixB.verifier, against: stored, using: watching) {
                await Task.yield()
                throw StoreDown()
            }
        }
        #expect(seen.consumed == -1)
        // The asynchronous form consumes first too.
        let outcome = try await CodeChallenge.verify(presented: AppendixB.verifier, against: stored, using: watching) {
            await Task.yield()
            store.consumed += 1
        }
        #expect(outcome == .verified && seen.consumed == 1)
    }

    // MARK: - OAuth error codes

    @Test("Each error carries its OAuth error code (RFC 7636 §4.4.1, §4.6; RFC 6749 §5.2)")
    func oauthErrorCodes() {
        let expected: [(PKCEError, String)] = [
            (.missingChallenge, "invalid_request"), (.missingChallengeMethod, "invalid_request"),
            (.challengeMethodNotAllowed("plain"), "invalid_request"),
            (.invalidLength(.codeChallenge, length: 42), "invalid_request"),
            (.invalidCharacter(.codeChallenge, character: "+", position: 3), "invalid_request"),
            (.missingVerifier, "invalid_request"), (.invalidLength(.codeVerifier, length: 42), "invalid_request"),
            (.verifierMismatch, "invalid_grant"), (.unexpectedVerifier, "invalid_grant"),
            (.randomFailure(source: "getentropy", code: 38), "server_error"),
            (.backendUnavailable(backend: "openssl", reason: "EVP_MD_fetch failed: FIPS mode"), "server_error"),
        ]
        for (error, code) in expected {
            #expect(error.oauthErrorCode == code, "\(error.logDescription)")
        }
    }

    @Test("At each endpoint, the code RFC 6749 gives it: invalid_grant for a code issued without what the policy asks")
    func oauthErrorCodesByEndpoint() {
        let expected: [(PKCEError, authorization: String?, token: String?)] = [
            (.missingChallenge, "invalid_request", "invalid_grant"),
            (.missingChallengeMethod, "invalid_request", "invalid_grant"),
            (.challengeMethodNotAllowed("plain"), "invalid_request", "invalid_grant"),
            (.invalidLength(.codeChallenge, length: 42), "invalid_request", "invalid_grant"),
            (.invalidCharacter(.codeChallenge, character: "+", position: 3), "invalid_request", "invalid_grant"),
            (.missingVerifier, "invalid_request", "invalid_request"),
            (.invalidLength(.codeVerifier, length: 42), "invalid_request", "invalid_request"),
            (.invalidCharacter(.codeVerifier, character: "+", position: 3), "invalid_request", "invalid_request"),
            (.verifierMismatch, "invalid_request", "invalid_grant"),
            (.unexpectedVerifier, "invalid_request", "invalid_grant"),
            // RFC 6749 §5.2 has no code for the server's own failure: the token endpoint answers 500.
            (.randomFailure(source: "getentropy", code: 38), "server_error", nil),
            (.backendUnavailable(backend: "openssl", reason: "FIPS mode"), "server_error", nil),
        ]
        for (error, authorization, token) in expected {
            #expect(error.oauthErrorCode(at: .authorization) == authorization, "\(error.logDescription)")
            #expect(error.oauthErrorCode(at: .token) == token, "\(error.logDescription)")
            #expect(error.description(at: .authorization) == error.description)
        }
        // At the token endpoint the challenge's errors speak of the code, not of the request.
        #expect(
            PKCEError.missingChallenge.description(at: .token)
                == "the authorization code was issued without a code_challenge, and this server requires PKCE")
        for error in [PKCEError.missingChallengeMethod, .challengeMethodNotAllowed("plain")] {
            #expect(
                error.description(at: .token)
                    == "the authorization code was issued with a code_challenge_method this server does not accept")
        }
        #expect(
            PKCEError.invalidLength(.codeChallenge, length: 42).description(at: .token)
                == "the authorization code was issued with a malformed code_challenge")
        #expect(PKCEError.verifierMismatch.description(at: .token) == PKCEError.verifierMismatch.description)
    }

    @Test(
        "A forbidden character is quoted only when it is unreserved: never & # < or =", arguments: ["&", "#", "<", "="])
    func forbiddenCharactersNotQuoted(character: String) throws {
        let value = String(repeating: "a", count: 20) + character + String(repeating: "a", count: 22)
        #expect(throws: PKCEError.self) { try CodeVerifier(validating: value) }
        do {
            _ = try CodeVerifier(validating: value)
        } catch {
            let scalar = character.unicodeScalars.first!.value
            let codePoint = "U+" + String(format: "%04X", scalar)
            #expect(error.description == "code_verifier has the forbidden character \(codePoint) at position 20")
            #expect(!error.description.contains(character))
        }
        // An unreserved character that base64url lacks is quoted.
        let challenge = String(repeating: "a", count: 10) + "." + String(repeating: "a", count: 32)
        do {
            _ = try CodeChallenge(validating: challenge, method: .s256)
            Issue.record("an S256 challenge with a '.' validated")
        } catch {
            #expect(error.description == "code_challenge has the forbidden character '.' at position 10")
        }
    }

    @Test("A server error tells the client nothing of the server; the log text keeps the detail")
    func serverErrorsSayNothing() {
        let errors: [PKCEError] = [
            .randomFailure(source: "getentropy", code: 38),
            .backendUnavailable(backend: "openssl", reason: "EVP_MD_fetch failed (FIPS mode): error 0x1234"),
        ]
        for error in errors {
            #expect(error.description == "the server could not complete the request")
            for secret in ["getentropy", "38", "openssl", "FIPS", "EVP", "0x1234"] {
                #expect(!error.description.contains(secret))
            }
        }
        #expect(errors[0].logDescription.contains("getentropy returned code 38"))
        #expect(errors[1].logDescription.contains("FIPS mode"))
    }

    @Test(
        "A rejected method is echoed only when it is 1 to 32 unreserved characters",
        arguments: [
            ("S512", true), ("s256", true), (String(repeating: "a", count: 32), true),
            (String(repeating: "a", count: 33), false), ("S256&x=1#y", false), ("a b", false), ("", false),
            ("S256\u{0}", false), ("é", false),
        ])
    func methodEcho(method: String, echoed: Bool) {
        let error = PKCEError.challengeMethodNotAllowed(method)
        if echoed {
            #expect(error.description == "code_challenge_method '\(method)' is not accepted; use S256")
        } else {
            #expect(error.description == "the code_challenge_method is not a supported transform; use S256")
        }
    }

    @Test("An unknown method of any length is kept to 33 characters in the error")
    func methodBounded() {
        let long = "S256" + String(repeating: "&", count: 1_000_000)
        #expect(throws: PKCEError.challengeMethodNotAllowed("S256" + String(repeating: "&", count: 29))) {
            try ChallengeMethod(requestParameter: long)
        }
        #expect(throws: PKCEError.challengeMethodNotAllowed("SHA512")) {
            try ChallengeMethod(requestParameter: "SHA512")
        }
    }

    // MARK: - The methods a policy supports

    @Test("supportedMethods lists what the policy accepts, S256 first, plain only when allowed")
    func supportedMethods() throws {
        #expect(PKCEPolicy().supportedMethods == [.s256])
        #expect(allowingPlain.supportedMethods == [.s256, .plain])
        #expect(allowingPlain.supportedMethods.map(\.rawValue) == ["S256", "plain"])
        for policy in [PKCEPolicy(), allowingPlain] {
            for method in ChallengeMethod.allCases {
                let accepted = (try? ChallengeMethod(requestParameter: method.rawValue, policy: policy)) != nil
                #expect(accepted == policy.supportedMethods.contains(method))
            }
        }
    }

    // MARK: - Secret bytes without table lookups

    @Test("The branch-free base64url character of every 6-bit value is the alphabet's")
    func arithmeticAlphabet() {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
        for value in 0..<64 {
            // The value in every byte at once, and beside other values: no byte carries into the next.
            for neighbour in [0, 63, 63 - value] {
                var lanes: UInt64 = 0
                for lane in 0..<8 {
                    let laneValue = UInt64(lane % 2 == 0 ? value : neighbour)
                    lanes |= laneValue << UInt64(8 * lane)
                }
                let text = Base64URL.characters(lanes)
                for lane in 0..<8 {
                    let expected = alphabet[lane % 2 == 0 ? value : neighbour]
                    #expect(UInt8(truncatingIfNeeded: text >> (8 * UInt64(lane))) == expected, "\(value) \(lane)")
                }
            }
        }
        // Eight 6-bit fields, spread one to a byte with nothing of their neighbours: 48 set bits
        // give 0x3F in every byte, and a single field lands alone in its byte.
        #expect(Base64URL.spread(0xFFFF_FFFF_FFFF) == 0x3F3F_3F3F_3F3F_3F3F)
        for field in 0..<8 {
            #expect(Base64URL.spread(0x3F << (6 * UInt64(field))) == 0x3F << (8 * UInt64(field)))
        }
    }

    // MARK: - Bounded validation

    @Test("Validation reads at most one byte past the longest length: an over-long input is a length error")
    func lengthFirst() throws {
        // A forbidden character past the 129th byte is never reached.
        var long = String(repeating: "a", count: 5000) + "\n" + String(repeating: "a", count: 10_000_000)
        #expect(throws: PKCEError.invalidLength(.codeVerifier, length: 10_005_001)) {
            try CodeVerifier(validating: long)
        }
        // Within the first 129 bytes, the character is still named first.
        long = String(repeating: "a", count: 128) + "\n" + String(repeating: "a", count: 1000)
        #expect(throws: PKCEError.invalidCharacter(.codeVerifier, character: "\n", position: 128)) {
            try CodeVerifier(validating: long)
        }
        #expect(throws: PKCEError.invalidCharacter(.codeVerifier, character: "\n", position: 43)) {
            try CodeVerifier(validating: AppendixB.verifier + "\n")
        }
        // An S256 challenge: 44 bytes at most.
        let challenge = AppendixB.challenge + "A" + "\n"
        #expect(throws: PKCEError.invalidLength(.codeChallenge, length: 45)) {
            try CodeChallenge(validating: challenge, method: .s256)
        }
        // The token endpoint validates the presented verifier the same way.
        let stored = CodeChallenge(verifier: try CodeVerifier(validating: AppendixB.verifier), using: backend)
        let presented = String(repeating: "a", count: 200) + "\n"
        #expect(throws: PKCEError.invalidLength(.codeVerifier, length: 201)) {
            try CodeChallenge.verify(presented: presented, against: stored, using: backend)
        }
    }

    // MARK: - Buffers handed to a backend

    @Test("A backend that writes no random bytes yields no verifier")
    func silentRandom() {
        for length in [43, 128] {
            #expect(throws: PKCEError.randomFailure(source: "fillRandom of the silent backend", code: 0)) {
                try CodeVerifier.generate(length: length, using: SilentBackend())
            }
        }
    }

    @Test("A backend that writes no digest yields the challenge of 32 zero bytes, never old stack bytes")
    func silentDigest() throws {
        // Leave a digest on the stack first, where the next one will be made.
        let verifier = try CodeVerifier(validating: AppendixB.verifier)
        #expect(CodeChallenge(verifier: verifier, using: backend).value == AppendixB.challenge)
        let zeros = String(repeating: "A", count: 43)
        #expect(CodeChallenge(verifier: verifier, using: SilentBackend()).value == zeros)
        #expect(SilentBackend().sha256(Array(AppendixB.verifier.utf8)) == [UInt8](repeating: 0, count: 32))
    }

    // MARK: - getentropy's loop

    @Test("getentropy is asked for at most 256 bytes at a time, and again when a signal interrupts it")
    func interruptedRandom() throws {
        var calls: [Int] = []
        var buffer = [UInt8](repeating: 0, count: 600)
        try buffer.withUnsafeMutableBytes { bytes in
            try SystemRandom.fill(bytes) { pointer, count in
                calls.append(count)
                if calls.count == 2 {
                    errno = EINTR
                    return -1
                }
                pointer.initializeMemory(as: UInt8.self, repeating: UInt8(calls.count), count: count)
                return 0
            }
        }
        #expect(calls == [256, 256, 256, 88])
        #expect(
            buffer
                == [UInt8](repeating: 1, count: 256) + [UInt8](repeating: 3, count: 256)
                + [UInt8](repeating: 4, count: 88))
        // Any other errno is a failure, with that errno.
        #expect(throws: PKCEError.randomFailure(source: "getentropy", code: Int(ENOSYS))) {
            try buffer.withUnsafeMutableBytes { bytes in
                try SystemRandom.fill(bytes) { _, _ in
                    errno = ENOSYS
                    return -1
                }
            }
        }
    }
}
