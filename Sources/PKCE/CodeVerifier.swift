/// A PKCE `code_verifier` (RFC 7636 §4.1): 43 to 128 unreserved characters, kept secret by the
/// client until it redeems the authorization code.
///
/// A value of this type always holds a valid verifier: it comes from
/// ``generate(length:using:)`` or from ``init(validating:)``.
///
/// The characters are held in the value itself, not in a `String`: making, copying and reading a
/// verifier allocate nothing. ``value`` makes a `String` of them each time it is read (one heap
/// allocation); ``withUTF8(_:)`` lends them without one.
///
/// Printing it never shows the secret (`print`, interpolation, `dump`, `debugPrint`), so a verifier
/// that reaches a log line by accident does not leak there. It is deliberately not `Equatable`: comparing verifiers is
/// ``CodeChallenge``'s job, which does it in constant time.
public struct CodeVerifier: Sendable {
    /// The lengths RFC 7636 §4.1 allows, in characters.
    public static let allowedLengths: ClosedRange<Int> = 43...128

    @usableFromInline
    let characters: VerifierCharacters

    /// The verifier, as sent in the token request's `code_verifier` parameter.
    ///
    /// This makes a new `String` on every read: keep it rather than read it twice, or use
    /// ``withUTF8(_:)``, which makes none.
    public var value: String { characters.string }

    /// The number of characters, 43 to 128.
    public var length: Int { characters.count }

    /// Calls `body` with the verifier's characters, ASCII, as ``value`` has them, without making a
    /// `String`.
    ///
    /// - Parameter body: Reads the characters; the buffer is valid only during the call.
    /// - Returns: What `body` returns.
    @inlinable
    public func withUTF8<Result>(_ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result {
        try characters.withUTF8(body)
    }

    /// Validates a verifier received from elsewhere, such as a token request.
    ///
    /// The whole string is checked as it is: nothing is trimmed, so a trailing newline is an error.
    ///
    /// - Parameter value: The candidate verifier.
    /// - Throws: ``PKCEError/invalidCharacter(_:character:position:)`` for the first character
    ///   outside `A–Z a–z 0–9 - . _ ~`, or ``PKCEError/invalidLength(_:length:)`` when it does not
    ///   have 43 to 128 characters.
    public init(validating value: String) throws(PKCEError) {
        try validate(value, as: .codeVerifier, lengths: Self.allowedLengths, isAllowed: Unreserved.contains)
        self.characters = VerifierCharacters(count: value.utf8.count) { _ = $0.initialize(fromContentsOf: value.utf8) }
    }

    /// Generates a new verifier from a cryptographically secure random number generator.
    ///
    /// The verifier is the base64url encoding (RFC 4648 §5, unpadded) of `ceil(length × 3 / 4)`
    /// random bytes, cut to `length` characters. Every character therefore carries 6 random bits
    /// with no bias: the default 43 characters hold 258 bits, above the 256 RFC 7636 §7.1
    /// recommends.
    ///
    /// The random bytes are zeroed once encoded. The verifier itself Swift gives no way to wipe:
    /// every copy of it (on the stack, in an array, in a `String` read from ``value``, a request
    /// body, a log line) stays in memory until something else overwrites it.
    ///
    /// - Parameters:
    ///   - length: The number of characters, 43 to 128.
    ///   - backend: Where the random bytes come from.
    /// - Returns: A fresh verifier.
    /// - Throws: ``PKCEError/invalidLength(_:length:)`` when `length` is outside 43…128, or the
    ///   backend's error when its random number generator fails;
    ///   ``PKCEError/randomFailure(source:code:)`` with code 0 when the backend reported success but
    ///   left every byte zero. No verifier is produced then.
    public static func generate(length: Int = 43, using backend: some PKCEBackend) throws -> CodeVerifier {
        guard allowedLengths.contains(length) else {
            throw PKCEError.invalidLength(.codeVerifier, length: length)
        }
        let byteCount = (length * 3 + 3) / 4
        let characters = try VerifierCharacters(count: length) { characters in
            // Two bytes more than the random ones, zero, so that the encoder's 8-byte loads (6
            // bytes used, 2 read ahead) cover every whole group of eight characters.
            try withUnsafeTemporaryAllocation(byteCount: byteCount + 2, alignment: 8) { buffer in
                // Zeroed first, so that a backend that writes nothing hands back zeros, never
                // what the stack held before: and all zeros, 2⁻²⁶⁴ likely or less from a real
                // generator, is refused.
                buffer.initializeMemory(as: UInt8.self, repeating: 0)
                defer { zeroize(buffer) }
                let random = UnsafeMutableRawBufferPointer(rebasing: buffer[..<byteCount])
                try backend.fillRandom(random)
                guard !isAllZero(UnsafeRawBufferPointer(random)) else {
                    throw PKCEError.randomFailure(source: "fillRandom of the \(backend.name) backend", code: 0)
                }
                Base64URL.encode(UnsafeRawBufferPointer(buffer), into: characters)
            }
        }
        return CodeVerifier(characters: characters)
    }

    private init(characters: VerifierCharacters) {
        self.characters = characters
    }
}

// MARK: - Printing

/// Only the length is printed, wherever a verifier is printed: string interpolation, `print`,
/// `dump`, `debugPrint` and a debugger's `po` (which read `debugDescription` and `customMirror`,
/// not `description`).
extension CodeVerifier: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// `CodeVerifier(43 characters)`: the length, never the secret.
    public var description: String {
        "CodeVerifier(\(length) characters)"
    }

    /// The same as ``description``.
    public var debugDescription: String { description }

    /// One child, the length: a mirror of the stored properties would show the secret.
    public var customMirror: Mirror {
        Mirror(self, children: ["length": length], displayStyle: .struct)
    }
}
