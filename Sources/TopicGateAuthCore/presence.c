/* Which devices are connected (see topicgate_auth.h): sessions keyed by the broker's client
 * pointer, each naming its username, and a count of sessions per username. Chained hash
 * tables that double as they fill; O(1) expected per event. */
#include "topicgate_auth.h"
#include "hash.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct tg_presence_user {
    struct tg_presence_user *next;
    size_t sessions;
    /* Of them, clean ones (tg_presence_mark_clean). */
    size_t clean_sessions;
    char username[];
} tg_presence_user;

typedef struct tg_presence_session {
    struct tg_presence_session *next;
    const void *client;
    tg_presence_user *user;
    bool clean;
} tg_presence_session;

struct tg_presence {
    tg_presence_user **users;
    size_t user_buckets; /* a power of two */
    size_t user_count;
    tg_presence_session **sessions;
    size_t session_buckets; /* a power of two */
    size_t session_count;
};


static uint64_t hash_pointer(const void *p)
{
    uint64_t h = (uint64_t)(uintptr_t)p;
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    return h;
}

tg_presence *tg_presence_new(void)
{
    tg_presence *p = calloc(1, sizeof *p);
    if (!p) return NULL;
    p->user_buckets = 64;
    p->session_buckets = 64;
    p->users = calloc(p->user_buckets, sizeof *p->users);
    p->sessions = calloc(p->session_buckets, sizeof *p->sessions);
    if (!p->users || !p->sessions) {
        tg_presence_free(p);
        return NULL;
    }
    return p;
}

void tg_presence_free(tg_presence *p)
{
    if (!p) return;
    for (size_t i = 0; p->users && i < p->user_buckets; i++) {
        for (tg_presence_user *u = p->users[i], *next; u; u = next) {
            next = u->next;
            free(u);
        }
    }
    for (size_t i = 0; p->sessions && i < p->session_buckets; i++) {
        for (tg_presence_session *s = p->sessions[i], *next; s; s = next) {
            next = s->next;
            free(s);
        }
    }
    free(p->users);
    free(p->sessions);
    free(p);
}

/* Doubles a table's buckets; on no memory it stays as it is (only slower). */
static void grow_users(tg_presence *p)
{
    size_t count = p->user_buckets * 2;
    tg_presence_user **buckets = calloc(count, sizeof *buckets);
    if (!buckets) return;
    for (size_t i = 0; i < p->user_buckets; i++) {
        for (tg_presence_user *u = p->users[i], *next; u; u = next) {
            next = u->next;
            size_t b = tg_hash_name(u->username) & (count - 1);
            u->next = buckets[b];
            buckets[b] = u;
        }
    }
    free(p->users);
    p->users = buckets;
    p->user_buckets = count;
}

static void grow_sessions(tg_presence *p)
{
    size_t count = p->session_buckets * 2;
    tg_presence_session **buckets = calloc(count, sizeof *buckets);
    if (!buckets) return;
    for (size_t i = 0; i < p->session_buckets; i++) {
        for (tg_presence_session *s = p->sessions[i], *next; s; s = next) {
            next = s->next;
            size_t b = hash_pointer(s->client) & (count - 1);
            s->next = buckets[b];
            buckets[b] = s;
        }
    }
    free(p->sessions);
    p->sessions = buckets;
    p->session_buckets = count;
}

static tg_presence_session **find_session(const tg_presence *p, const void *client)
{
    tg_presence_session **link = &p->sessions[hash_pointer(client) & (p->session_buckets - 1)];
    while (*link && (*link)->client != client) link = &(*link)->next;
    return link;
}

static tg_presence_user **find_user(const tg_presence *p, const char *username)
{
    tg_presence_user **link = &p->users[tg_hash_name(username) & (p->user_buckets - 1)];
    while (*link && strcmp((*link)->username, username) != 0) link = &(*link)->next;
    return link;
}

int tg_presence_connect(tg_presence *p, const void *client, const char *username)
{
    if (!p || !client || !username) return -1;
    if (*find_session(p, client)) return 0;
    if (p->session_count >= p->session_buckets) grow_sessions(p);
    if (p->user_count >= p->user_buckets) grow_users(p);
    tg_presence_user **user_link = find_user(p, username);
    tg_presence_user *user = *user_link;
    tg_presence_session *session = malloc(sizeof *session);
    if (!session) return -1;
    if (!user) {
        size_t len = strlen(username);
        user = malloc(sizeof *user + len + 1);
        if (!user) {
            free(session);
            return -1;
        }
        memcpy(user->username, username, len + 1);
        user->sessions = 0;
        user->clean_sessions = 0;
        user->next = NULL;
        *user_link = user;
        p->user_count++;
    }
    user->sessions++;
    session->client = client;
    session->user = user;
    session->clean = false;
    tg_presence_session **session_link = &p->sessions[hash_pointer(client) & (p->session_buckets - 1)];
    session->next = *session_link;
    *session_link = session;
    p->session_count++;
    return (int)user->sessions;
}

int tg_presence_disconnect(tg_presence *p, const void *client, char *username, size_t capacity)
{
    if (!p || !client) return -1;
    tg_presence_session **session_link = find_session(p, client);
    tg_presence_session *session = *session_link;
    if (!session) return -1;
    *session_link = session->next;
    p->session_count--;
    tg_presence_user *user = session->user;
    if (session->clean) user->clean_sessions--;
    free(session);
    if (username && capacity > 0) {
        strncpy(username, user->username, capacity - 1);
        username[capacity - 1] = '\0';
    }
    int remaining = (int)--user->sessions;
    if (remaining == 0) {
        tg_presence_user **user_link = find_user(p, user->username);
        *user_link = user->next;
        p->user_count--;
        free(user);
    }
    return remaining;
}

size_t tg_presence_online(const tg_presence *p) { return p ? p->user_count : 0; }

void tg_presence_mark_clean(tg_presence *p, const void *client)
{
    if (!p || !client) return;
    tg_presence_session *session = *find_session(p, client);
    if (!session || session->clean) return;
    session->clean = true;
    session->user->clean_sessions++;
}

bool tg_presence_only_clean(const tg_presence *p, const char *username)
{
    if (!p || !username) return false;
    const tg_presence_user *user = *find_user(p, username);
    return user && user->clean_sessions == user->sessions;
}

size_t tg_presence_each(const tg_presence *p, tg_presence_fn fn, void *context)
{
    if (!p || !fn) return 0;
    size_t n = 0;
    for (size_t i = 0; i < p->user_buckets; i++) {
        for (const tg_presence_user *u = p->users[i]; u; u = u->next) {
            fn(u->username, context);
            n++;
        }
    }
    return n;
}
