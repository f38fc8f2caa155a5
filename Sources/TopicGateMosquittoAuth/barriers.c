/* Routing barriers: each read in one turn of the broker's loop is answered at the end of the
 * next (what the fan-outs before it handed to the broker is routed by then), or once a save
 * holds it (saves.c). */
#include "plugin_state.h"

#include <stdio.h>
#include <stdlib.h>

/* Keeps a barrier read in this loop turn, to be answered at the end of the next one. Without
 * memory for it, it is never answered: the gateway then sends its fan-outs again (duplicates,
 * never a loss). */
void remember_barrier(struct plugin_state *state, const char *id)
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
void answer_barrier(const char *id, bool saved)
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

int on_tick(int event, void *event_data, void *userdata)
{
    (void)event;
    (void)event_data;
    struct plugin_state *state = userdata;
    flush_gathered_changes(state);
    answer_barriers(state);
    if (state->saves) tg_saves_tick(state->saves, answer_barrier);
    state->turn++;
    return MOSQ_ERR_SUCCESS;
}
