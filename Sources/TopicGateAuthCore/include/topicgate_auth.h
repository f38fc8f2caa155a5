/*
 * The checks of TopicGate's Mosquitto plugin, free of any broker type so that they can be
 * unit-tested on their own (Tests/TopicGateAuthCoreTests) and reused by the plugin glue
 * (Sources/TopicGateMosquittoAuth/plugin.c).
 *
 * The contract (broker-config/README.md, "What the broker enforces"):
 * - an MQTT password is signed (HMAC-SHA256) with the secret the gateway and the plugin share,
 *   over the MQTT username, which is the device's own topic, and an expiry: a compact form of
 *   57 characters by default, or an HS256 JWT whose `sub` is the username;
 * - a device may subscribe to and receive only its own topic and publish only to
 *   `<topic>/state`; everything else (wildcards, `$SYS`, other topics) is denied;
 * - the gateway's account is the only superuser;
 * - usernames the gateway revoked are refused until their credentials expire.
 */
#ifndef TOPICGATE_AUTH_H
#define TOPICGATE_AUTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The longest username (= device topic) the plugin accepts. */
#define TG_MAX_USERNAME 128

/* Outcome of verifying a JWT password. Zero is success; every other value is a refusal. */
typedef enum {
    TG_JWT_OK = 0,
    TG_JWT_MALFORMED = 1,     /* not three base64url parts, or not JSON objects */
    TG_JWT_BAD_ALGORITHM = 2, /* header `alg` is not HS256 (no `none`, no RS*, no confusion) */
    TG_JWT_BAD_SIGNATURE = 3, /* HMAC-SHA256 over `header.payload` differs */
    TG_JWT_EXPIRED = 4,       /* no numeric `exp`, or `exp` <= now */
    TG_JWT_WRONG_SUBJECT = 5, /* `sub` missing or not the MQTT username */
} tg_jwt_result;

/* What a client asks for, mirroring MOSQ_ACL_* of mosquitto_plugin.h. */
typedef enum {
    TG_ACCESS_READ = 0x01,        /* a message on `topic` is about to be delivered to the client */
    TG_ACCESS_WRITE = 0x02,       /* the client publishes to `topic` */
    TG_ACCESS_SUBSCRIBE = 0x04,   /* the client subscribes with the filter `topic` */
    TG_ACCESS_UNSUBSCRIBE = 0x08, /* the client unsubscribes */
} tg_access;

/* Verifies `token` as an HS256 JWT signed with `secret`, whose `sub` equals `username` and
 * whose `exp` (seconds since 1970) is later than `now`. Constant-time signature comparison. */
tg_jwt_result tg_jwt_verify(const char *token, const unsigned char *secret, size_t secret_len, const char *username,
                            int64_t now);

/* The first characters of a compact password. */
#define TG_COMPACT_PREFIX "k1."

/* Verifies an MQTT password in either form the gateway issues, for `username` at `now`:
 * - compact (the default, 57 characters, fits every Kii SDK's buffers):
 *   `k1.<exp>.<mac>`, where `exp` is the expiry in decimal seconds since 1970 and `mac` the
 *   unpadded base64url HMAC-SHA256 of `k1.<username>.<exp>` under `secret`;
 * - an HS256 JWT as `tg_jwt_verify` checks it (for operators who also run an EMQX-style broker).
 * Constant-time comparison in both. */
tg_jwt_result tg_password_verify(const char *password, const unsigned char *secret, size_t secret_len,
                                 const char *username, int64_t now);

/* The shared secret file's one rule, the same in the gateway (`MQTTSecretText`): its contents
 * without leading and trailing blanks (space, tab, CR, LF), TG_SECRET_MIN to TG_SECRET_MAX
 * bytes. Returns 0 and the secret's start and length, -1 when it is too short, -2 too long. */
#define TG_SECRET_MIN 32
#define TG_SECRET_MAX 1024
int tg_secret_parse(const unsigned char *contents, size_t length, size_t *start, size_t *secret_length);

/* `tg_password_verify` during a rotation of the shared secret: a password signed with the
 * current secret, or else with `previous` (when given; NULL or 0 bytes: none), is accepted. */
tg_jwt_result tg_password_verify_rotating(const char *password, const unsigned char *secret, size_t secret_len,
                                          const unsigned char *previous, size_t previous_len, const char *username,
                                          int64_t now);

/* A short English name for a verification result, for the broker log. */
const char *tg_jwt_result_name(tg_jwt_result result);

/* True when `username` may name a device topic: 1...TG_MAX_USERNAME characters of
 * [A-Za-z0-9_.-]; never `+`, `#`, `/`, `$` or control characters. */
bool tg_username_valid(const char *username);

/* The device rule: true when the device `username` may do `access` on `topic`.
 * Subscribe and read: `topic` is exactly `username` (no wildcard can match it, since a valid
 * username holds none). Write: exactly `<username>/state`. Unsubscribe: always.
 * Anything else, and any invalid username, is denied. */
bool tg_device_may(const char *username, tg_access access, const char *topic);

/* A set of revoked usernames, each kept until its credentials expire. Not thread-safe; the
 * broker calls plugins from its single main thread. */
typedef struct tg_revocations tg_revocations;

tg_revocations *tg_revocations_new(void);
void tg_revocations_free(tg_revocations *set);
/* Adds (or extends) a revocation of `username` until `expires_at`. Returns false on no memory. */
bool tg_revocations_add(tg_revocations *set, const char *username, int64_t expires_at, int64_t now);
/* True when `username` is revoked and the revocation has not yet expired at `now`. */
bool tg_revocations_contains(const tg_revocations *set, const char *username, int64_t now);
/* Drops expired revocations; returns how many remain. */
size_t tg_revocations_prune(tg_revocations *set, int64_t now);
size_t tg_revocations_count(const tg_revocations *set);
/* Calls `fn` with each revocation not yet expired at `now`; returns how many. */
typedef void (*tg_revocation_fn)(const char *username, int64_t expires_at, void *context);
size_t tg_revocations_each(const tg_revocations *set, int64_t now, tg_revocation_fn fn, void *context);
/* Adds the revocations of a file's text, one "<username> <expires_at>\n" per line (as the plugin
 * writes them), skipping malformed lines and expired ones; returns how many were added. */
size_t tg_revocations_load(tg_revocations *set, const char *text, size_t length, int64_t now);

/* Called for each username a control message revokes (to kick its live connection). */
typedef void (*tg_revoked_fn)(const char *username, void *context);

/* Applies a control message from the gateway:
 *   {"commands":[{"command":"revoke","username":"<topic>","expiresAt":<seconds>}, ...]}
 * Each valid revoke is added to `set` and reported to `on_revoked`. Returns the number of
 * commands applied, or -1 when the payload is not such a JSON object. Unknown commands and
 * invalid usernames are skipped. */
int tg_control_apply(tg_revocations *set, const void *payload, size_t payload_len, int64_t now,
                     tg_revoked_fn on_revoked, void *context);

/* True when a control message holds {"command":"presence"}: the gateway asks for the list of
 * connected devices (after it (re)connects, so that a restart of either side forgets nothing). */
bool tg_control_asks_presence(const void *payload, size_t payload_len);

/* True when a control message holds {"command":"features","nonce":"<nonce>"}: the gateway asks
 * what this plugin can do, with a nonce of 1...TG_MAX_NONCE characters a username may have,
 * copied to `nonce` (at most `capacity` bytes with the NUL). The plugin answers on the presence
 * topic with {"features":["fanOut"],"nonce":"<nonce>"}; a plugin without the command says
 * nothing, and the gateway keeps publishing to each device itself. */
#define TG_MAX_NONCE 64
bool tg_control_features_nonce(const void *payload, size_t payload_len, char *nonce, size_t capacity);

/* True when a control message holds {"command":"barrier","id":"<id>"} (the id as a features
 * nonce, copied to `id`): the gateway asks to be told once every fan-out it sent before is routed
 * into its devices' sessions. The broker acknowledges a fan-out when its copies are queued for
 * its next loop turn; the plugin answers {"routed":"<id>"} on the presence topic at the end of
 * the turn after the one that read the barrier, when that turn's start has routed them. A
 * broker stopped cleanly after that saves them with the sessions. */
bool tg_control_barrier_id(const void *payload, size_t payload_len, char *id, size_t capacity);

/* A fan-out from the gateway on $CONTROL/topicgate/v1/fanout: one payload for many device
 * topics, which the plugin publishes inside the broker (one PUBLISH from the gateway for many
 * devices, where publishing to each device costs the gateway and the broker a packet and a
 * PUBACK apiece). Binary:
 *   1 byte       TG_FANOUT_VERSION
 *   4 bytes      the payload's length P, big-endian
 *   P bytes      the payload
 *   then, once or more: 1 byte L (1...TG_MAX_USERNAME), L bytes: a device topic, a valid
 *   username (tg_username_valid: no '/', no wildcard, no '$').
 * Nothing may follow the last topic.
 * A batch of fan-outs (the features' "fanOutBatches"): several payloads, each for its own device
 * topics, in one PUBLISH, so that the sends one group commit wrote cost one packet and one
 * PUBACK between the gateway and the broker, not one each:
 *   1 byte       TG_FANOUT_BATCH_VERSION
 *   then, once or more, a fan-out:
 *     4 bytes    its payload's length P, big-endian
 *     P bytes    the payload
 *     2 bytes    its number of topics N (1...65535), big-endian
 *     N topics   each as above (1 byte L, L bytes)
 * Nothing may follow the last fan-out's last topic. */
#define TG_FANOUT_VERSION 1
#define TG_FANOUT_BATCH_VERSION 2
typedef void (*tg_fanout_fn)(const char *topic, const void *payload, size_t payload_len, void *context);
/* Calls `each` with every topic (NUL-terminated) of a well-formed fan-out or batch of fan-outs,
 * with its payload, in order, and returns their number; returns -1 without calling it when
 * anything is malformed. */
long tg_fanout_each(const void *data, size_t length, tg_fanout_fn each, void *context);

/* Which devices are connected: one session per broker client (keyed by its pointer), each
 * naming its username; a username is online while it has a session. Keying by client keeps
 * a refused CONNECT that offered a connected device's username from taking that device
 * offline, and a session taken over (new session first, then the old one's disconnect)
 * leaves it online. Not thread-safe; the broker calls plugins from its main thread. */
typedef struct tg_presence tg_presence;

tg_presence *tg_presence_new(void);
void tg_presence_free(tg_presence *p);
/* A client authenticated as `username`: the username's session count after it (1: it just
 * came online), 0 when the client was known already (nothing changed), -1 on no memory. */
int tg_presence_connect(tg_presence *p, const void *client, const char *username);
/* A client left: the sessions its username still has (0: it just went offline), its username
 * copied into `username` (at most `capacity` bytes with the NUL); -1 for a client that never
 * authenticated here. */
int tg_presence_disconnect(tg_presence *p, const void *client, char *username, size_t capacity);
/* How many usernames are online. */
size_t tg_presence_online(const tg_presence *p);
/* The client's session keeps nothing once it ends (MQTT clean session). */
void tg_presence_mark_clean(tg_presence *p, const void *client);
/* True when `username` is online and each of its sessions is clean: what is sent to it dies
 * with its connection whatever the broker saves (a broker saves no clean session), so it
 * needs no save. False for a username offline (it may have a persistent session). */
bool tg_presence_only_clean(const tg_presence *p, const char *username);
typedef void (*tg_presence_fn)(const char *username, void *context);
/* Calls `fn` for each online username; returns how many. */
size_t tg_presence_each(const tg_presence *p, tg_presence_fn fn, void *context);

/* Presence changes gathered for one message on topicgate/presence/changes, in the order they
 * happened: {"changes":["+<username>","-<username>",…]} ('+': its first session began, '-':
 * its last one ended). The plugin sends them this way, at most once per turn of the broker's
 * loop, to gateways that said they read them (a features request); one message per change
 * to any other. Invalid usernames are skipped. */
typedef struct tg_changes tg_changes;

tg_changes *tg_changes_new(void);
void tg_changes_free(tg_changes *changes);
/* Adds a change; returns how many are held (unchanged when out of memory). */
size_t tg_changes_add(tg_changes *changes, bool connected, const char *username);
size_t tg_changes_count(const tg_changes *changes);
/* The message (NUL-terminated, valid until the next add or clear); NULL when none is held. */
const char *tg_changes_text(tg_changes *changes);
void tg_changes_clear(tg_changes *changes);

#ifdef __cplusplus
}
#endif

#endif
