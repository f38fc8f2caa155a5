/*
 * TopicGate's Mosquitto plugin: what the broker enforces (broker-config/README.md). This file
 * reads the options, registers the callbacks and frees the state; each concern has a file of
 * its own: login.c (BASIC_AUTH), access.c (ACL_CHECK), control_messages.c and
 * fanout_messages.c (CONTROL), presence_reports.c (presence, DISCONNECT), barriers.c (routing
 * barriers, TICK), revocation_file.c, saves.c.
 *
 * - BASIC_AUTH: the password is signed with the secret shared with the gateway, over the
 *   username and an expiry (compact form or HS256 JWT, tg_password_verify); a device's client ID must equal its username, so no device can take over
 *   another device's session; revoked usernames are refused.
 * - ACL_CHECK: the gateway's account may do anything; a device may subscribe to and receive
 *   only its own topic and publish only to `<topic>/state` (tg_device_may); everything else,
 *   wildcards and $SYS included, is denied. There is no deferral to other plugins.
 * - CONTROL on $CONTROL/topicgate/v1, from the gateway only: revoke usernames (kept until
 *   their credentials expire) and kick their live connections; report who is connected; say
 *   what the plugin can do ({"features":["fanOut","fanOutBatches",…],"nonce":…} on the
 *   presence topic).
 * - CONTROL on $CONTROL/topicgate/v1/fanout, from the gateway only: one payload for many
 *   device topics, or a batch of such fan-outs (tg_fanout_each), each copy published here
 *   with QoS 1 as if the gateway had published it to that topic: routed to the topic's
 *   subscriber, which the read check above lets only the device itself be, queued for it while
 *   it is away. The broker acknowledges the fan-out once every copy is handed to it
 *   (mosquitto_broker_publish), which routes them at the start of its next loop, before it
 *   reads its sockets again.
 * - Presence: a device's first session (BASIC_AUTH accepted) and its last one ending
 *   (DISCONNECT, also after a kick) are published on `topicgate/presence`, which only the
 *   gateway's account may read: {"connected":"<username>"} / {"disconnected":"<username>"};
 *   asked with {"command":"presence"}, the connected usernames in parts of 500:
 *   {"snapshot":[…],"part":1,"parts":N} (an empty snapshot is one part). When every gateway
 *   session connected asked for features (so reads them), the changes go instead, gathered
 *   for 50 ms and sent at the end of a turn of the broker's loop (TICK), on
 *   `topicgate/presence/changes`: {"changes":["+<username>","-<username>",…]}, at most 500
 *   per message.
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
 * every callback from its main thread, so its state (plugin_state.h) needs no locks.
 */
#include "topicgate_mosquitto_auth.h"
#include "plugin_state.h"

#include <stdlib.h>
#include <string.h>

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
