import PKCE

/// libFuzzer's entry point: SHA-256 of arbitrary bytes on each path of the pure-Swift backend.
///
/// The path this process selected (on the SHA instructions, where the CPU has them) must give the
/// digest of the portable path, at every length the fuzzer reaches: the padding's boundaries and
/// multi-block messages included. Each message is hashed in place, so that AddressSanitizer sees
/// any read past its end.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSHA256(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let message = UnsafeRawBufferPointer(start: data, count: size)
    var selected = [UInt8](repeating: 0, count: sha256ByteCount)
    var portable = [UInt8](repeating: 0xFF, count: sha256ByteCount)
    selected.withUnsafeMutableBytes { SwiftBackend().sha256(message, into: $0) }
    portable.withUnsafeMutableBytes { SwiftBackend.portable.sha256(message, into: $0) }
    precondition(selected == portable, "the paths differ on \(size) bytes")
    return 0
}
