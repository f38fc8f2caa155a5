/* The compact MQTT password (see topicgate_auth.h): `k1.<exp>.<mac>`. */
#include "topicgate_auth.h"
#include "encoding.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <string.h>

/* "k1." + up to 12 digits + "." + 43 characters of signature. */
#define TG_MAX_COMPACT 80

static bool is_compact(const char *password)
{
    return strncmp(password, TG_COMPACT_PREFIX, strlen(TG_COMPACT_PREFIX)) == 0;
}

static tg_jwt_result compact_verify(const char *password, const unsigned char *secret, size_t secret_len,
                                    const char *username, int64_t now)
{
    size_t length = strnlen(password, TG_MAX_COMPACT + 1);
    if (length > TG_MAX_COMPACT) return TG_JWT_MALFORMED;
    const char *expiry = password + strlen(TG_COMPACT_PREFIX);
    const char *dot = strchr(expiry, '.');
    if (!dot || dot == expiry || dot - expiry > 12) return TG_JWT_MALFORMED;
    int64_t expires_at = 0;
    for (const char *c = expiry; c < dot; c++) {
        if (*c < '0' || *c > '9') return TG_JWT_MALFORMED;
        expires_at = expires_at * 10 + (*c - '0');
    }
    if (expiry[0] == '0' && dot - expiry > 1) return TG_JWT_MALFORMED;

    /* The MAC covers "k1.<username>.<exp>", so the password is worth nothing under another
     * username. A username too long for the buffer is refused as malformed. */
    char input[TG_MAX_COMPACT + 512];
    int input_len = snprintf(input, sizeof input, "%s%s.%.*s", TG_COMPACT_PREFIX, username, (int)(dot - expiry), expiry);
    if (input_len < 0 || (size_t)input_len >= sizeof input) return TG_JWT_MALFORMED;

    unsigned char expected[EVP_MAX_MD_SIZE];
    size_t expected_len = 0;
    if (!tg_hmac_sha256(secret, secret_len, (const unsigned char *)input, (size_t)input_len, expected, &expected_len))
        return TG_JWT_BAD_SIGNATURE;
    const char *mac = dot + 1;
    size_t mac_len = length - (size_t)(mac - password);
    unsigned char given[TG_MAX_COMPACT];
    long given_len = tg_base64url_decode(mac, mac_len, given);
    if (given_len != (long)expected_len || CRYPTO_memcmp(given, expected, expected_len) != 0)
        return TG_JWT_BAD_SIGNATURE;
    if (expires_at <= now) return TG_JWT_EXPIRED;
    return TG_JWT_OK;
}

tg_jwt_result tg_password_verify(const char *password, const unsigned char *secret, size_t secret_len,
                                 const char *username, int64_t now)
{
    if (!password || !username || !secret) return TG_JWT_MALFORMED;
    if (is_compact(password)) return compact_verify(password, secret, secret_len, username, now);
    return tg_jwt_verify(password, secret, secret_len, username, now);
}

tg_jwt_result tg_password_verify_rotating(const char *password, const unsigned char *secret, size_t secret_len,
                                          const unsigned char *previous, size_t previous_len, const char *username,
                                          int64_t now)
{
    tg_jwt_result result = tg_password_verify(password, secret, secret_len, username, now);
    /* Only a signature that the current secret does not match may be the previous secret's: a
     * password that is expired or malformed is refused whatever signed it. */
    if (result != TG_JWT_BAD_SIGNATURE || !previous || previous_len == 0) return result;
    return tg_password_verify(password, previous, previous_len, username, now);
}
