/* Presence changes gathered for one message (see topicgate_auth.h). */
#include "topicgate_auth.h"

#include <stdlib.h>
#include <string.h>

struct tg_changes {
    char *text; /* {"changes":["+a","-b" … without the closing "]}" */
    size_t length;
    size_t capacity;
    size_t count;
};

static const char opening[] = "{\"changes\":[";

tg_changes *tg_changes_new(void) { return calloc(1, sizeof(tg_changes)); }

void tg_changes_free(tg_changes *changes)
{
    if (!changes) return;
    free(changes->text);
    free(changes);
}

static bool reserve(tg_changes *changes, size_t more)
{
    if (changes->length + more <= changes->capacity) return true;
    size_t capacity = changes->capacity ? changes->capacity : 4096;
    while (capacity < changes->length + more) capacity *= 2;
    char *grown = realloc(changes->text, capacity);
    if (!grown) return false;
    changes->text = grown;
    changes->capacity = capacity;
    return true;
}

size_t tg_changes_add(tg_changes *changes, bool connected, const char *username)
{
    if (!changes || !tg_username_valid(username)) return changes ? changes->count : 0;
    size_t name_length = strlen(username);
    /* the opening, a comma, the quotes, the sign, the name, and the closing "]}" with its NUL */
    if (!reserve(changes, sizeof opening + name_length + 8)) return changes->count;
    if (changes->count == 0) {
        memcpy(changes->text, opening, sizeof opening - 1);
        changes->length = sizeof opening - 1;
    } else {
        changes->text[changes->length++] = ',';
    }
    changes->text[changes->length++] = '"';
    changes->text[changes->length++] = connected ? '+' : '-';
    memcpy(changes->text + changes->length, username, name_length);
    changes->length += name_length;
    changes->text[changes->length++] = '"';
    return ++changes->count;
}

size_t tg_changes_count(const tg_changes *changes) { return changes ? changes->count : 0; }

const char *tg_changes_text(tg_changes *changes)
{
    if (!changes || changes->count == 0) return NULL;
    /* add reserved room for these three bytes */
    memcpy(changes->text + changes->length, "]}", 3);
    return changes->text;
}

void tg_changes_clear(tg_changes *changes)
{
    if (!changes) return;
    changes->length = 0;
    changes->count = 0;
}
