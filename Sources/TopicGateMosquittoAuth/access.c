/* What a connected client may read and write: the gateway's account anything; a device only
 * its own topic, and `<topic>/state` to publish (tg_device_may); everything else, wildcards
 * and $SYS included, is denied, without deferring to other plugins. */
#include "plugin_state.h"

/* A publication to `topic` from the gateway: it needs a save unless its device is online with
 * clean sessions only (a broker saves no clean session). */
void note_publication(struct plugin_state *state, const char *topic)
{
    if (state->saves && !tg_presence_only_clean(state->presence, topic)) tg_saves_dirty(state->saves);
}

int on_acl_check(int event, void *event_data, void *userdata)
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
