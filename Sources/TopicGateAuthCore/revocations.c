/* The set of revoked usernames: a chained hash table keyed by username (see topicgate_auth.h).
 * O(1) expected per lookup; entries past their expiry count as absent and are pruned as the
 * table grows. */
#include "topicgate_auth.h"
#include "hash.h"

#include <stdlib.h>
#include <string.h>

typedef struct tg_revocation {
    struct tg_revocation *next;
    int64_t expires_at;
    char username[];
} tg_revocation;

struct tg_revocations {
    tg_revocation **buckets;
    size_t bucket_count; /* a power of two */
    size_t count;
};


tg_revocations *tg_revocations_new(void)
{
    tg_revocations *set = calloc(1, sizeof *set);
    if (!set) return NULL;
    set->bucket_count = 64;
    set->buckets = calloc(set->bucket_count, sizeof *set->buckets);
    if (!set->buckets) {
        free(set);
        return NULL;
    }
    return set;
}

void tg_revocations_free(tg_revocations *set)
{
    if (!set) return;
    for (size_t i = 0; i < set->bucket_count; i++) {
        tg_revocation *r = set->buckets[i];
        while (r) {
            tg_revocation *next = r->next;
            free(r);
            r = next;
        }
    }
    free(set->buckets);
    free(set);
}

static tg_revocation *find(const tg_revocations *set, const char *username)
{
    for (tg_revocation *r = set->buckets[tg_hash_name(username) & (set->bucket_count - 1)]; r; r = r->next)
        if (strcmp(r->username, username) == 0) return r;
    return NULL;
}

/* Doubles the bucket array; on no memory the table stays as it is (only slower). */
static void grow(tg_revocations *set)
{
    size_t count = set->bucket_count * 2;
    tg_revocation **buckets = calloc(count, sizeof *buckets);
    if (!buckets) return;
    for (size_t i = 0; i < set->bucket_count; i++) {
        tg_revocation *r = set->buckets[i];
        while (r) {
            tg_revocation *next = r->next;
            size_t b = tg_hash_name(r->username) & (count - 1);
            r->next = buckets[b];
            buckets[b] = r;
            r = next;
        }
    }
    free(set->buckets);
    set->buckets = buckets;
    set->bucket_count = count;
}

bool tg_revocations_add(tg_revocations *set, const char *username, int64_t expires_at, int64_t now)
{
    if (!set || !username) return false;
    tg_revocation *existing = find(set, username);
    if (existing) {
        if (expires_at > existing->expires_at) existing->expires_at = expires_at;
        return true;
    }
    if (set->count >= set->bucket_count && tg_revocations_prune(set, now) >= set->bucket_count) grow(set);
    size_t len = strlen(username);
    tg_revocation *r = malloc(sizeof *r + len + 1);
    if (!r) return false;
    memcpy(r->username, username, len + 1);
    r->expires_at = expires_at;
    size_t b = tg_hash_name(username) & (set->bucket_count - 1);
    r->next = set->buckets[b];
    set->buckets[b] = r;
    set->count++;
    return true;
}

bool tg_revocations_contains(const tg_revocations *set, const char *username, int64_t now)
{
    if (!set || !username) return false;
    const tg_revocation *r = find(set, username);
    return r && r->expires_at > now;
}

size_t tg_revocations_prune(tg_revocations *set, int64_t now)
{
    if (!set) return 0;
    for (size_t i = 0; i < set->bucket_count; i++) {
        tg_revocation **link = &set->buckets[i];
        while (*link) {
            tg_revocation *r = *link;
            if (r->expires_at <= now) {
                *link = r->next;
                free(r);
                set->count--;
            } else {
                link = &r->next;
            }
        }
    }
    return set->count;
}

size_t tg_revocations_count(const tg_revocations *set) { return set ? set->count : 0; }

size_t tg_revocations_each(const tg_revocations *set, int64_t now, tg_revocation_fn fn, void *context)
{
    if (!set || !fn) return 0;
    size_t visited = 0;
    for (size_t i = 0; i < set->bucket_count; i++) {
        for (const tg_revocation *r = set->buckets[i]; r; r = r->next) {
            if (r->expires_at <= now) continue;
            fn(r->username, r->expires_at, context);
            visited++;
        }
    }
    return visited;
}

size_t tg_revocations_load(tg_revocations *set, const char *text, size_t length, int64_t now)
{
    if (!set || !text) return 0;
    size_t loaded = 0;
    size_t start = 0;
    while (start < length) {
        size_t end = start;
        while (end < length && text[end] != '\n') end++;
        /* One line: "<username> <expires_at>". Anything else is skipped. */
        char line[TG_MAX_USERNAME + 32];
        size_t n = end - start;
        if (n > 0 && n < sizeof line) {
            memcpy(line, text + start, n);
            line[n] = '\0';
            char *space = strchr(line, ' ');
            if (space) {
                *space = '\0';
                char *rest = NULL;
                long long expires_at = strtoll(space + 1, &rest, 10);
                if (rest != space + 1 && *rest == '\0' && expires_at > now && tg_username_valid(line) &&
                    tg_revocations_add(set, line, (int64_t)expires_at, now))
                    loaded++;
            }
        }
        start = end + 1;
    }
    return loaded;
}
