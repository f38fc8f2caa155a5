/* Presence: a device's first session beginning and its last one ending, published on the
 * presence topic (which only the gateway's account may read), or gathered for 50 ms on the
 * changes topic once every gateway session reads them; a snapshot of who is connected
 * on request. */
#include "plugin_state.h"
#include "monotonic_clock.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Publishes `payload` (a NUL-terminated JSON text) on the presence topic, QoS 1. */
void publish_presence(const char *payload)
{
    int rc = mosquitto_broker_publish_copy(NULL, PRESENCE_TOPIC, (int)strlen(payload), payload, 1, false, NULL);
    if (rc != MOSQ_ERR_SUCCESS)
        mosquitto_log_printf(MOSQ_LOG_WARNING, "topicgate-auth: cannot publish presence (%d)", rc);
}

/* Publishes the changes gathered so far, if any. */
void flush_changes(struct plugin_state *state)
{
    const char *text = tg_changes_text(state->changes);
    if (!text) return;
    int rc = mosquitto_broker_publish_copy(NULL, CHANGES_TOPIC, (int)strlen(text), text, 1, false, NULL);
    if (rc != MOSQ_ERR_SUCCESS)
        mosquitto_log_printf(MOSQ_LOG_WARNING, "topicgate-auth: cannot publish presence changes (%d)", rc);
    tg_changes_clear(state->changes);
}

/* At the end of a loop turn: publishes the changes gathered once the oldest waited
 * CHANGES_GATHER_NANOSECONDS. */
void flush_gathered_changes(struct plugin_state *state)
{
    if (tg_changes_count(state->changes) == 0) return;
    if (nanoseconds_between(state->changes_since, monotonic_now()) < CHANGES_GATHER_NANOSECONDS) return;
    flush_changes(state);
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
void publish_change(struct plugin_state *state, bool connected, const char *username)
{
    if (gathering_changes(state)) {
        if (tg_changes_count(state->changes) == 0) state->changes_since = monotonic_now();
        if (tg_changes_add(state->changes, connected, username) >= CHANGES_PER_MESSAGE) flush_changes(state);
        return;
    }
    flush_changes(state);
    char payload[TG_MAX_USERNAME + 32];
    snprintf(payload, sizeof payload, "{\"%s\":\"%s\"}", connected ? "connected" : "disconnected", username);
    publish_presence(payload);
}

struct gateway_session *gateway_session(struct plugin_state *state, const struct mosquitto *client)
{
    for (size_t i = 0; i < state->gateway_count; i++)
        if (state->gateways[i].client == client) return &state->gateways[i];
    return NULL;
}

/* A session of the gateway's account began: until it asks for features it reads only single
 * reports, so what was gathered goes now. */
void gateway_connected(struct plugin_state *state, const struct mosquitto *client)
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
void publish_snapshot(const tg_presence *presence)
{
    size_t online = tg_presence_online(presence);
    struct snapshot snapshot = {cJSON_CreateArray(), 0, online == 0 ? 1 : (int)((online + SNAPSHOT_PART - 1) / SNAPSHOT_PART)};
    tg_presence_each(presence, add_to_snapshot, &snapshot);
    if (snapshot.part < snapshot.parts) send_snapshot_part(&snapshot);
    cJSON_Delete(snapshot.names);
}

int on_disconnect(int event, void *event_data, void *userdata)
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
