/* Fan-outs: one payload for many device topics, each copy published by the broker as if the
 * gateway had published it to that topic. A malformed one is dropped and logged, the gateway's
 * connection kept. */
#include "plugin_state.h"

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

int on_fanout(int event, void *event_data, void *userdata)
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
