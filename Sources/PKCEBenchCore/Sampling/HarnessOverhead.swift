import PKCE

/// What the timing loop itself costs per operation (the loop, picking the input, the call through
/// the protocol, consuming the result): the `sha256` case over an empty message, against a backend
/// whose `sha256` does nothing.
package enum HarnessOverhead {
    /// Returns statistics of nanoseconds per operation. `cancellation` is asked between samples
    /// whether a signal asked the run to stop.
    package static func measure(
        plan: SamplingPlan, cancellation: Cancellation = .never
    ) throws(BenchError) -> Statistics? {
        let empty = BenchmarkCase(backend: NullBackend(), operation: .sha256, size: 0)
        let measurement = try Sampler(cases: [empty], plan: plan, cancellation: cancellation).run()
        return measurement.first.flatMap { Statistics($0.nanosecondsPerOperation) }
    }
}

/// A backend that does no work, for measuring the harness around it.
struct NullBackend: PKCEBackend {
    var name: String { "null" }

    func fillRandom(_ buffer: UnsafeMutableRawBufferPointer) throws {}

    func sha256(_ message: UnsafeRawBufferPointer, into digest: UnsafeMutableRawBufferPointer) {}
}
