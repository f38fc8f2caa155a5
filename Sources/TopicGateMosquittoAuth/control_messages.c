/* The gateway's commands on the control topic: revocations, a presence snapshot, features
 * (which also tell the plugin the session reads gathered changes) and routing barriers. A
 * malformed one is logged and ignored: the gateway keeps its connection. */
#include "plugin_state.h"

#include <stdio.h>

int on_control(int event, void *event_data, void *userdata)
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
        snprintf(payload, sizeof payload, "{\"features\":[\"fanOut\",\"fanOutBatches\",\"routed\"%s],\"nonce\":\"%s\"}",
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
