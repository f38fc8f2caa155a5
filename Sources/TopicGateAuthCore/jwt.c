/* HS256 JWT verification for MQTT passwords (see topicgate_auth.h). */
#include "topicgate_auth.h"

#include <cjson/cJSON.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <stdlib.h>
#include <string.h>

/* The longest JWT accepted; ours are about 300 bytes. */
#define TG_MAX_TOKEN 4096

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
static long base64url_decode(const char *in, size_t len, unsigned char *out)
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
    if (base64url_decode(in, len, buffer) >= 0) json = cJSON_Parse((const char *)buffer);
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
    unsigned int expected_len = 0;
    if (!HMAC(EVP_sha256(), secret, (int)secret_len, (const unsigned char *)token, header_len + 1 + payload_len,
              expected, &expected_len))
        return TG_JWT_BAD_SIGNATURE;
    unsigned char given[TG_MAX_TOKEN];
    long given_len = base64url_decode(dot2 + 1, signature_len, given);
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
