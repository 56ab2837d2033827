import Foundation
import Synchronization

/// The signal that asked the process to stop, or 0.
private let pendingSignal = Atomic<Int32>(0)

/// Turns SIGINT and SIGTERM into a flag that a run honours between samples, so that it exits
/// without writing anything; a second signal while the first is pending stops the process at once.
package enum InterruptSignals {
    /// Catches SIGINT and SIGTERM from now on, and gives SIGCHLD its default action. Call it before
    /// starting threads: it unblocks both signals (a parent such as the test runner may have
    /// blocked them) on this thread, which later threads inherit.
    package static func install() {
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGINT)
        sigaddset(&signals, SIGTERM)
        pthread_sigmask(SIG_UNBLOCK, &signals, nil)
        // A parent that ignores SIGCHLD passes that on through exec, and the kernel would then reap
        // this process's children itself: no worker's exit status could be read.
        signal(SIGCHLD, SIG_DFL)
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
    package static var received: Int32? {
        let value = pendingSignal.load(ordering: .relaxed)
        return value == 0 ? nil : value
    }

    /// The signal that stopped a process that exited with `status`: a `bench` that a signal
    /// stopped exits, as a shell reports it, with 128 plus SIGINT or SIGTERM.
    package static func signalNumber(forExitStatus status: Int32) -> Int32? {
        [SIGINT, SIGTERM].first { 128 + $0 == status }
    }

    package static func error(for signal: Int32) -> BenchError {
        signal == SIGTERM
            ? BenchError(.terminated, "stopped by SIGTERM; no report was written")
            : BenchError(.interrupted, "stopped by SIGINT; no report was written")
    }
}

/// Whether the run was asked to stop: the one value that every wait for a child and every
/// measuring loop asks between steps, so that a signal ends the run with nothing written.
package struct Cancellation {
    private let pending: () -> Int32?

    /// A cancellation that asks `pending` for the signal that asked the run to stop, if any.
    package init(_ pending: @escaping () -> Int32?) {
        self.pending = pending
    }

    /// Asked to stop by the SIGINT or SIGTERM that ``InterruptSignals`` caught.
    package static var signals: Cancellation { Cancellation { InterruptSignals.received } }

    /// Never asked to stop.
    package static var never: Cancellation { Cancellation { nil } }

    /// The signal that asked the run to stop, or `nil`.
    package var signal: Int32? { pending() }

    /// - Throws: ``BenchError``: `.interrupted` or `.terminated` once a signal asked the run to stop.
    package func check() throws(BenchError) {
        if let signal = pending() { throw InterruptSignals.error(for: signal) }
    }
}
