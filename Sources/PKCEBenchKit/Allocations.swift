internal import CPKCEMallocCounter
import PKCEBenchCore

/// `nil` where the malloc interposer is compiled out (a C library other than glibc, a build under
/// AddressSanitizer or ThreadSanitizer) or found not to be in effect; reports then leave
/// `allocs_per_op` empty rather than claim zero.
let processAllocationCounter: AllocationCounter? =
    CPKCEMallocCounter_isActive() == 1
    ? AllocationCounter(threadAllocations: { CPKCEMallocCounter_threadAllocations() }) : nil
