// The independent reference for bench's `sha256` cases: Google Benchmark (Debian's
// libbenchmark-dev), a harness nobody here wrote, timing the C calls each C backend makes.
// `Benchmarks/fidelity` runs it beside bench and prints bench's median over this one's.
//
// What it shares with bench is the work, and only the work: the C calls (OpenSSL through the very
// function PKCEOpenSSL calls, `CPKCEOpenSSL_sha256` from the module's shim header; libsodium
// through `crypto_hash_sha256`, as PKCESodium calls it), 16 messages of SIZE bytes in rotation,
// filled with the bytes bench fills them with, and the digest's first byte read after each hash.
// The loop, the timer, the iteration count and the statistics are Google Benchmark's, and the calls
// sit in the loop as a C programmer writes them, for the compiler to inline: bench can only call a
// backend through a function of its own, and a cost that comes from that shape (as the context
// wipe's did, PKCEBenchKit's Performance article, "Fidelity") shows as a difference here.
//
// Usage: sha256_reference SIZE[,SIZE...] [Google Benchmark flags]
// Registers sha256/openssl/SIZE and sha256/sodium/SIZE for every size, bench's case names.
#include <benchmark/benchmark.h>
#include <sodium.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

extern "C" {
#include "shim.h"
}

namespace {

constexpr std::size_t inputCount = 16;

struct OpenSSL {
    static bool hash(const std::uint8_t *message, std::size_t size, std::uint8_t *digest) {
        return CPKCEOpenSSL_sha256(message, size, digest) == 1;
    }
};

struct Sodium {
    static bool hash(const std::uint8_t *message, std::size_t size, std::uint8_t *digest) {
        return crypto_hash_sha256(digest, message, size) == 0;
    }
};

struct Free {
    void operator()(void *pointer) const { std::free(pointer); }
};

template <typename Backend>
void measure(benchmark::State &state, std::size_t size) {
    // bench's messages: contiguous, 64-byte aligned, byte i = i * 131 + i / 256.
    std::size_t byteCount = size * inputCount > 0 ? size * inputCount : 1;
    std::unique_ptr<std::uint8_t, Free> storage(
        static_cast<std::uint8_t *>(std::aligned_alloc(64, (byteCount + 63) / 64 * 64)));
    std::uint8_t *messages = storage.get();
    if (messages == nullptr) {
        state.SkipWithError("cannot allocate the messages");
        return;
    }
    for (std::size_t index = 0; index < byteCount; index++) {
        messages[index] = static_cast<std::uint8_t>(index * 131 + (index >> 8));
    }
    alignas(64) std::uint8_t digest[32];
    std::uint64_t checksum = 0;
    std::size_t iteration = 0;
    for (auto _ : state) {
        if (!Backend::hash(messages + (iteration++ & (inputCount - 1)) * size, size, digest)) {
            state.SkipWithError("the hash failed");
            break;
        }
        checksum += digest[0];
    }
    benchmark::DoNotOptimize(checksum);
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
}

}  // namespace

int main(int argc, char **argv) {
    if (argc < 2 || argv[1][0] == '-') {
        std::fprintf(stderr, "usage: sha256_reference SIZE[,SIZE...] [Google Benchmark flags]\n");
        return 64;
    }
    if (sodium_init() < 0) {
        std::fprintf(stderr, "sha256_reference: sodium_init failed\n");
        return 70;
    }
    std::vector<std::size_t> sizes;
    for (char *cursor = argv[1]; *cursor != '\0';) {
        char *end = nullptr;
        unsigned long size = std::strtoul(cursor, &end, 10);
        if (end == cursor || (*end != ',' && *end != '\0') || size > (1UL << 24)) {
            std::fprintf(stderr, "sha256_reference: not a size list: %s\n", argv[1]);
            return 64;
        }
        sizes.push_back(size);
        cursor = *end == ',' ? end + 1 : end;
    }
    for (std::size_t size : sizes) {
        std::string suffix = "/" + std::to_string(size);
        benchmark::RegisterBenchmark(("sha256/openssl" + suffix).c_str(), measure<OpenSSL>, size);
        benchmark::RegisterBenchmark(("sha256/sodium" + suffix).c_str(), measure<Sodium>, size);
    }
    argv[1] = argv[0];
    int remaining = argc - 1;
    benchmark::Initialize(&remaining, argv + 1);
    if (benchmark::ReportUnrecognizedArguments(remaining, argv + 1)) return 64;
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
