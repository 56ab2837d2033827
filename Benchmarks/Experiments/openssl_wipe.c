// Why bench read OpenSSL's SHA-256 17% slower than Google Benchmark at 64 bytes (issue 29):
// one loop over 16 messages in rotation, the hash made the way CPKCEOpenSSL_sha256 makes it
// (SHA256_Init/Update/Final on a context on the stack), with the context wiped in different ways,
// in a function of its own (as every Swift caller calls the backend) or inlined into the loop (as
// Google Benchmark's loop had it). PKCEBenchKit's Performance article, "Fidelity", has its output.
//
//   dir=$(mktemp -d)
//   cc -O2 Benchmarks/Experiments/openssl_wipe.c -o "$dir/openssl_wipe" $(pkg-config --cflags --libs libcrypto)
//   "$dir/openssl_wipe" 0 43 64 128 1024
//
// Prints, per size, each variant's best of 7 runs of 20,000 calls, in ns per call; then, at 64
// bytes, the two wipes with the context at each 8-byte offset within a 64-byte-aligned stack buffer
// (where a compiler puts the context in its frame decides which of these a caller gets).
#define _DEFAULT_SOURCE
#define OPENSSL_SUPPRESS_DEPRECATED 1
#include <openssl/crypto.h>
#include <openssl/sha.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static uint8_t *messages;
static size_t size;
static uint8_t digest[32] __attribute__((aligned(64)));

static double now(void) {
    struct timespec time;
    clock_gettime(CLOCK_MONOTONIC, &time);
    return (double)time.tv_sec * 1e9 + (double)time.tv_nsec;
}

#define HASH(message, count, out)                                                                  \
    SHA256_CTX context;                                                                            \
    int ok = SHA256_Init(&context) == 1 && SHA256_Update(&context, message, count) == 1            \
             && SHA256_Final(out, &context) == 1

static inline int inlinedCleanse(const void *message, size_t count, uint8_t *out) {
    HASH(message, count, out);
    OPENSSL_cleanse(&context, sizeof context);
    return ok;
}
__attribute__((noinline)) static int ownCleanse(const void *message, size_t count, uint8_t *out) {
    HASH(message, count, out);
    OPENSSL_cleanse(&context, sizeof context);
    return ok;
}
__attribute__((noinline)) static int ownExplicitBzero(const void *message, size_t count, uint8_t *out) {
    HASH(message, count, out);
    explicit_bzero(&context, sizeof context);
    return ok;
}
__attribute__((noinline)) static int ownMemsetBarrier(const void *message, size_t count, uint8_t *out) {
    HASH(message, count, out);
    memset(&context, 0, sizeof context);
    __asm__ __volatile__("" : : "r"(&context) : "memory");
    return ok;
}
__attribute__((noinline)) static int ownNoWipe(const void *message, size_t count, uint8_t *out) {
    HASH(message, count, out);
    return ok;
}

// The context at `offset` bytes into a 64-byte-aligned buffer in the function's frame.
#define PLACED(name, wipe)                                                                         \
    __attribute__((noinline)) static int name(const void *message, size_t count, uint8_t *out,     \
                                              size_t offset) {                                     \
        _Alignas(64) unsigned char frame[256];                                                     \
        SHA256_CTX *context = (SHA256_CTX *)(void *)(frame + offset);                              \
        int ok = SHA256_Init(context) == 1 && SHA256_Update(context, message, count) == 1          \
                 && SHA256_Final(out, context) == 1;                                               \
        wipe;                                                                                      \
        __asm__ __volatile__("" : : "r"(frame) : "memory");                                        \
        return ok;                                                                                 \
    }
PLACED(placedCleanse, OPENSSL_cleanse(context, sizeof *context))
PLACED(placedExplicitBzero, explicit_bzero(context, sizeof *context))

__attribute__((noinline)) static double placedLoop(int (*hash)(const void *, size_t, uint8_t *, size_t),
                                                   size_t offset) {
    double best = 1e18;
    for (int run = 0; run < 7; run++) {
        double start = now();
        for (int i = 0; i < 20000; i++) {
            if (!hash(messages + (size_t)(i & 15) * size, size, digest, offset)) abort();
        }
        double perCall = (now() - start) / 20000;
        if (perCall < best) best = perCall;
    }
    return best;
}

// One loop per variant, each out of line, so that only the hash's own shape differs.
#define LOOP(name, hash)                                                                           \
    __attribute__((noinline)) static double name(void) {                                           \
        double best = 1e18;                                                                        \
        for (int run = 0; run < 7; run++) {                                                        \
            double start = now();                                                                  \
            for (int i = 0; i < 20000; i++) {                                                      \
                if (!hash(messages + (size_t)(i & 15) * size, size, digest)) abort();              \
            }                                                                                      \
            double perCall = (now() - start) / 20000;                                              \
            if (perCall < best) best = perCall;                                                    \
        }                                                                                          \
        return best;                                                                               \
    }
LOOP(loopInlinedCleanse, inlinedCleanse)
LOOP(loopOwnCleanse, ownCleanse)
LOOP(loopOwnExplicitBzero, ownExplicitBzero)
LOOP(loopOwnMemsetBarrier, ownMemsetBarrier)
LOOP(loopOwnNoWipe, ownNoWipe)

int main(int argc, char **argv) {
    printf("%6s %18s %16s %23s %24s %16s\n", "bytes", "inlined, cleanse", "own fn, cleanse",
           "own fn, explicit_bzero", "own fn, memset+barrier", "own fn, no wipe");
    for (int argument = 1; argument < argc; argument++) {
        size = strtoul(argv[argument], NULL, 10);
        messages = aligned_alloc(4096, (16 * size + 4096) / 4096 * 4096);
        if (messages == NULL) return 70;
        for (size_t i = 0; i < 16 * size; i++) messages[i] = (uint8_t)(i * 131 + (i >> 8));
        printf("%6zu %18.1f %16.1f %23.1f %24.1f %16.1f\n", size, loopInlinedCleanse(), loopOwnCleanse(),
               loopOwnExplicitBzero(), loopOwnMemsetBarrier(), loopOwnNoWipe());
        free(messages);
    }
    size = 64;
    messages = aligned_alloc(4096, 4096);
    if (messages == NULL) return 70;
    for (size_t i = 0; i < 16 * size; i++) messages[i] = (uint8_t)(i * 131 + (i >> 8));
    const char *names[] = {"cleanse", "explicit_bzero"};
    int (*hashes[])(const void *, size_t, uint8_t *, size_t) = {placedCleanse, placedExplicitBzero};
    printf("\n64 bytes, the context at offset 0, 8, ..., 120 of a 64-byte-aligned stack buffer:\n");
    for (int wipe = 0; wipe < 2; wipe++) {
        printf("%-15s", names[wipe]);
        for (size_t offset = 0; offset < 128; offset += 8) printf(" %5.1f", placedLoop(hashes[wipe], offset));
        printf("\n");
    }
    free(messages);
    return 0;
}
