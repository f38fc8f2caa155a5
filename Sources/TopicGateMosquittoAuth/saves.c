/* Saves on request (saves.h).
 *
 * Mosquitto writes its persistence file when it receives SIGUSR1: the signal handler sets a
 * flag that its main loop acts on after reading its sockets and before the plugins' TICK. A
 * save writes `<file>.new` and renames it over the file, so the file's identity (inode, change
 * time, size) differs after each save; a change seen after the request means a save that began
 * after it, which holds every message routed before the request. */
#include "saves.h"
#include "monotonic_clock.h"
#include "topicgate_auth.h"

#include <mosquitto.h>
#include <mosquitto_broker.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

/* How long a requested save may take before its barriers are answered as routed only, and
 * how long barriers are then answered so before a save is asked for again. */
#define SAVE_PATIENCE_SECONDS 5
#define SAVE_RETRY_SECONDS 60
/* The least time between two requests: each save writes the whole file, so barriers routed
 * meanwhile wait and share the next one: at most 20 saves a second, and no more than a fifth
 * of the broker's time spent saving (the gap is at least four times the last save). */
#define SAVE_GAP_NANOSECONDS 50000000LL
#define SAVE_GAP_FACTOR 4

struct identity {
    bool exists;
    dev_t device;
    ino_t inode;
    struct timespec changed;
    off_t size;
};

struct group {
    char (*ids)[TG_MAX_NONCE + 1];
    size_t count;
    size_t capacity;
};

struct tg_saves {
    char *file;
    /* Routed, waiting for the next save to be asked for. */
    struct group waiting;
    /* Covered by the save under way. */
    struct group saving;
    bool requested;
    /* A save is wanted without a barrier (a persistent session subscribed). */
    bool wanted;
    /* A publication since the last request needs a save. */
    bool dirty;
    /* How long the last save took, from the request to the change seen. */
    long long last_save_nanoseconds;
    struct identity before;
    /* When the last save was asked for (zero before the first: long enough ago). */
    struct timespec requested_at;
    /* The broker has no handler for SIGUSR1 (built without persistence): never asked. */
    bool unavailable;
    /* A save did not come: none is asked for before this time. */
    bool failing;
    struct timespec failed_at;
};

static struct identity identity_of(const char *path)
{
    struct identity identity = {0};
    struct stat status;
    if (stat(path, &status) != 0) return identity;
    identity.exists = true;
    identity.device = status.st_dev;
    identity.inode = status.st_ino;
    identity.changed = status.st_ctim;
    identity.size = status.st_size;
    return identity;
}

static bool same_identity(struct identity a, struct identity b)
{
    if (a.exists != b.exists) return false;
    if (!a.exists) return true;
    return a.device == b.device && a.inode == b.inode && a.size == b.size && a.changed.tv_sec == b.changed.tv_sec &&
           a.changed.tv_nsec == b.changed.tv_nsec;
}

static bool group_add(struct group *group, const char *id)
{
    if (group->count == group->capacity) {
        size_t capacity = group->capacity ? group->capacity * 2 : 16;
        void *grown = realloc(group->ids, capacity * sizeof *group->ids);
        if (!grown) return false;
        group->ids = grown;
        group->capacity = capacity;
    }
    size_t length = strnlen(id, TG_MAX_NONCE);
    memcpy(group->ids[group->count], id, length);
    group->ids[group->count][length] = '\0';
    group->count++;
    return true;
}

static void group_answer(struct group *group, bool saved, tg_saves_answer_fn answer)
{
    for (size_t i = 0; i < group->count; i++) answer(group->ids[i], saved);
    group->count = 0;
}

/* True when the broker acts on SIGUSR1 (the default action would end it). */
static bool broker_saves_on_signal(void)
{
    struct sigaction current;
    if (sigaction(SIGUSR1, NULL, &current) != 0) return false;
    if (current.sa_flags & SA_SIGINFO) return current.sa_sigaction != NULL;
    return current.sa_handler != SIG_DFL && current.sa_handler != SIG_IGN;
}

tg_saves *tg_saves_new(const char *persistence_file)
{
    tg_saves *saves = calloc(1, sizeof *saves);
    if (!saves) return NULL;
    saves->file = strdup(persistence_file);
    if (!saves->file) {
        free(saves);
        return NULL;
    }
    return saves;
}

void tg_saves_free(tg_saves *saves)
{
    if (!saves) return;
    free(saves->waiting.ids);
    free(saves->saving.ids);
    free(saves->file);
    free(saves);
}

bool tg_saves_add(tg_saves *saves, const char *id) { return group_add(&saves->waiting, id); }

void tg_saves_want(tg_saves *saves) { saves->wanted = true; }

void tg_saves_dirty(tg_saves *saves) { saves->dirty = true; }

bool tg_saves_is_dirty(const tg_saves *saves) { return saves->dirty; }

int tg_saves_follow(tg_saves *saves, const char *id)
{
    if (!saves->requested) return 0;
    return group_add(&saves->saving, id) ? 1 : -1;
}

/* Swaps the waiting group into the save about to be asked for. */
static void begin_saving(tg_saves *saves)
{
    struct group emptied = saves->saving;
    saves->saving = saves->waiting;
    saves->waiting = emptied;
    saves->waiting.count = 0;
}

/* The waiting barriers answered as routed only, and no save wanted any more. */
static void answer_unsaved(tg_saves *saves, tg_saves_answer_fn answer)
{
    saves->wanted = false;
    group_answer(&saves->waiting, false, answer);
}

void tg_saves_tick(tg_saves *saves, tg_saves_answer_fn answer)
{
    struct timespec now = monotonic_now();
    if (saves->requested) {
        if (!same_identity(identity_of(saves->file), saves->before)) {
            saves->requested = false;
            saves->last_save_nanoseconds = nanoseconds_between(saves->requested_at, now);
            group_answer(&saves->saving, true, answer);
        } else if (nanoseconds_between(saves->requested_at, now) >= SAVE_PATIENCE_SECONDS * 1000000000LL) {
            mosquitto_log_printf(MOSQ_LOG_ERR,
                                 "topicgate-auth: asked for a save, %s did not change in %d s: is persistence on, and "
                                 "is plugin_opt_persistence_file persistence_location + persistence_file? Pushes are "
                                 "answered as routed, not saved, for %d s",
                                 saves->file, SAVE_PATIENCE_SECONDS, SAVE_RETRY_SECONDS);
            saves->requested = false;
            saves->failing = true;
            saves->failed_at = now;
            group_answer(&saves->saving, false, answer);
        }
    }
    if (saves->failing && nanoseconds_between(saves->failed_at, now) >= SAVE_RETRY_SECONDS * 1000000000LL)
        saves->failing = false;
    if (saves->unavailable || saves->failing) {
        answer_unsaved(saves, answer);
        return;
    }
    if (saves->requested || (saves->waiting.count == 0 && !saves->wanted)) return;
    long long gap = saves->last_save_nanoseconds * SAVE_GAP_FACTOR;
    if (gap < SAVE_GAP_NANOSECONDS) gap = SAVE_GAP_NANOSECONDS;
    if (nanoseconds_between(saves->requested_at, now) < gap) return;
    if (!broker_saves_on_signal()) {
        mosquitto_log_printf(MOSQ_LOG_ERR, "topicgate-auth: this broker does not save on SIGUSR1 (built without "
                                           "persistence?): pushes are answered as routed, not saved");
        saves->unavailable = true;
        answer_unsaved(saves, answer);
        return;
    }
    begin_saving(saves);
    saves->wanted = false;
    saves->dirty = false;
    saves->before = identity_of(saves->file);
    saves->requested_at = now;
    saves->requested = true;
    raise(SIGUSR1);
}
