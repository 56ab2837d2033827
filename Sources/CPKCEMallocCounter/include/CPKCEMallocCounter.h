#ifndef CPKCEMALLOCCOUNTER_H
#define CPKCEMALLOCCOUNTER_H

#include <stdint.h>

/// The heap allocations the calling thread has made so far: calls to malloc, calloc, realloc,
/// posix_memalign, aligned_alloc, memalign, valloc and pvalloc, from any code in the process.
///
/// Counting works by defining those functions in the executable, where the dynamic linker finds
/// them before the C library's, for every shared library too; each counts and forwards to
/// glibc's own implementation. It is compiled out where that cannot work (a C library other than
/// glibc) or would fight another allocator (AddressSanitizer, ThreadSanitizer); see
/// CPKCEMallocCounter_isActive.
uint64_t CPKCEMallocCounter_threadAllocations(void);

/// 1 when allocations are counted in this process, 0 otherwise.
///
/// Checked, not assumed: it makes the C library allocate (strdup calls malloc through the dynamic
/// linker, as any shared library does) and looks for the count to move.
int CPKCEMallocCounter_isActive(void);

#endif
