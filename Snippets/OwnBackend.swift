import PKCEBenchKit

/// A backend of your own. This one delegates to SwiftBackend so that the example runs anywhere;
/// yours calls your library.
struct MyBackend: PKCEBackend {
    /// Its name in case names, reports and --backend: lowercase letters, digits, '-', '_' and '.'.
    var name: String { "mine" }

    /// What every row of its results records as the library (optional).
    var library: String { "my-crypto 1.0" }

    func fillRandom(_ buffer: UnsafeMutableRawBufferPointer) throws {
        try SwiftBackend().fillRandom(buffer)
    }

    func sha256(_ message: UnsafeRawBufferPointer, into digest: UnsafeMutableRawBufferPointer) {
        SwiftBackend().sha256(message, into: digest)
    }
}

// The whole bench command line, for these backends: `swift run -c release mybench --quick`.
await Bench.main(backends: [MyBackend(), SwiftBackend()])
