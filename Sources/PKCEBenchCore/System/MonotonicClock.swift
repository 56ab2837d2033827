import Foundation

/// Nanoseconds from `CLOCK_MONOTONIC`: never set back, read through the vDSO, without a system call.
package enum MonotonicClock {
    package static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) &* 1_000_000_000 &+ UInt64(time.tv_nsec)
    }
}
