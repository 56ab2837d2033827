import Foundation
import Synchronization

/// The signal that asked the process to stop, or 0.
private let pendingSignal = Atomic<Int32>(0)

/// Turns SIGINT and SIGTERM into a request that a run honours between samples.
///
/// A run that is stopped must not leave a partial report or a temporary file behind, and must
/// not touch the baseline or the history: so the signal only raises a flag, the sampler stops at
/// the next sample, and the command exits with 128 + the signal's number without writing. A
/// second signal while the first is pending stops the process at once.
package enum InterruptSignals {
    /// Catches SIGINT and SIGTERM from now on, and gives SIGCHLD its default action.
    ///
    /// Call it before starting threads: it also unblocks both signals on the calling thread, which
    /// threads started later inherit: a parent may spawn this process with them blocked (the test
    /// runner's threads do), and a blocked signal would never stop the run.
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
