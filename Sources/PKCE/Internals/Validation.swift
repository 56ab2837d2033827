/// Checks a PKCE parameter against its alphabet and length.
///
/// At most one byte more than the longest allowed length is read, so that an attacker's
/// multi-megabyte `code_verifier` costs no more than one of 129 bytes. Within those bytes the
/// alphabet is checked before the length, so that a 43-character verifier with a trailing newline
/// is reported as the newline at position 43, which says more than "44 characters".
///
/// - Parameters:
///   - value: The string to check, taken whole: nothing is trimmed.
///   - parameter: Which parameter `value` is, for the error.
///   - lengths: The lengths allowed.
///   - isAllowed: Whether a byte is in the alphabet; only ASCII bytes may pass.
/// - Throws: ``PKCEError/invalidCharacter(_:character:position:)`` for the first byte outside the
///   alphabet among the first `lengths.upperBound + 1`, then ``PKCEError/invalidLength(_:length:)``.
func validate(
    _ value: String,
    as parameter: PKCEError.Parameter,
    lengths: ClosedRange<Int>,
    isAllowed: (UInt8) -> Bool
) throws(PKCEError) {
    // A native string knows its UTF-8 count without reading it.
    let length = value.utf8.count
    let read = min(length, lengths.upperBound + 1)
    // A native string's UTF-8 is contiguous: scan the bytes directly, which the token endpoint
    // does on every request, rather than step through String.UTF8View's indices.
    let firstDisallowed =
        value.utf8.withContiguousStorageIfAvailable { bytes in
            UnsafeBufferPointer(rebasing: bytes[..<read]).firstIndex { !isAllowed($0) }
        }
        ?? value.utf8.prefix(read).firstIndex { !isAllowed($0) }.map {
            value.utf8.distance(from: value.utf8.startIndex, to: $0)
        }
    if let position = firstDisallowed {
        // Every byte before this one was ASCII, so the byte offset is also the scalar offset,
        // and the byte starts a scalar.
        let index = value.utf8.index(value.utf8.startIndex, offsetBy: position)
        throw .invalidCharacter(parameter, character: value.unicodeScalars[index], position: position)
    }
    guard lengths.contains(length) else {
        throw .invalidLength(parameter, length: length)
    }
}
