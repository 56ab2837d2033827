#ifndef CPKCEOPENSSL_SHIM_H
#define CPKCEOPENSSL_SHIM_H

#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/opensslv.h>
#include <openssl/rand.h>

#endif
