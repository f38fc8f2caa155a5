/* The hash of the plugin's tables keyed by username (revocations, presence). */
#ifndef TOPICGATE_HASH_H
#define TOPICGATE_HASH_H

#include <stdint.h>

/* FNV-1a, 64 bit, over a NUL-terminated string. */
static inline uint64_t tg_hash_name(const char *s)
{
    uint64_t h = 1469598103934665603ULL;
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 1099511628211ULL;
    }
    return h;
}

#endif
