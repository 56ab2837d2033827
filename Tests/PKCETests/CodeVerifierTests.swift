import PKCE
import Testing

@Suite("Code verifier validation (RFC 7636 §4.1)")
struct CodeVerifierTests {
    static let unreserved = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~"

    @Test("All 66 unreserved characters are accepted")
    func allUnreservedAccepted() throws {
        #expect(Self.unreserved.count == 66)
        // 66 characters is a valid length; so are the two halves padded to 43.
        #expect(try CodeVerifier(validating: Self.unreserved).value == Self.unreserved)
        for character in Self.unreserved {
            let value = String(repeating: character, count: 43)
            #expect(throws: Never.self) { try CodeVerifier(validating: value) }
        }
    }

    @Test("The shortest and longest lengths are accepted", arguments: [43, 128])
    func boundaryLengthsAccepted(length: Int) throws {
        #expect(try CodeVerifier(validating: String(repeating: "a", count: length)).value.count == length)
    }

    @Test("value, length and withUTF8 give back the characters, at every length, validated or generated")
    func charactersRoundTrip() throws {
        for length in CodeVerifier.allowedLengths {
            // Every length from a different rotation of the alphabet, so that no byte is left over.
            let offset = length % Self.unreserved.count
            let text = String(String(repeating: Self.unreserved, count: 3).dropFirst(offset).prefix(length))
            let validated = try CodeVerifier(validating: text)
            #expect(validated.value == text)
            #expect(validated.length == length)
            #expect(validated.withUTF8 { Array($0) } == Array(text.utf8))

            let generated = try CodeVerifier.generate(length: length, using: SwiftBackend())
            #expect(generated.length == length)
            #expect(generated.withUTF8 { Array($0) } == Array(generated.value.utf8))
            #expect(try CodeVerifier(validating: generated.value).value == generated.value)
        }
    }

    @Test("Lengths outside 43…128 are rejected with the actual length", arguments: [0, 1, 42, 129, 500])
    func badLengthsRejected(length: Int) {
        #expect(throws: PKCEError.invalidLength(.codeVerifier, length: length)) {
            try CodeVerifier(validating: String(repeating: "a", count: length))
        }
    }

    /// Every printable ASCII character outside the unreserved set, at the start, middle and end.
    static let forbiddenPrintable: [Unicode.Scalar] = (0x20...0x7E).compactMap(Unicode.Scalar.init)
        .filter { !unreserved.unicodeScalars.contains($0) }

    @Test("Every forbidden printable ASCII character is rejected with its position", arguments: forbiddenPrintable)
    func forbiddenPrintableRejected(character: Unicode.Scalar) {
        #expect(Self.forbiddenPrintable.count == 95 - 66)
        for position in [0, 21, 42] {
            var scalars = Array(repeating: Unicode.Scalar("a"), count: 43)
            scalars[position] = character
            let value = String(String.UnicodeScalarView(scalars))
            #expect(throws: PKCEError.invalidCharacter(.codeVerifier, character: character, position: position)) {
                try CodeVerifier(validating: value)
            }
        }
    }

    @Test("Control characters, a trailing newline and an embedded NUL are rejected")
    func controlCharactersRejected() {
        let valid = String(repeating: "a", count: 43)
        let cases: [(String, Unicode.Scalar, Int)] = [
            (valid + "\n", "\n", 43),
            (valid + "\r\n", "\r", 43),
            ("\t" + valid, "\t", 0),
            (String(repeating: "a", count: 20) + "\0" + String(repeating: "a", count: 22), "\0", 20),
            (valid + "\u{7F}", "\u{7F}", 43),
        ]
        for (value, character, position) in cases {
            #expect(throws: PKCEError.invalidCharacter(.codeVerifier, character: character, position: position)) {
                try CodeVerifier(validating: value)
            }
        }
    }

    @Test("Non-ASCII characters are rejected with the whole scalar and its position")
    func nonASCIIRejected() {
        let prefix = String(repeating: "a", count: 10)
        let suffix = String(repeating: "a", count: 40)
        let cases: [Unicode.Scalar] = ["é", "\u{00A0}", "\u{200B}", "\u{FF41}", "😀", "\u{0301}"]
        for character in cases {
            let value = prefix + String(character) + suffix
            #expect(throws: PKCEError.invalidCharacter(.codeVerifier, character: character, position: 10)) {
                try CodeVerifier(validating: value)
            }
        }
    }

    @Test("A failing random number generator throws, and no verifier comes out")
    func failingRandomThrows() {
        #expect(throws: FailingRandomBackend.error) {
            try CodeVerifier.generate(using: FailingRandomBackend())
        }
    }

    @Test("No way of printing a verifier shows the secret: interpolation, debugDescription, dump, a mirror")
    func printingRedacts() throws {
        let verifier = try CodeVerifier(validating: AppendixB.verifier)
        #expect(String(describing: verifier) == "CodeVerifier(43 characters)")
        // A half of the secret would be a leak too.
        let half = String(AppendixB.verifier.prefix(20))
        for printed in printedEverywhere(verifier) + printedEverywhere([verifier])
            + printedEverywhere(Optional(verifier))
        {
            #expect(!printed.contains(half), "\(printed)")
            #expect(printed.contains("43"), "\(printed)")
        }
    }

    @Test("Errors explain themselves in one line")
    func errorDescriptions() {
        #expect(
            PKCEError.invalidLength(.codeVerifier, length: 42).description
                == "code_verifier has 42 characters; it must have 43 to 128")
        #expect(
            PKCEError.invalidCharacter(.codeVerifier, character: "\n", position: 43).description
                == "code_verifier has the forbidden character U+000A at position 43")
        #expect(
            PKCEError.invalidCharacter(.codeChallenge, character: "=", position: 43).description
                == "code_challenge has the forbidden character U+003D at position 43")
        #expect(
            PKCEError.randomFailure(source: "getentropy", code: 38).logDescription
                == "the random number generator failed: getentropy returned code 38")
        #expect(
            PKCEError.challengeMethodNotAllowed("plain").description
                == "code_challenge_method 'plain' is not accepted; use S256")
    }

    @Test(
        "Error descriptions hold only what RFC 6749 §5.2 allows in an error_description",
        arguments: ["\"", "\\", "\n", "\u{7F}", "é", "\u{0}", "'"])
    func errorDescriptionCharacters(character: Unicode.Scalar) {
        let errors: [PKCEError] = [
            .invalidCharacter(.codeVerifier, character: character, position: 7),
            .invalidCharacter(.codeChallenge, character: character, position: 0),
            .challengeMethodNotAllowed("S\(character)256"),
            .challengeMethodNotAllowed(String(repeating: "\(character)x", count: 100)),
            .backendUnavailable(backend: "openssl", reason: "a \(character) b"),
            .randomFailure(source: "getentropy\(character)", code: 5),
            .invalidLength(.codeVerifier, length: 1), .verifierMismatch, .missingVerifier, .unexpectedVerifier,
            .missingChallenge, .missingChallengeMethod,
        ]
        for error in errors {
            for text in [error.description, error.logDescription] {
                let bad = text.unicodeScalars.filter { !(0x20...0x7E).contains($0.value) || $0 == "\"" || $0 == "\\" }
                #expect(bad.isEmpty, "\(text)")
            }
        }
        #expect(
            PKCEError.invalidCharacter(.codeVerifier, character: "\"", position: 3).description
                == "code_verifier has the forbidden character U+0022 at position 3")
        #expect(
            PKCEError.invalidCharacter(.codeVerifier, character: "\\", position: 3).description
                == "code_verifier has the forbidden character U+005C at position 3")
        #expect(
            PKCEError.challengeMethodNotAllowed(String(repeating: "a", count: 40)).logDescription
                == "code_challenge_method '\(String(repeating: "a", count: 32))...' is not accepted; use S256")
    }
}
