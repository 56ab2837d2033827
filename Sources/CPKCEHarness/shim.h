#ifndef CPKCEHARNESS_SHIM_H
#define CPKCEHARNESS_SHIM_H

// What the benchmark harness needs of the system beyond the PKCE module's portable calls: CPU
// affinity (Linux only; elsewhere it reports that it cannot), what the compiler targets, and CPUID.
#include <stddef.h>
#include <stdint.h>
#if defined(__linux__)
#include <errno.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/xattr.h>
#include <unistd.h>
#endif
#if defined(__x86_64__)
#include <cpuid.h>
#endif

/// Reads the extended attribute `name` of `path` into `value` (`size` bytes), following a link
/// at `path` when `follow` is nonzero: getxattr(2) or lgetxattr(2), which Swift's Glibc module does
/// not export. Returns its length, or -1 with errno set (ENOTSUP on systems other than Linux).
static inline long CPKCEHarness_getxattr(const char *path, const char *name, void *value, size_t size, int follow) {
#if defined(__linux__)
    return (long)(follow ? getxattr(path, name, value, size) : lgetxattr(path, name, value, size));
#else
    (void)path; (void)name; (void)value; (void)size; (void)follow;
    errno = ENOTSUP;
    return -1;
#endif
}

/// Pins the calling thread, and the processes it starts from now on, to one CPU it may run on:
/// the last of its affinity mask. Returns that CPU's number, or -1 when the mask cannot be read or
/// set, and on systems other than Linux. (The raw system calls: glibc's wrappers and CPU_SET need
/// _GNU_SOURCE, which Swift's Glibc module is built without.)
static inline int CPKCEHarness_pinToOneCPU(void) {
#if defined(__linux__)
    enum { bitsPerWord = 8 * sizeof(unsigned long) };
    unsigned long mask[16] = {0};
    long size = syscall(SYS_sched_getaffinity, 0, sizeof mask, mask);
    if (size <= 0) return -1;
    int last = -1;
    for (int cpu = 0; cpu < (int)(size * 8); cpu++) {
        if ((mask[cpu / bitsPerWord] >> (cpu % bitsPerWord)) & 1UL) last = cpu;
    }
    if (last < 0) return -1;
    unsigned long one[16] = {0};
    one[last / bitsPerWord] = 1UL << (last % bitsPerWord);
    if (syscall(SYS_sched_setaffinity, 0, sizeof one, one) != 0) return -1;
    return last;
#else
    return -1;
#endif
}

/// The instruction set this code is compiled for, from the compiler's predefined macros.
///
/// Swift passes its `-target-cpu` to the C headers it imports, so in a Swift module this tells
/// what the Swift code itself was compiled for, which Swift's own `#if` cannot: `x86-64` by
/// default, up to `x86-64-v4` (AVX-512) with `-target-cpu native` on a machine that has it.
static inline const char *CPKCEHarness_targetCPU(void) {
#if defined(__x86_64__)
#if defined(__AVX512F__) && defined(__AVX512BW__) && defined(__AVX512CD__) && defined(__AVX512DQ__) \
    && defined(__AVX512VL__)
    return "x86-64-v4";
#elif defined(__AVX2__) && defined(__BMI2__) && defined(__FMA__)
    return "x86-64-v3";
#elif defined(__SSE4_2__) && defined(__POPCNT__) && defined(__SSSE3__)
    return "x86-64-v2";
#else
    return "x86-64";
#endif
#elif defined(__aarch64__)
    return "arm64";
#else
    return "unknown";
#endif
}

/// CPU features as the CPUID instruction reports them to this process: bit 0 SHA (sha_ni), bit 1
/// AVX2, bit 2 AVX-512F; 0 on other architectures. Unlike /proc/cpuinfo, this is what code that
/// dispatches on CPUID sees, which under Valgrind is its emulated CPU, not the real one. (AVX2 and
/// AVX-512 also need the OS to save their registers, which XGETBV would tell; the libraries check
/// that themselves, and here the bits only describe the CPU.)
static inline unsigned CPKCEHarness_cpuidFeatures(void) {
#if defined(__x86_64__)
    unsigned eax, ebx, ecx, edx;
    if (__get_cpuid_max(0, 0) < 7) return 0;
    __cpuid_count(7, 0, eax, ebx, ecx, edx);
    return ((ebx >> 29) & 1u) | (((ebx >> 5) & 1u) << 1) | (((ebx >> 16) & 1u) << 2);
#else
    return 0;
#endif
}

#endif
