import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The signal that asked the process to stop, or 0.
private let pendingSignal = Atomic<Int32>(0)

/// Turns SIGINT and SIGTERM into a request that a run honours between samples.
///
/// A run that is stopped must not leave a partial report or a temporary file behind, and must
/// not touch the baseline or the history: so the signal only raises a flag, the sampler stops at
/// the next sample, and the command exits with 128 + the signal's number without writing. A
/// second signal while the first is pending stops the process at once.
public enum InterruptSignals {
    /// Catches SIGINT and SIGTERM from now on.
    public static func install() {
        for signalNumber in [SIGINT, SIGTERM] {
            signal(signalNumber) { received in
                let (exchanged, _) = pendingSignal.compareExchange(
                    expected: 0, desired: received, ordering: .relaxed)
                if !exchanged {
                    signal(received, SIG_DFL)
                    raise(received)
                }
            }
        }
    }

    /// The signal received since ``install()``, if any.
    public static var received: Int32? {
        let value = pendingSignal.load(ordering: .relaxed)
        return value == 0 ? nil : value
    }

    /// The exit status for a signal: 130 for SIGINT, 143 for SIGTERM.
    public static func exitStatus(for signal: Int32) -> ExitStatus {
        signal == SIGTERM ? .terminated : .interrupted
    }
}
