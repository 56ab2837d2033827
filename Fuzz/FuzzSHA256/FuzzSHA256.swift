import PKCE

/// The pure-Swift backend on each path this CPU can run.
private let paths = SwiftBackend.everyPath

/// libFuzzer's entry point: SHA-256 of arbitrary bytes on each path of the pure-Swift backend.
///
/// Every path this CPU can run (the SHA instructions, AVX2, SSE2, scalar: `SwiftBackend.everyPath`) must give
/// the digest of the portable path, at every length the fuzzer reaches: the padding's boundaries
/// and multi-block messages included. Each message is hashed in place, so that AddressSanitizer sees
/// any read past its end.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSHA256(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let message = UnsafeRawBufferPointer(start: data, count: size)
    var portable = [UInt8](repeating: 0xFF, count: sha256ByteCount)
    portable.withUnsafeMutableBytes { SwiftBackend.portable.sha256(message, into: $0) }
    for backend in paths {
        var digest = [UInt8](repeating: 0, count: sha256ByteCount)
        digest.withUnsafeMutableBytes { backend.sha256(message, into: $0) }
        precondition(digest == portable, "\(backend.library) differs from the portable path on \(size) bytes")
    }
    return 0
}
