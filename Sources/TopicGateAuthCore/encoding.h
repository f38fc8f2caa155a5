/* Helpers shared by the two password forms (jwt.c, compact.c); not part of the public API. */
#ifndef TOPICGATE_ENCODING_H
#define TOPICGATE_ENCODING_H

#include <stddef.h>

/* HMAC-SHA256 of `data` keyed with `key` into `out` (at least EVP_MAX_MD_SIZE bytes). */
int tg_hmac_sha256(const unsigned char *key, size_t key_len, const unsigned char *data, size_t data_len,
                   unsigned char *out, size_t *out_len);

/* Decodes unpadded base64url `in[0..len)` into `out` (at least len*3/4+1 bytes), NUL-terminated.
 * Returns the decoded length, or -1 on a character outside the alphabet or a bad length. */
long tg_base64url_decode(const char *in, size_t len, unsigned char *out);

#endif
