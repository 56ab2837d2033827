internal import CPKCESystem

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The kernel's CSPRNG, through `getentropy(3)`, which Linux (glibc 2.25 and later) and Apple
/// platforms both have.
enum SystemRandom {
    /// The most bytes one call of `getentropy` may ask for.
    static let limit = Int(CPKCESystem_getentropyLimit)

    /// Fills `buffer` with random bytes, at most ``limit`` at a time, retrying on `EINTR`.
    ///
    /// - Throws: ``PKCEError/randomFailure(source:code:)`` with the `errno` of a failed call.
    static func fill(_ buffer: UnsafeMutableRawBufferPointer) throws(PKCEError) {
        try fill(buffer) { CPKCESystem_getentropy($0, $1) }
    }

    /// Fills `buffer` through `getentropy`, a function of `getentropy(3)`'s shape (0 when it
    /// filled the whole request, -1 with `errno` set when it failed): the loop, which tests drive
    /// with interrupted and failing calls.
    ///
    /// - Throws: ``PKCEError/randomFailure(source:code:)`` with the `errno` of a failed call.
    static func fill(
        _ buffer: UnsafeMutableRawBufferPointer, with getentropy: (UnsafeMutableRawPointer, Int) -> Int32
    ) throws(PKCEError) {
        guard let base = buffer.baseAddress else { return }
        var filled = 0
        while filled < buffer.count {
            let count = min(limit, buffer.count - filled)
            let result = getentropy(base + filled, count)
            if result == 0 {
                filled += count
            } else if result == -1 && errno == EINTR {
                continue
            } else {
                throw .randomFailure(source: "getentropy", code: result == -1 ? Int(errno) : Int(EIO))
            }
        }
    }
}
