// Counts heap allocations per thread by interposing the C library's allocation functions.
//
// A definition of malloc in the executable comes first in the dynamic linker's search order, so
// libswiftCore, libcrypto, libsodium and the C library itself call it instead of glibc's, which
// it then calls by its other name (__libc_malloc and friends, which glibc exports for exactly
// this). free needs no counting and is left alone: every pointer still comes from glibc.
//
// The counter is a thread-local integer in the executable's static TLS block: one increment per
// allocation, no atomics, no lock. The harness reads it on the thread that runs a case, before
// and after the timed loop.

#include "CPKCEMallocCounter.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define CPKCEMALLOCCOUNTER_SANITIZED 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define CPKCEMALLOCCOUNTER_SANITIZED 1
#endif

#if defined(__GLIBC__) && !defined(CPKCEMALLOCCOUNTER_SANITIZED)

static __thread uint64_t allocations __attribute__((tls_model("initial-exec")));

// glibc's implementations under the names it exports for interposers (GLIBC_2.2.5).
extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *pointer, size_t size);
extern void *__libc_memalign(size_t alignment, size_t size);
extern void *__libc_valloc(size_t size);
extern void *__libc_pvalloc(size_t size);

void *malloc(size_t size) {
    allocations++;
    return __libc_malloc(size);
}

void *calloc(size_t count, size_t size) {
    allocations++;
    return __libc_calloc(count, size);
}

void *realloc(void *pointer, size_t size) {
    allocations++;
    return __libc_realloc(pointer, size);
}

void *memalign(size_t alignment, size_t size) {
    allocations++;
    return __libc_memalign(alignment, size);
}

void *aligned_alloc(size_t alignment, size_t size) {
    // C11 as glibc 2.38 enforces it: the alignment must be a power of two.
    if (alignment == 0 || (alignment & (alignment - 1)) != 0) {
        errno = EINVAL;
        return NULL;
    }
    allocations++;
    return __libc_memalign(alignment, size);
}

int posix_memalign(void **result, size_t alignment, size_t size) {
    // POSIX: a power of two that is a multiple of sizeof(void *), or EINVAL; errno is left alone.
    if (alignment % sizeof(void *) != 0 || (alignment & (alignment - 1)) != 0 || alignment == 0) {
        return EINVAL;
    }
    allocations++;
    int saved = errno;
    void *pointer = __libc_memalign(alignment, size);
    errno = saved;
    if (pointer == NULL) {
        return ENOMEM;
    }
    *result = pointer;
    return 0;
}

void *valloc(size_t size) {
    allocations++;
    return __libc_valloc(size);
}

void *pvalloc(size_t size) {
    allocations++;
    return __libc_pvalloc(size);
}

uint64_t CPKCEMallocCounter_threadAllocations(void) {
    return allocations;
}

int CPKCEMallocCounter_isActive(void) {
    // strdup is in the C library, and its malloc goes through the dynamic linker like any other
    // library's; called through a volatile pointer so that the compiler cannot turn it into a
    // direct call of this file's malloc.
    char *(*volatile duplicate)(const char *) = strdup;
    uint64_t before = allocations;
    char *copy = duplicate("x");
    int counted = copy != NULL && allocations > before;
    free(copy);
    return counted;
}

#else

uint64_t CPKCEMallocCounter_threadAllocations(void) {
    return 0;
}

int CPKCEMallocCounter_isActive(void) {
    return 0;
}

#endif
