// The C reference for bench's `sha256` cases: the same C calls in the same loop, timed the same
// way, with no Swift in between. `c-reference` (beside this file) runs it and bench side by side
// and prints bench's figure over this one: how much the harness adds to what it measures.
//
// What matches bench (Sources/PKCEBenchKit/Cases/Workload.swift, SHA256Workload, and the sampler):
// - 16 messages of SIZE bytes, contiguous and 64-byte aligned, filled with the same bytes, hashed
//   in rotation into one 32-byte digest whose first byte feeds a checksum;
// - the backend's C calls: OpenSSL through the very function the Swift backend calls,
//   CPKCEOpenSSL_sha256 (SHA256_Init/Update/Final on a stack context, then OPENSSL_cleanse),
//   libsodium through crypto_hash_sha256;
// - the loop's iteration count calibrated to a 5 ms sample, 20 ms of warm-up, then SAMPLES samples
//   timed on CLOCK_MONOTONIC. bench takes its 90 samples in 5 processes of 18, because where the
//   loader and the allocator put things moves a figure by a few percent from process to process;
//   c-reference runs this program 5 times with 18 samples and pools them the same way.
//
// Usage: sha256_loop openssl|sodium SIZE [SAMPLES]   (SAMPLES: 18 unless given)
// Prints one line: the backend, the size, and each sample's nanoseconds per operation.
#include <sodium.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../Sources/CPKCEOpenSSL/shim.h"

enum { inputCount = 16 };

static uint8_t *messages;
static size_t size;
static uint8_t digest[32];

static int hashOpenSSL(const void *message, size_t count, uint8_t *out) {
    return CPKCEOpenSSL_sha256(message, count, out);
}

static int hashSodium(const void *message, size_t count, uint8_t *out) {
    return crypto_hash_sha256(out, message, count) == 0;
}

static double now(void) {
    struct timespec time;
    clock_gettime(CLOCK_MONOTONIC, &time);
    return (double)time.tv_sec * 1e9 + (double)time.tv_nsec;
}

// The loop, kept out of line as bench's is: one call per sample, the hash through a pointer as
// bench's goes through a protocol witness.
__attribute__((noinline)) static uint64_t run(int (*hash)(const void *, size_t, uint8_t *), long iterations) {
    uint64_t checksum = 0;
    for (long iteration = 0; iteration < iterations; iteration++) {
        const uint8_t *message = messages + (size_t)(iteration & (inputCount - 1)) * size;
        if (!hash(message, size, digest)) abort();
        checksum += digest[0];
    }
    return checksum;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: sha256_loop openssl|sodium SIZE [SAMPLES]\n");
        return 64;
    }
    int (*hash)(const void *, size_t, uint8_t *);
    if (strcmp(argv[1], "openssl") == 0) {
        hash = hashOpenSSL;
    } else if (strcmp(argv[1], "sodium") == 0) {
        if (sodium_init() < 0) return 70;
        hash = hashSodium;
    } else {
        fprintf(stderr, "sha256_loop: unknown backend %s\n", argv[1]);
        return 64;
    }
    size = (size_t)strtoul(argv[2], NULL, 10);
    int sampleCount = argc > 3 ? atoi(argv[3]) : 18;
    if (sampleCount < 1) sampleCount = 1;

    size_t byteCount = size * inputCount > 0 ? size * inputCount : 1;
    messages = aligned_alloc(64, (byteCount + 63) / 64 * 64);
    if (messages == NULL) return 70;
    for (size_t index = 0; index < byteCount; index++) {
        messages[index] = (uint8_t)(index * 131 + (index >> 8));
    }

    // Calibrate: double the iterations until one call takes a millisecond, then scale to 5 ms.
    volatile uint64_t sink = 0;
    long iterations = 1;
    for (;;) {
        double start = now();
        sink += run(hash, iterations);
        double elapsed = now() - start;
        if (elapsed >= 1e6) {
            iterations = (long)((double)iterations * 5e6 / elapsed);
            break;
        }
        iterations *= 2;
    }
    if (iterations < 1) iterations = 1;
    for (double start = now(); now() - start < 20e6;) sink += run(hash, iterations);

    double *samples = malloc(sizeof(double) * (size_t)sampleCount);
    if (samples == NULL) return 70;
    for (int sample = 0; sample < sampleCount; sample++) {
        double start = now();
        sink += run(hash, iterations);
        samples[sample] = (now() - start) / (double)iterations;
    }
    printf("%s %zu", argv[1], size);
    for (int sample = 0; sample < sampleCount; sample++) printf(" %.3f", samples[sample]);
    printf("\n");
    free(samples);
    free(messages);
    return 0;
}
