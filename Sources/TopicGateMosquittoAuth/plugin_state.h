/* What the plugin's files share: its state, the topics it speaks on, and each concern's
 * entry points (the callbacks plugin.c registers, and the few helpers one concern lends
 * another). The broker calls every callback from its main thread, so the state needs no
 * locks. Everything declared here is hidden: the library exports only Mosquitto's three entry
 * points. */
#ifndef TOPICGATE_PLUGIN_STATE_H
#define TOPICGATE_PLUGIN_STATE_H

#include "saves.h"
#include "topicgate_auth.h"

#include <mosquitto.h>
#include <mosquitto_broker.h>
#include <mosquitto_plugin.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#define CONTROL_TOPIC "$CONTROL/topicgate/v1"
#define FANOUT_TOPIC "$CONTROL/topicgate/v1/fanout"
#define DEFAULT_GATEWAY_USERNAME "topicgate"
#define MAX_SECRET TG_SECRET_MAX
#define PRESENCE_TOPIC "topicgate/presence"
#define CHANGES_TOPIC "topicgate/presence/changes"
#define CHANGES_PER_MESSAGE 500
/* How long gathered changes wait for more (unless a message is full): a storm of connects
 * goes in a few messages a second, not one a loop turn, and the gateway still learns each
 * within a tenth of a second or so. */
#define CHANGES_GATHER_NANOSECONDS (50LL * 1000000LL)
#define SNAPSHOT_PART 500

#define TG_HIDDEN __attribute__((visibility("hidden")))

struct plugin_state {
    mosquitto_plugin_id_t *identifier;
    unsigned char secret[MAX_SECRET];
    size_t secret_len;
    /* The secret before a rotation (plugin_opt_previous_secret_file), still accepted; 0: none. */
    unsigned char previous_secret[MAX_SECRET];
    size_t previous_secret_len;
    char *gateway_username;
    tg_revocations *revocations;
    /* Where the revocations are kept across restarts (plugin_opt_revocation_file); NULL: not kept. */
    char *revocation_file;
    tg_presence *presence;
    /* The gateway's sessions; `takes_changes`: it asked for features, so it reads presence
     * changes gathered in one message. */
    struct gateway_session {
        const struct mosquitto *client;
        bool takes_changes;
    } *gateways;
    size_t gateway_count;
    size_t gateway_capacity;
    tg_changes *changes;
    /* When the oldest change gathered was (CLOCK_MONOTONIC). */
    struct timespec changes_since;
    /* Barriers read and not answered yet, each with the loop turn (`turn`) that read it. */
    struct barrier {
        char id[TG_MAX_NONCE + 1];
        unsigned long turn;
        /* A publication before it needs a save not asked for yet (tg_saves_is_dirty). */
        bool needs_save;
    } *barriers;
    size_t barrier_count;
    size_t barrier_capacity;
    /* Loop turns ended (TICK). */
    unsigned long turn;
    /* Barriers routed wait for a save (plugin_opt_persistence_file); NULL: answered when routed. */
    tg_saves *saves;
};

static inline int64_t now_seconds(void) { return (int64_t)time(NULL); }

/* login.c: who may connect. */
TG_HIDDEN int read_secret(const char *path, unsigned char *secret, size_t *secret_len);
TG_HIDDEN bool is_gateway(const struct plugin_state *state, const char *username);
TG_HIDDEN int on_basic_auth(int event, void *event_data, void *userdata);

/* access.c: what a connected client may read and write. */
TG_HIDDEN int on_acl_check(int event, void *event_data, void *userdata);
TG_HIDDEN void note_publication(struct plugin_state *state, const char *topic);

/* presence_reports.c: who is connected, told to the gateway. */
TG_HIDDEN void publish_presence(const char *payload);
TG_HIDDEN void flush_changes(struct plugin_state *state);
TG_HIDDEN void flush_gathered_changes(struct plugin_state *state);
TG_HIDDEN void publish_change(struct plugin_state *state, bool connected, const char *username);
TG_HIDDEN struct gateway_session *gateway_session(struct plugin_state *state, const struct mosquitto *client);
TG_HIDDEN void gateway_connected(struct plugin_state *state, const struct mosquitto *client);
TG_HIDDEN void publish_snapshot(const tg_presence *presence);
TG_HIDDEN int on_disconnect(int event, void *event_data, void *userdata);

/* revocation_file.c: revoked usernames kicked, kept across restarts. */
TG_HIDDEN void kick(const char *username, void *context);
TG_HIDDEN void save_revocations(const struct plugin_state *state);
TG_HIDDEN void load_revocations(struct plugin_state *state);

/* barriers.c: routing barriers answered at the end of a loop turn, or after a save. */
TG_HIDDEN void remember_barrier(struct plugin_state *state, const char *id);
TG_HIDDEN void answer_barrier(const char *id, bool saved);
TG_HIDDEN int on_tick(int event, void *event_data, void *userdata);

/* control_messages.c: the gateway's commands on CONTROL_TOPIC. */
TG_HIDDEN int on_control(int event, void *event_data, void *userdata);

/* fanout_messages.c: one payload for many device topics, on FANOUT_TOPIC. */
TG_HIDDEN int on_fanout(int event, void *event_data, void *userdata);

#endif
