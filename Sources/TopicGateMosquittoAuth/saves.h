/* Saves on request: barriers answered once the broker has written its persistence file with
 * what they cover in it, so that a crash of the broker can no longer lose it. */
#ifndef TOPICGATE_SAVES_H
#define TOPICGATE_SAVES_H

#include <stdbool.h>

typedef struct tg_saves tg_saves;

/* `persistence_file`: the broker's persistence_location joined with its persistence_file (the
 * plugin cannot read the broker's configuration, so plugin_opt_persistence_file names it).
 * NULL when out of memory. */
tg_saves *tg_saves_new(const char *persistence_file);
void tg_saves_free(tg_saves *saves);

/* Called with each barrier's ID once a save that began after it was routed has ended
 * (`saved` true), or when the broker did not save within a few seconds (`saved` false: the
 * barrier is answered as routed only, an error is logged, and for the next minute every barrier
 * is answered as routed, without asking for a save). */
typedef void (*tg_saves_answer_fn)(const char *id, bool saved);

/* A publication went to a device that may keep it across a restart (not online with clean
 * sessions only): barriers read from now until the next save is asked for need that save. */
void tg_saves_dirty(tg_saves *saves);

/* True when a barrier read now needs a save of its own (tg_saves_add), false when every
 * publication before it that needs one is covered by a save asked for already
 * (tg_saves_follow). */
bool tg_saves_is_dirty(const tg_saves *saves);

/* A routed barrier that needs a save, answered after the next one. False when out of memory. */
bool tg_saves_add(tg_saves *saves, const char *id);

/* A routed barrier that needs no save of its own: answered with the save under way, if one is
 * (1), else not taken (0: answer it now); -1 when out of memory. */
int tg_saves_follow(tg_saves *saves, const char *id);

/* A device with a persistent session subscribed: its session is saved soon too (no answer), so
 * that a crash after it does not take the subscription, and with it what is sent to the device
 * before the device comes back. */
void tg_saves_want(tg_saves *saves);

/* At the end of each turn of the broker's loop: answers the barriers of a save that ended, and
 * asks the broker for a save (SIGUSR1, which the broker acts on in its next turn, before its
 * next TICK) when barriers wait and none is under way. */
void tg_saves_tick(tg_saves *saves, tg_saves_answer_fn answer);

#endif
