internal import CPKCESystem

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The kernel's CSPRNG, through `getrandom(2)`.
enum SystemRandom {
    /// Fills `buffer` with random bytes, retrying on `EINTR` and short reads.
    ///
    /// - Throws: ``PKCEError/randomFailure(source:code:)`` with the `errno` of a failed call.
    static func fill(_ buffer: UnsafeMutableRawBufferPointer) throws(PKCEError) {
        try fill(buffer) { CPKCESystem_getrandom($0, $1) }
    }

    /// Fills `buffer` through `getrandom`, a function of `getrandom(2)`'s shape that sets `errno`
    /// when it fails: the retry loop, which tests drive with interrupted and short calls.
    ///
    /// - Throws: ``PKCEError/randomFailure(source:code:)`` with the `errno` of a failed call.
    static func fill(
        _ buffer: UnsafeMutableRawBufferPointer, with getrandom: (UnsafeMutableRawPointer, Int) -> Int
    ) throws(PKCEError) {
        guard let base = buffer.baseAddress else { return }
        var filled = 0
        while filled < buffer.count {
            let result = getrandom(base + filled, buffer.count - filled)
            if result > 0 {
                filled += result
            } else if result < 0 && errno == EINTR {
                continue
            } else {
                // getrandom never returns 0 for a non-empty request; if it did, looping would never end.
                throw .randomFailure(source: "getrandom", code: result < 0 ? Int(errno) : Int(EIO))
            }
        }
    }
}
