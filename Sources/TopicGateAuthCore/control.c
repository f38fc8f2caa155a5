/* Control messages from the gateway on $CONTROL/topicgate/v1 (see topicgate_auth.h). */
#include "topicgate_auth.h"

#include <cjson/cJSON.h>
#include <string.h>

int tg_control_apply(tg_revocations *set, const void *payload, size_t payload_len, int64_t now,
                     tg_revoked_fn on_revoked, void *context)
{
    if (!set || !payload) return -1;
    cJSON *root = cJSON_ParseWithLength((const char *)payload, payload_len);
    if (!cJSON_IsObject(root)) {
        cJSON_Delete(root);
        return -1;
    }
    const cJSON *commands = cJSON_GetObjectItemCaseSensitive(root, "commands");
    if (!cJSON_IsArray(commands)) {
        cJSON_Delete(root);
        return -1;
    }
    int applied = 0;
    const cJSON *command;
    cJSON_ArrayForEach(command, commands)
    {
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(command, "command");
        const cJSON *username = cJSON_GetObjectItemCaseSensitive(command, "username");
        const cJSON *expires_at = cJSON_GetObjectItemCaseSensitive(command, "expiresAt");
        if (!cJSON_IsString(name) || strcmp(name->valuestring, "revoke") != 0) continue;
        if (!cJSON_IsString(username) || !tg_username_valid(username->valuestring)) continue;
        if (!cJSON_IsNumber(expires_at)) continue;
        if (!tg_revocations_add(set, username->valuestring, (int64_t)expires_at->valuedouble, now)) continue;
        if (on_revoked) on_revoked(username->valuestring, context);
        applied++;
    }
    cJSON_Delete(root);
    return applied;
}

/* The first command of the control message `root` named `name`; NULL when there is none. */
static const cJSON *command_named(const cJSON *root, const char *name)
{
    const cJSON *commands = cJSON_GetObjectItemCaseSensitive(root, "commands");
    const cJSON *command;
    if (!cJSON_IsArray(commands)) return NULL;
    cJSON_ArrayForEach(command, commands)
    {
        const cJSON *value = cJSON_GetObjectItemCaseSensitive(command, "command");
        if (cJSON_IsString(value) && strcmp(value->valuestring, name) == 0) return command;
    }
    return NULL;
}

bool tg_control_asks_presence(const void *payload, size_t payload_len)
{
    if (!payload) return false;
    cJSON *root = cJSON_ParseWithLength((const char *)payload, payload_len);
    bool asks = command_named(root, "presence") != NULL;
    cJSON_Delete(root);
    return asks;
}

/* The string `key` of the command `name`, when it is 1...TG_MAX_NONCE characters a username may
 * have (so that it can be echoed in JSON as it is), copied to `out`. */
static bool command_string(const void *payload, size_t payload_len, const char *name, const char *key, char *out,
                           size_t capacity)
{
    if (!payload || !out || capacity == 0) return false;
    cJSON *root = cJSON_ParseWithLength((const char *)payload, payload_len);
    const cJSON *value = cJSON_GetObjectItemCaseSensitive(command_named(root, name), key);
    size_t length = cJSON_IsString(value) ? strlen(value->valuestring) : 0;
    bool found = length > 0 && length <= TG_MAX_NONCE && length < capacity && tg_username_valid(value->valuestring);
    if (found) memcpy(out, value->valuestring, length + 1);
    cJSON_Delete(root);
    return found;
}

bool tg_control_features_nonce(const void *payload, size_t payload_len, char *nonce, size_t capacity)
{
    return command_string(payload, payload_len, "features", "nonce", nonce, capacity);
}

bool tg_control_barrier_id(const void *payload, size_t payload_len, char *id, size_t capacity)
{
    return command_string(payload, payload_len, "barrier", "id", id, capacity);
}
