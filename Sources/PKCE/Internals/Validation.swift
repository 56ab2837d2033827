/// Checks a PKCE parameter against its alphabet and length.
///
/// The alphabet is checked before the length, so that a 43-character verifier with a trailing
/// newline is reported as the newline at position 43, which says more than "44 characters".
///
/// - Parameters:
///   - value: The string to check, taken whole: nothing is trimmed.
///   - parameter: Which parameter `value` is, for the error.
///   - lengths: The lengths allowed.
///   - isAllowed: Whether a byte is in the alphabet; only ASCII bytes may pass.
/// - Throws: ``PKCEError/invalidCharacter(_:character:position:)`` for the first byte outside the
///   alphabet, then ``PKCEError/invalidLength(_:length:)``.
func validate(
    _ value: String,
    as parameter: PKCEError.Parameter,
    lengths: ClosedRange<Int>,
    isAllowed: (UInt8) -> Bool
) throws(PKCEError) {
    let utf8 = value.utf8
    var position = 0
    for index in utf8.indices {
        guard isAllowed(utf8[index]) else {
            // Every byte before this one was ASCII, so the byte offset is also the scalar offset,
            // and `index` starts a scalar.
            throw .invalidCharacter(parameter, character: value.unicodeScalars[index], position: position)
        }
        position += 1
    }
    guard lengths.contains(position) else {
        throw .invalidLength(parameter, length: position)
    }
}
