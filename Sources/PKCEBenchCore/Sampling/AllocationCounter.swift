/// Tells how many heap allocations the calling thread has made, in a process that can count them.
///
/// The harness reads it on each measuring thread just before and just after the timed loop, so a
/// sample's count holds the allocations of its operations and nothing else: not the harness's
/// own, and not those of other threads. `bench` supplies one backed by the malloc interposer
/// linked into it; a harness without one leaves `allocs_per_op` empty in its reports.
package struct AllocationCounter: Sendable {
    /// The calling thread's allocations since it started; only differences matter.
    package let threadAllocations: @Sendable () -> UInt64

    /// `threadAllocations` is called around every sample, so it must not allocate itself.
    package init(threadAllocations: @escaping @Sendable () -> UInt64) {
        self.threadAllocations = threadAllocations
    }
}
