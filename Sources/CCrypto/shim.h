#ifndef ATTACHE_CCRYPTO_SHIM_H
#define ATTACHE_CCRYPTO_SHIM_H

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/sha.h>
#include <openssl/crypto.h>

#endif
