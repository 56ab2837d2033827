#ifndef CPKCEOPENSSL_SHIM_H
#define CPKCEOPENSSL_SHIM_H

// SHA256_Init/Update/Final are deprecated in OpenSSL 3.0 in favour of EVP, but they remain in
// every 3.x release; this shim is the one place that calls them, so silence the deprecation here
// rather than in every Swift file.
#define OPENSSL_SUPPRESS_DEPRECATED 1

#include <stddef.h>
#include <stdint.h>
#include <string.h>

// PKCEOpenSSL calls OpenSSL 3's EVP_MD_fetch and EVP_default_properties_is_fips_enabled. Against
// an older libcrypto, say so first rather than with a dozen undeclared-function errors.
#include <openssl/opensslv.h>
#if OPENSSL_VERSION_NUMBER < 0x30000000L
#error "PKCEOpenSSL needs OpenSSL 3.0 or later (Debian 12's libssl-dev is 3.0)"
#endif

#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <openssl/sha.h>

/// The earliest error in this thread's OpenSSL error queue, with the queue then emptied: a later
/// failure must not report a stale error left behind by this one.
static inline unsigned long CPKCEOpenSSL_takeError(void) {
    unsigned long error = ERR_get_error();
    ERR_clear_error();
    return error;
}

/// SHA-256 of `count` bytes at `message` into the 32 bytes at `digest`, with the context on the
/// stack: no algorithm fetch, no lock and no heap allocation.
///
/// OpenSSL 3.0's EVP interface allocates the digest's state on every `EVP_DigestInit_ex2` (and
/// on every `EVP_MD_CTX_copy_ex`), even with the algorithm fetched once and the context reused;
/// the low-level functions run the same assembly (SHA-NI where the CPU has it) without that.
/// The context holds the last block of the message, which may be a secret verifier, so it is
/// wiped before returning.
///
/// The wipe is glibc's `explicit_bzero` (elsewhere `memset` and a compiler barrier, as BoringSSL
/// wipes), not `OPENSSL_cleanse`: called from a function of its own, as every Swift caller calls
/// this one, `OPENSSL_cleanse`'s loop of 8-byte stores cost the next call about 12 ns whenever
/// that call hashed a whole block of its input in place (PKCEBenchKit's Performance article,
/// "Fidelity"). Both are stores the compiler may not remove.
///
/// Returns 1 on success, 0 on failure (which OpenSSL documents for none of these inputs).
static inline int CPKCEOpenSSL_sha256(const void *message, size_t count, uint8_t *digest) {
    SHA256_CTX context;
    int ok = SHA256_Init(&context) == 1 && SHA256_Update(&context, message, count) == 1
             && SHA256_Final(digest, &context) == 1;
#if defined(__GLIBC__)
    explicit_bzero(&context, sizeof context);
#else
    memset(&context, 0, sizeof context);
    __asm__ __volatile__("" : : "r"(&context) : "memory");
#endif
    return ok;
}

#endif
