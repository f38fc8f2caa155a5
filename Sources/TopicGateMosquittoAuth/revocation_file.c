/* Revoked usernames: their live connections kicked, and the set kept in the revocation file
 * (plugin_opt_revocation_file) so that a restarted broker refuses them from its first CONNACK. */
#include "plugin_state.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void kick(const char *username, void *context)
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
void save_revocations(const struct plugin_state *state)
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
void load_revocations(struct plugin_state *state)
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
