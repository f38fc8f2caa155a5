/* Who may connect: a password signed with the shared secret over the username and an expiry
 * (the current secret or the one before a rotation), no revoked username, and a device's
 * client ID equal to its username, so no device can take over another device's session. The
 * gateway's own sessions are noted for presence. */
#include "plugin_state.h"

#include <stdio.h>
#include <string.h>

/* Reads a shared secret by the rule the gateway applies too (`tg_secret_parse`). */
int read_secret(const char *path, unsigned char *secret, size_t *secret_len)
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

bool is_gateway(const struct plugin_state *state, const char *username)
{
    return username && strcmp(username, state->gateway_username) == 0;
}

int on_basic_auth(int event, void *event_data, void *userdata)
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
