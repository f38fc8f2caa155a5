/*
 * TopicGate's Mosquitto plugin: what the broker enforces (broker-config/README.md).
 *
 * - BASIC_AUTH: the password is signed with the secret shared with the gateway, over the
 *   username and an expiry (compact form or HS256 JWT, tg_password_verify); a device's client ID must equal its username, so no device can take over
 *   another device's session; revoked usernames are refused.
 * - ACL_CHECK: the gateway's account may do anything; a device may subscribe to and receive
 *   only its own topic and publish only to `<topic>/state` (tg_device_may); everything else,
 *   wildcards and $SYS included, is denied. There is no deferral to other plugins.
 * - CONTROL on $CONTROL/topicgate/v1, from the gateway only: revoke usernames (kept until
 *   their credentials expire) and kick their live connections; report who is connected; say
 *   what the plugin can do ({"features":["fanOut"],"nonce":…} on the presence topic).
 * - CONTROL on $CONTROL/topicgate/v1/fanout, from the gateway only: one payload for many
 *   device topics (tg_fanout_each), each published here with QoS 1 as if the gateway had
 *   published it to that topic: routed to the topic's subscriber, which the read check above
 *   lets only the device itself be, queued for it while it is away. The broker acknowledges
 *   the fan-out once every copy is handed to it (mosquitto_broker_publish), which routes them at
 *   the start of its next loop, before it reads its sockets again.
 * - Presence: a device's first session (BASIC_AUTH accepted) and its last one ending
 *   (DISCONNECT, also after a kick) are published on `topicgate/presence`, which only the
 *   gateway's account may read: {"connected":"<username>"} / {"disconnected":"<username>"};
 *   asked with {"command":"presence"}, the connected usernames in parts of 500:
 *   {"snapshot":[…],"part":1,"parts":N} (an empty snapshot is one part). When every gateway
 *   session connected asked for features (so reads them), the changes go instead, gathered
 *   per turn of the broker's loop (TICK), on `topicgate/presence/changes`:
 *   {"changes":["+<username>","-<username>",…]}, at most 500 per message.
 * - Routing barriers: {"command":"barrier","id":…} on the control topic is answered with
 *   {"routed":"<id>"} on the presence topic at the end of the loop turn after the one that read
 *   it: the copies of every fan-out acknowledged before are then in their devices' sessions
 *   (the start of that turn routed them), where a clean stop saves them. The gateway settles
 *   a fan-out only then (tg_control_barrier_id).
 * - Saves on request (saves.c): with plugin_opt_persistence_file, a routed barrier is not
 *   answered yet; the plugin asks the broker to write its persistence file (SIGUSR1, at most
 *   20 times a second, one save for every barrier routed meanwhile) and answers
 *   {"saved":"<id>"} once the file changed: a crash of the broker can no longer lose what the
 *   barrier covers. Feature "saved". Only publications to devices that may keep them need a
 *   save: a barrier after publications only to devices online with clean sessions (which no
 *   broker saves) is answered when routed, or with a save under way. A device with a
 *   persistent session that subscribes gets its session saved soon the same way (no answer),
 *   so a crash does not take the subscription.
 *
 * No database: every check is O(1) on values in memory; the only files written are the
 * revocations (on a change) and, by the broker, its persistence file. The broker calls
 * every callback from its main thread, so the state below needs no locks.
 */
#include "topicgate_mosquitto_auth.h"
#include "saves.h"
#include "topicgate_auth.h"

#include <cjson/cJSON.h>
#include <mosquitto.h>
#include <mosquitto_broker.h>
#include <mosquitto_plugin.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define CONTROL_TOPIC "$CONTROL/topicgate/v1"
#define FANOUT_TOPIC "$CONTROL/topicgate/v1/fanout"
#define DEFAULT_GATEWAY_USERNAME "topicgate"
#define MAX_SECRET TG_SECRET_MAX
#define PRESENCE_TOPIC "topicgate/presence"
#define CHANGES_TOPIC "topicgate/presence/changes"
#define CHANGES_PER_MESSAGE 500
#define SNAPSHOT_PART 500

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

/* Publishes `payload` (a NUL-terminated JSON text) on the presence topic, QoS 1. */
static void publish_presence(const char *payload)
{
    int rc = mosquitto_broker_publish_copy(NULL, PRESENCE_TOPIC, (int)strlen(payload), payload, 1, false, NULL);
    if (rc != MOSQ_ERR_SUCCESS)
        mosquitto_log_printf(MOSQ_LOG_WARNING, "topicgate-auth: cannot publish presence (%d)", rc);
}

/* Publishes the changes gathered so far, if any. */
static void flush_changes(struct plugin_state *state)
{
    const char *text = tg_changes_text(state->changes);
    if (!text) return;
    int rc = mosquitto_broker_publish_copy(NULL, CHANGES_TOPIC, (int)strlen(text), text, 1, false, NULL);
    if (rc != MOSQ_ERR_SUCCESS)
        mosquitto_log_printf(MOSQ_LOG_WARNING, "topicgate-auth: cannot publish presence changes (%d)", rc);
    tg_changes_clear(state->changes);
}

/* True when changes are gathered: a gateway is connected and every one of its sessions reads
 * them. */
static bool gathering_changes(const struct plugin_state *state)
{
    if (state->gateway_count == 0) return false;
    for (size_t i = 0; i < state->gateway_count; i++)
        if (!state->gateways[i].takes_changes) return false;
    return true;
}

/* A device's first session began (`connected`) or its last one ended: gathered, or else
 * {"connected":"<username>"} / {"disconnected":"<username>"} (valid usernames need no escaping). */
static void publish_change(struct plugin_state *state, bool connected, const char *username)
{
    if (gathering_changes(state)) {
        if (tg_changes_add(state->changes, connected, username) >= CHANGES_PER_MESSAGE) flush_changes(state);
        return;
    }
    flush_changes(state);
    char payload[TG_MAX_USERNAME + 32];
    snprintf(payload, sizeof payload, "{\"%s\":\"%s\"}", connected ? "connected" : "disconnected", username);
    publish_presence(payload);
}

static struct gateway_session *gateway_session(struct plugin_state *state, const struct mosquitto *client)
{
    for (size_t i = 0; i < state->gateway_count; i++)
        if (state->gateways[i].client == client) return &state->gateways[i];
    return NULL;
}

/* A session of the gateway's account began: until it asks for features it reads only single
 * reports, so what was gathered goes now. */
static void gateway_connected(struct plugin_state *state, const struct mosquitto *client)
{
    flush_changes(state);
    if (gateway_session(state, client)) return;
    if (state->gateway_count == state->gateway_capacity) {
        size_t capacity = state->gateway_capacity ? state->gateway_capacity * 2 : 8;
        struct gateway_session *grown = realloc(state->gateways, capacity * sizeof *grown);
        if (!grown) return;
        state->gateways = grown;
        state->gateway_capacity = capacity;
    }
    state->gateways[state->gateway_count++] = (struct gateway_session){client, false};
}

static void gateway_disconnected(struct plugin_state *state, const struct mosquitto *client)
{
    struct gateway_session *session = gateway_session(state, client);
    if (!session) return;
    *session = state->gateways[--state->gateway_count];
}

struct snapshot {
    cJSON *names;
    int part;
    int parts;
};

static void send_snapshot_part(struct snapshot *snapshot)
{
    cJSON *root = cJSON_CreateObject();
    if (!root) return;
    cJSON_AddItemToObject(root, "snapshot", snapshot->names);
    cJSON_AddNumberToObject(root, "part", ++snapshot->part);
    cJSON_AddNumberToObject(root, "parts", snapshot->parts);
    char *text = cJSON_PrintUnformatted(root);
    if (text) publish_presence(text);
    cJSON_free(text);
    cJSON_Delete(root);
    snapshot->names = cJSON_CreateArray();
}

static void add_to_snapshot(const char *username, void *context)
{
    struct snapshot *snapshot = context;
    if (!snapshot->names) return;
    cJSON_AddItemToArray(snapshot->names, cJSON_CreateString(username));
    if (cJSON_GetArraySize(snapshot->names) == SNAPSHOT_PART) send_snapshot_part(snapshot);
}

/* Every connected username, in parts of SNAPSHOT_PART. */
static void publish_snapshot(const tg_presence *presence)
{
    size_t online = tg_presence_online(presence);
    struct snapshot snapshot = {cJSON_CreateArray(), 0, online == 0 ? 1 : (int)((online + SNAPSHOT_PART - 1) / SNAPSHOT_PART)};
    tg_presence_each(presence, add_to_snapshot, &snapshot);
    if (snapshot.part < snapshot.parts) send_snapshot_part(&snapshot);
    cJSON_Delete(snapshot.names);
}

static int64_t now_seconds(void) { return (int64_t)time(NULL); }

/* Reads a shared secret by the rule the gateway applies too (`tg_secret_parse`). */
static int read_secret(const char *path, unsigned char *secret, size_t *secret_len)
{
    FILE *file = fopen(path, "rb");
    if (!file) {
        mosquitto_log_printf(MOSQ_LOG_ERR, "topicgate-auth: cannot read secret file %s", path);
        return MOSQ_ERR_INVAL;
    }
    /* One byte more than a secret may hold with its blanks, to tell a file that is too long. */
    unsigned char contents[4 * MAX_SECRET + 1];
    size_t n = fread(contents, 1, sizeof contents, file);
    fclose(file);
    size_t start = 0, length = 0;
    int parsed = n == sizeof contents ? -2 : tg_secret_parse(contents, n, &start, &length);
    if (parsed != 0) {
        mosquitto_log_printf(MOSQ_LOG_ERR, "topicgate-auth: the secret in %s is %s than %d bytes", path,
                             parsed == -1 ? "shorter" : "longer", parsed == -1 ? TG_SECRET_MIN : TG_SECRET_MAX);
        return MOSQ_ERR_INVAL;
    }
    memcpy(secret, contents + start, length);
    *secret_len = length;
    return MOSQ_ERR_SUCCESS;
}

static bool is_gateway(const struct plugin_state *state, const char *username)
{
    return username && strcmp(username, state->gateway_username) == 0;
}

/* A publication to `topic` from the gateway: it needs a save unless its device is online with
 * clean sessions only (a broker saves no clean session). */
static void note_publication(struct plugin_state *state, const char *topic)
{
    if (state->saves && !tg_presence_only_clean(state->presence, topic)) tg_saves_dirty(state->saves);
}

static int on_basic_auth(int event, void *event_data, void *userdata)
{
    (void)event;
    struct mosquitto_evt_basic_auth *auth = event_data;
    struct plugin_state *state = userdata;
    const char *username = auth->username;
    if (!username || !auth->password) return MOSQ_ERR_AUTH;
    bool gateway = is_gateway(state, username);
    if (!gateway && !tg_username_valid(username)) return MOSQ_ERR_AUTH;

    tg_jwt_result result = tg_password_verify_rotating(auth->password, state->secret, state->secret_len,
                                                       state->previous_secret, state->previous_secret_len, username,
                                                       now_seconds());
    if (result != TG_JWT_OK) {
        mosquitto_log_printf(MOSQ_LOG_NOTICE, "topicgate-auth: refused %s: %s", username, tg_jwt_result_name(result));
        return MOSQ_ERR_AUTH;
    }
    if (gateway) {
        gateway_connected(state, auth->client);
        return MOSQ_ERR_SUCCESS;
    }
    if (tg_revocations_contains(state->revocations, username, now_seconds())) {
        mosquitto_log_printf(MOSQ_LOG_NOTICE, "topicgate-auth: refused %s: revoked", username);
        return MOSQ_ERR_AUTH;
    }
    const char *client_id = mosquitto_client_id(auth->client);
    if (!client_id || strcmp(client_id, username) != 0) {
        mosquitto_log_printf(MOSQ_LOG_NOTICE, "topicgate-auth: refused %s: client ID must equal the username", username);
        return MOSQ_ERR_AUTH;
    }
    int sessions = tg_presence_connect(state->presence, auth->client, username);
    if (mosquitto_client_clean_session(auth->client)) tg_presence_mark_clean(state->presence, auth->client);
    if (sessions == 1) publish_change(state, true, username);
    return MOSQ_ERR_SUCCESS;
}

static int on_disconnect(int event, void *event_data, void *userdata)
{
    (void)event;
    struct mosquitto_evt_disconnect *disconnect = event_data;
    struct plugin_state *state = userdata;
    char username[TG_MAX_USERNAME + 1];
    if (tg_presence_disconnect(state->presence, disconnect->client, username, sizeof username) == 0)
        publish_change(state, false, username);
    gateway_disconnected(state, disconnect->client);
    return MOSQ_ERR_SUCCESS;
}

static int on_acl_check(int event, void *event_data, void *userdata)
{
    (void)event;
    struct mosquitto_evt_acl_check *check = event_data;
    struct plugin_state *state = userdata;
    const char *username = mosquitto_client_username(check->client);
    if (!username) return MOSQ_ERR_ACL_DENIED;
    if (is_gateway(state, username)) {
        if (check->access == MOSQ_ACL_WRITE && tg_username_valid(check->topic)) note_publication(state, check->topic);
        return MOSQ_ERR_SUCCESS;
    }
    if (tg_revocations_contains(state->revocations, username, now_seconds())) return MOSQ_ERR_ACL_DENIED;
    if (!tg_device_may(username, (tg_access)check->access, check->topic)) return MOSQ_ERR_ACL_DENIED;
    /* A persistent session's subscription is saved soon, so a crash does not take it. */
    if (check->access == MOSQ_ACL_SUBSCRIBE && state->saves && !mosquitto_client_clean_session(check->client))
        tg_saves_want(state->saves);
    return MOSQ_ERR_SUCCESS;
}

static void kick(const char *username, void *context)
{
    (void)context;
    mosquitto_log_printf(MOSQ_LOG_NOTICE, "topicgate-auth: revoked %s", username);
    mosquitto_kick_client_by_username(username, false);
}

static void write_revocation(const char *username, int64_t expires_at, void *context)
{
    fprintf((FILE *)context, "%s %lld\n", username, (long long)expires_at);
}

/* Rewrites the revocation file from the set, through a temporary file renamed over it, so that
 * a broker killed meanwhile finds the old list or the new one, never half of one. */
static void save_revocations(const struct plugin_state *state)
{
    if (!state->revocation_file) return;
    size_t length = strlen(state->revocation_file);
    char *partial = malloc(length + sizeof ".partial");
    if (!partial) return;
    memcpy(partial, state->revocation_file, length);
    memcpy(partial + length, ".partial", sizeof ".partial");
    FILE *file = fopen(partial, "w");
    if (!file) {
        mosquitto_log_printf(MOSQ_LOG_ERR, "topicgate-auth: cannot write %s", partial);
        free(partial);
        return;
    }
    tg_revocations_each(state->revocations, now_seconds(), write_revocation, file);
    bool written = fflush(file) == 0 && fsync(fileno(file)) == 0;
    written = fclose(file) == 0 && written;
    if (!written || rename(partial, state->revocation_file) != 0)
        mosquitto_log_printf(MOSQ_LOG_ERR, "topicgate-auth: cannot save the revocations to %s",
                             state->revocation_file);
    free(partial);
}

/* Reads the revocations a previous run saved: a restarted broker refuses them from its first
 * CONNACK, before any gateway has sent them again. */
static void load_revocations(struct plugin_state *state)
{
    if (!state->revocation_file) return;
    FILE *file = fopen(state->revocation_file, "rb");
    if (!file) return;
    size_t capacity = 1 << 16, length = 0;
    char *text = malloc(capacity);
    while (text) {
        length += fread(text + length, 1, capacity - length, file);
        if (length < capacity) break;
        char *grown = realloc(text, capacity * 2);
        if (!grown) {
            free(text);
            text = NULL;
            break;
        }
        text = grown;
        capacity *= 2;
    }
    fclose(file);
    if (!text) return;
    size_t loaded = tg_revocations_load(state->revocations, text, length, now_seconds());
    free(text);
    mosquitto_log_printf(MOSQ_LOG_NOTICE, "topicgate-auth: %zu revocation(s) kept from %s", loaded,
                         state->revocation_file);
}

/* Keeps a barrier read in this loop turn, to be answered at the end of the next one. Without
 * memory for it, it is never answered: the gateway then sends its fan-outs again (duplicates,
 * never a loss). */
static void remember_barrier(struct plugin_state *state, const char *id)
{
    if (state->barrier_count == state->barrier_capacity) {
        size_t capacity = state->barrier_capacity ? state->barrier_capacity * 2 : 16;
        struct barrier *grown = realloc(state->barriers, capacity * sizeof *grown);
        if (!grown) return;
        state->barriers = grown;
        state->barrier_capacity = capacity;
    }
    struct barrier *barrier = &state->barriers[state->barrier_count++];
    snprintf(barrier->id, sizeof barrier->id, "%s", id);
    barrier->turn = state->turn;
    barrier->needs_save = state->saves && tg_saves_is_dirty(state->saves);
}

/* {"saved":"<id>"} when a save holds what barrier `id` covers, else {"routed":"<id>"}. */
static void answer_barrier(const char *id, bool saved)
{
    char payload[TG_MAX_NONCE + 16];
    snprintf(payload, sizeof payload, "{\"%s\":\"%s\"}", saved ? "saved" : "routed", id);
    publish_presence(payload);
}

/* The barriers read in an earlier loop turn than this one are routed (this turn's start routed
 * what the fan-outs before them handed to the broker): answered now, after the next save (one
 * went before them to a device that may keep it), or with the save under way. One that cannot
 * be kept for lack of memory is never answered: the gateway sends its publications again. */
static void answer_barriers(struct plugin_state *state)
{
    size_t kept = 0;
    for (size_t i = 0; i < state->barrier_count; i++) {
        const struct barrier *barrier = &state->barriers[i];
        if (barrier->turn < state->turn) {
            if (!state->saves)
                answer_barrier(barrier->id, false);
            else if (barrier->needs_save)
                tg_saves_add(state->saves, barrier->id);
            else if (tg_saves_follow(state->saves, barrier->id) == 0)
                answer_barrier(barrier->id, false);
        } else {
            state->barriers[kept++] = state->barriers[i];
        }
    }
    state->barrier_count = kept;
}

static int on_control(int event, void *event_data, void *userdata)
{
    (void)event;
    struct mosquitto_evt_control *control = event_data;
    struct plugin_state *state = userdata;
    if (!is_gateway(state, mosquitto_client_username(control->client))) return MOSQ_ERR_ACL_DENIED;
    int applied = tg_control_apply(state->revocations, control->payload, control->payloadlen, now_seconds(), kick, NULL);
    if (applied > 0) {
        tg_revocations_prune(state->revocations, now_seconds());
        save_revocations(state);
    }
    /* What was gathered before a snapshot goes before it. */
    flush_changes(state);
    if (tg_control_asks_presence(control->payload, control->payloadlen)) publish_snapshot(state->presence);
    char nonce[TG_MAX_NONCE + 1];
    if (tg_control_features_nonce(control->payload, control->payloadlen, nonce, sizeof nonce)) {
        struct gateway_session *session = gateway_session(state, control->client);
        if (session) session->takes_changes = true;
        char payload[TG_MAX_NONCE + 64];
        snprintf(payload, sizeof payload, "{\"features\":[\"fanOut\",\"routed\"%s],\"nonce\":\"%s\"}",
                 state->saves ? ",\"saved\"" : "", nonce);
        publish_presence(payload);
    }
    char id[TG_MAX_NONCE + 1];
    if (tg_control_barrier_id(control->payload, control->payloadlen, id, sizeof id)) remember_barrier(state, id);
    /* As a malformed fan-out: logged, and the gateway keeps its connection. */
    if (applied < 0)
        mosquitto_log_printf(MOSQ_LOG_ERR, "topicgate-auth: ignored a malformed control message of %u bytes",
                             (unsigned)control->payloadlen);
    return MOSQ_ERR_SUCCESS;
}

static int on_tick(int event, void *event_data, void *userdata)
{
    (void)event;
    (void)event_data;
    struct plugin_state *state = userdata;
    flush_changes(state);
    answer_barriers(state);
    if (state->saves) tg_saves_tick(state->saves, answer_barrier);
    state->turn++;
    return MOSQ_ERR_SUCCESS;
}

struct fanout_outcome {
    struct plugin_state *state;
    long failed;
    int last_error;
};

static void publish_to_device(const char *topic, const void *payload, size_t payload_len, void *context)
{
    struct fanout_outcome *outcome = context;
    note_publication(outcome->state, topic);
    int rc = mosquitto_broker_publish_copy(NULL, topic, (int)payload_len, payload, 1, false, NULL);
    if (rc != MOSQ_ERR_SUCCESS) {
        outcome->failed++;
        outcome->last_error = rc;
    }
}

static int on_fanout(int event, void *event_data, void *userdata)
{
    (void)event;
    struct mosquitto_evt_control *control = event_data;
    struct plugin_state *state = userdata;
    if (!is_gateway(state, mosquitto_client_username(control->client))) return MOSQ_ERR_ACL_DENIED;
    struct fanout_outcome outcome = {state, 0, MOSQ_ERR_SUCCESS};
    long topics = tg_fanout_each(control->payload, control->payloadlen, publish_to_device, &outcome);
    /* Dropped and logged, the gateway's connection kept: closing it would make the gateway send
     * the same fan-out again after its reconnect, for ever, and hold up every other delivery. */
    if (topics < 0) {
        mosquitto_log_printf(MOSQ_LOG_ERR, "topicgate-auth: refused a malformed fan-out of %u bytes",
                             (unsigned)control->payloadlen);
        return MOSQ_ERR_SUCCESS;
    }
    if (outcome.failed > 0)
        mosquitto_log_printf(MOSQ_LOG_ERR, "topicgate-auth: %ld of %ld fan-out publications failed (%d)", outcome.failed,
                             topics, outcome.last_error);
    return MOSQ_ERR_SUCCESS;
}

int mosquitto_plugin_version(int supported_version_count, const int *supported_versions)
{
    for (int i = 0; i < supported_version_count; i++)
        if (supported_versions[i] == 5) return 5;
    return -1;
}

int mosquitto_plugin_init(mosquitto_plugin_id_t *identifier, void **userdata, struct mosquitto_opt *options,
                          int option_count)
{
    struct plugin_state *state = calloc(1, sizeof *state);
    if (!state) return MOSQ_ERR_NOMEM;
    state->identifier = identifier;
    const char *secret_file = NULL;
    const char *gateway_username = DEFAULT_GATEWAY_USERNAME;
    const char *revocation_file = NULL;
    const char *previous_secret_file = NULL;
    const char *persistence_file = NULL;
    for (int i = 0; i < option_count; i++) {
        if (strcmp(options[i].key, "secret_file") == 0) secret_file = options[i].value;
        if (strcmp(options[i].key, "gateway_username") == 0) gateway_username = options[i].value;
        if (strcmp(options[i].key, "revocation_file") == 0) revocation_file = options[i].value;
        if (strcmp(options[i].key, "previous_secret_file") == 0) previous_secret_file = options[i].value;
        if (strcmp(options[i].key, "persistence_file") == 0) persistence_file = options[i].value;
    }
    int rc = MOSQ_ERR_INVAL;
    if (!secret_file) {
        mosquitto_log_printf(MOSQ_LOG_ERR, "topicgate-auth: plugin_opt_secret_file is required");
        goto fail;
    }
    if ((rc = read_secret(secret_file, state->secret, &state->secret_len)) != MOSQ_ERR_SUCCESS) goto fail;
    if (previous_secret_file &&
        (rc = read_secret(previous_secret_file, state->previous_secret, &state->previous_secret_len)) != MOSQ_ERR_SUCCESS)
        goto fail;
    rc = MOSQ_ERR_NOMEM;
    state->gateway_username = strdup(gateway_username);
    state->revocations = tg_revocations_new();
    state->presence = tg_presence_new();
    state->changes = tg_changes_new();
    state->revocation_file = revocation_file ? strdup(revocation_file) : NULL;
    state->saves = persistence_file ? tg_saves_new(persistence_file) : NULL;
    if (!state->gateway_username || !state->revocations || !state->presence || !state->changes ||
        (revocation_file && !state->revocation_file) || (persistence_file && !state->saves))
        goto fail;
    load_revocations(state);
    if ((rc = mosquitto_callback_register(identifier, MOSQ_EVT_BASIC_AUTH, on_basic_auth, NULL, state)) ||
        (rc = mosquitto_callback_register(identifier, MOSQ_EVT_ACL_CHECK, on_acl_check, NULL, state)) ||
        (rc = mosquitto_callback_register(identifier, MOSQ_EVT_CONTROL, on_control, CONTROL_TOPIC, state)) ||
        (rc = mosquitto_callback_register(identifier, MOSQ_EVT_CONTROL, on_fanout, FANOUT_TOPIC, state)) ||
        (rc = mosquitto_callback_register(identifier, MOSQ_EVT_DISCONNECT, on_disconnect, NULL, state)) ||
        (rc = mosquitto_callback_register(identifier, MOSQ_EVT_TICK, on_tick, NULL, state)))
        goto fail;
    *userdata = state;
    mosquitto_log_printf(MOSQ_LOG_NOTICE, "topicgate-auth: loaded; gateway account is '%s'", state->gateway_username);
    return MOSQ_ERR_SUCCESS;
fail:
    tg_revocations_free(state->revocations);
    tg_presence_free(state->presence);
    tg_changes_free(state->changes);
    tg_saves_free(state->saves);
    free(state->barriers);
    free(state->gateways);
    free(state->gateway_username);
    free(state->revocation_file);
    free(state);
    return rc;
}

int mosquitto_plugin_cleanup(void *userdata, struct mosquitto_opt *options, int option_count)
{
    (void)options;
    (void)option_count;
    struct plugin_state *state = userdata;
    if (!state) return MOSQ_ERR_SUCCESS;
    mosquitto_callback_unregister(state->identifier, MOSQ_EVT_BASIC_AUTH, on_basic_auth, NULL);
    mosquitto_callback_unregister(state->identifier, MOSQ_EVT_ACL_CHECK, on_acl_check, NULL);
    mosquitto_callback_unregister(state->identifier, MOSQ_EVT_CONTROL, on_control, CONTROL_TOPIC);
    mosquitto_callback_unregister(state->identifier, MOSQ_EVT_CONTROL, on_fanout, FANOUT_TOPIC);
    mosquitto_callback_unregister(state->identifier, MOSQ_EVT_DISCONNECT, on_disconnect, NULL);
    mosquitto_callback_unregister(state->identifier, MOSQ_EVT_TICK, on_tick, NULL);
    tg_revocations_free(state->revocations);
    tg_presence_free(state->presence);
    tg_changes_free(state->changes);
    tg_saves_free(state->saves);
    free(state->barriers);
    free(state->gateways);
    free(state->gateway_username);
    free(state->revocation_file);
    free(state);
    return MOSQ_ERR_SUCCESS;
}
