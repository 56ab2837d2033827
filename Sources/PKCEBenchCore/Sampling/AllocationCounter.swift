/// Tells how many heap allocations the calling thread has made: read on each measuring thread
/// around the timed loop, so a sample counts its operations' allocations and nothing else.
package struct AllocationCounter: Sendable {
    /// The calling thread's allocations since it started; only differences matter.
    package let threadAllocations: @Sendable () -> UInt64

    /// `threadAllocations` is called around every sample, so it must not allocate itself.
    package init(threadAllocations: @escaping @Sendable () -> UInt64) {
        self.threadAllocations = threadAllocations
    }
}
