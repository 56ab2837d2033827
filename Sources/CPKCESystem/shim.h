#ifndef CPKCESYSTEM_SHIM_H
#define CPKCESYSTEM_SHIM_H

// The parts of the C library that Swift's Glibc module does not export.
#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <sys/random.h>
#include <sys/types.h>

/// getrandom(2) with the blocking, non-GRND_RANDOM flags: the kernel CSPRNG, which blocks only
/// until it has been seeded once after boot.
static inline ssize_t CPKCESystem_getrandom(void *buffer, size_t count) {
    return getrandom(buffer, count, 0);
}

/// Overwrites `count` bytes with zeros in a way the compiler may not elide as a dead store.
static inline void CPKCESystem_zeroize(void *buffer, size_t count) {
    explicit_bzero(buffer, count);
}

#endif
