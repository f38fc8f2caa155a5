/* HS256 JWT verification for MQTT passwords (see topicgate_auth.h). */
#include "topicgate_auth.h"
#include "encoding.h"

#include <cjson/cJSON.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/params.h>
#include <stdlib.h>
#include <string.h>

/* The longest JWT accepted; ours are about 300 bytes. */
#define TG_MAX_TOKEN 4096

/* OpenSSL 3's one-shot HMAC() fetches the algorithm and keys it on every call, which costs more
 * than hashing a 300-byte token (it held connects through the plugin to 0.7x of the no-auth
 * rate). Each thread keeps one context keyed with the last secret and copies it per token. */
static _Thread_local struct {
    EVP_MAC_CTX *keyed;
    unsigned char key[256];
    size_t key_len;
} hmac_cache;

int tg_hmac_sha256(const unsigned char *key, size_t key_len, const unsigned char *data, size_t data_len,
                       unsigned char *out, size_t *out_len)
{
    if (key_len > sizeof hmac_cache.key) {
        unsigned int len = 0;
        int ok = HMAC(EVP_sha256(), key, (int)key_len, data, data_len, out, &len) != NULL;
        *out_len = len;
        return ok;
    }
    if (!hmac_cache.keyed || hmac_cache.key_len != key_len || CRYPTO_memcmp(hmac_cache.key, key, key_len) != 0) {
        EVP_MAC_CTX_free(hmac_cache.keyed);
        hmac_cache.keyed = NULL;
        EVP_MAC *mac = EVP_MAC_fetch(NULL, "HMAC", NULL);
        if (!mac) return 0;
        EVP_MAC_CTX *ctx = EVP_MAC_CTX_new(mac);
        EVP_MAC_free(mac);
        OSSL_PARAM params[] = {
            OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, (char *)"SHA256", 0),
            OSSL_PARAM_construct_end(),
        };
        if (!ctx || !EVP_MAC_init(ctx, key, key_len, params)) {
            EVP_MAC_CTX_free(ctx);
            return 0;
        }
        hmac_cache.keyed = ctx;
        memcpy(hmac_cache.key, key, key_len);
        hmac_cache.key_len = key_len;
    }
    EVP_MAC_CTX *ctx = EVP_MAC_CTX_dup(hmac_cache.keyed);
    if (!ctx) return 0;
    int ok = EVP_MAC_update(ctx, data, data_len) && EVP_MAC_final(ctx, out, out_len, EVP_MAX_MD_SIZE);
    EVP_MAC_CTX_free(ctx);
    return ok;
}

static int base64url_value(unsigned char c)
{
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '-') return 62;
    if (c == '_') return 63;
    return -1;
}

/* Decodes unpadded base64url `in[0..len)` into `out` (at least len*3/4+1 bytes), NUL-terminated.
 * Returns the decoded length, or -1 on a character outside the alphabet or a bad length. */
long tg_base64url_decode(const char *in, size_t len, unsigned char *out)
{
    if (len % 4 == 1) return -1;
    size_t o = 0;
    uint32_t acc = 0;
    int bits = 0;
    for (size_t i = 0; i < len; i++) {
        int v = base64url_value((unsigned char)in[i]);
        if (v < 0) return -1;
        acc = (acc << 6) | (uint32_t)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out[o++] = (unsigned char)((acc >> bits) & 0xFF);
        }
    }
    out[o] = 0;
    return (long)o;
}

/* Parses a base64url part as a JSON object; NULL when it is not one. */
static cJSON *decode_json_part(const char *in, size_t len)
{
    unsigned char *buffer = malloc(len * 3 / 4 + 2);
    if (!buffer) return NULL;
    cJSON *json = NULL;
    if (tg_base64url_decode(in, len, buffer) >= 0) json = cJSON_Parse((const char *)buffer);
    free(buffer);
    if (json && !cJSON_IsObject(json)) {
        cJSON_Delete(json);
        json = NULL;
    }
    return json;
}

tg_jwt_result tg_jwt_verify(const char *token, const unsigned char *secret, size_t secret_len, const char *username,
                            int64_t now)
{
    if (!token || !username || !secret) return TG_JWT_MALFORMED;
    size_t token_len = strnlen(token, TG_MAX_TOKEN + 1);
    if (token_len > TG_MAX_TOKEN) return TG_JWT_MALFORMED;
    const char *dot1 = memchr(token, '.', token_len);
    if (!dot1) return TG_JWT_MALFORMED;
    const char *dot2 = memchr(dot1 + 1, '.', token_len - (size_t)(dot1 + 1 - token));
    if (!dot2 || memchr(dot2 + 1, '.', token_len - (size_t)(dot2 + 1 - token))) return TG_JWT_MALFORMED;

    size_t header_len = (size_t)(dot1 - token);
    size_t payload_len = (size_t)(dot2 - dot1 - 1);
    size_t signature_len = token_len - (size_t)(dot2 + 1 - token);

    cJSON *header = decode_json_part(token, header_len);
    if (!header) return TG_JWT_MALFORMED;
    const cJSON *alg = cJSON_GetObjectItemCaseSensitive(header, "alg");
    bool hs256 = cJSON_IsString(alg) && strcmp(alg->valuestring, "HS256") == 0;
    cJSON_Delete(header);
    if (!hs256) return TG_JWT_BAD_ALGORITHM;

    /* The signature covers the two encoded parts exactly as sent. */
    unsigned char expected[EVP_MAX_MD_SIZE];
    size_t expected_len = 0;
    if (!tg_hmac_sha256(secret, secret_len, (const unsigned char *)token, header_len + 1 + payload_len, expected,
                     &expected_len))
        return TG_JWT_BAD_SIGNATURE;
    unsigned char given[TG_MAX_TOKEN];
    long given_len = tg_base64url_decode(dot2 + 1, signature_len, given);
    if (given_len != (long)expected_len || CRYPTO_memcmp(given, expected, expected_len) != 0)
        return TG_JWT_BAD_SIGNATURE;

    cJSON *claims = decode_json_part(dot1 + 1, payload_len);
    if (!claims) return TG_JWT_MALFORMED;
    tg_jwt_result result = TG_JWT_OK;
    const cJSON *exp = cJSON_GetObjectItemCaseSensitive(claims, "exp");
    const cJSON *sub = cJSON_GetObjectItemCaseSensitive(claims, "sub");
    if (!cJSON_IsNumber(exp) || exp->valuedouble <= (double)now)
        result = TG_JWT_EXPIRED;
    else if (!cJSON_IsString(sub) || strcmp(sub->valuestring, username) != 0)
        result = TG_JWT_WRONG_SUBJECT;
    cJSON_Delete(claims);
    return result;
}

const char *tg_jwt_result_name(tg_jwt_result result)
{
    switch (result) {
    case TG_JWT_OK: return "valid";
    case TG_JWT_MALFORMED: return "malformed token";
    case TG_JWT_BAD_ALGORITHM: return "algorithm is not HS256";
    case TG_JWT_BAD_SIGNATURE: return "bad signature";
    case TG_JWT_EXPIRED: return "expired";
    case TG_JWT_WRONG_SUBJECT: return "subject is not the username";
    }
    return "unknown";
}
