#ifndef CPKCESYSTEM_SHIM_H
#define CPKCESYSTEM_SHIM_H

// What the PKCE module needs of the C library, through calls that Linux (glibc 2.25 and later)
// and Apple platforms both have. Linux-only calls belong to the harness (CPKCEHarness).
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#if defined(__APPLE__)
#include <sys/random.h>
#endif

/// The most bytes one call of `CPKCESystem_getentropy` may ask for.
enum { CPKCESystem_getentropyLimit = 256 };

/// getentropy(3): at most 256 bytes from the kernel's CSPRNG, which blocks only until it has been
/// seeded once after boot. Returns 0, or -1 with `errno` set.
static inline int CPKCESystem_getentropy(void *buffer, size_t count) {
    return getentropy(buffer, count);
}

/// Returns `value` unchanged, hidden from the optimiser: an empty assembly statement that claims
/// to read and change it, as BoringSSL's `value_barrier_w` does. A loop that ORs differences into
/// an accumulator passed through it cannot be cut short once the accumulator is non-zero, nor
/// turned into a comparison that stops at the first difference.
static inline uint64_t CPKCESystem_valueBarrier(uint64_t value) {
#if defined(__GNUC__) || defined(__clang__)
    __asm__("" : "+r"(value));
#endif
    return value;
}

/// Stores the 32-bit `word` at `address` in one store of four bytes: a relaxed atomic store, which
/// the optimiser does not merge with its neighbours into a wider one (on x86-64 it is an ordinary
/// `mov`). A reader that loads the words one by one gets each from its own store.
static inline void CPKCESystem_storeWord(void *address, uint32_t word) {
    __atomic_store_n((uint32_t *)address, word, __ATOMIC_RELAXED);
}

/// Overwrites `count` bytes with zeros in a way the compiler may not elide as a dead store: glibc's
/// `explicit_bzero`, and elsewhere `memset` followed by an empty assembly statement that claims to
/// read the memory, as BoringSSL's `OPENSSL_cleanse` does (no header declares `memset_s` to a
/// Swift module on Apple platforms, whose C library declares it only on request).
static inline void CPKCESystem_zeroize(void *buffer, size_t count) {
#if defined(__GLIBC__)
    explicit_bzero(buffer, count);
#else
    memset(buffer, 0, count);
    __asm__ __volatile__("" : : "r"(buffer) : "memory");
#endif
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
/// XGETBV: the extended control register `index`, whose bits say which registers the operating
/// system saves on a context switch (index 0, XCR0: bit 1 SSE, bit 2 AVX). Swift cannot call the
/// compiler's `_xgetbv`, a macro, so the instruction is written out here.
///
/// - Precondition: CPUID leaf 1 reports OSXSAVE (ECX bit 27); without it the instruction faults.
static inline uint64_t CPKCESystem_xgetbv(uint32_t index) {
    uint32_t low, high;
    __asm__ __volatile__("xgetbv" : "=a"(low), "=d"(high) : "c"(index));
    return ((uint64_t)high << 32) | low;
}
#endif

/// The number of messages the pure-Swift batch SHA-256 hashes at once: as many 32-bit lanes as
/// one vector register holds on the target, 4 on baseline x86-64 (SSE2), 8 with AVX2, 16 with
/// AVX-512. Wider vectors than the registers run out of registers and spill.
static inline int CPKCESystem_sha256Lanes(void) {
#if defined(__AVX512F__)
    return 16;
#elif defined(__AVX2__)
    return 8;
#else
    return 4;
#endif
}

#endif
