/* What a device may do on the broker (see topicgate_auth.h). */
#include "topicgate_auth.h"

#include <string.h>

bool tg_username_valid(const char *username)
{
    if (!username || !*username) return false;
    size_t n = 0;
    for (const char *p = username; *p; p++, n++) {
        char c = *p;
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
                  c == '.';
        if (!ok || n >= TG_MAX_USERNAME) return false;
    }
    return true;
}

bool tg_device_may(const char *username, tg_access access, const char *topic)
{
    if (!tg_username_valid(username)) return false;
    switch (access) {
    case TG_ACCESS_UNSUBSCRIBE:
        return true;
    case TG_ACCESS_SUBSCRIBE:
    case TG_ACCESS_READ:
        return topic && strcmp(topic, username) == 0;
    case TG_ACCESS_WRITE: {
        if (!topic) return false;
        size_t n = strlen(username);
        return strncmp(topic, username, n) == 0 && strcmp(topic + n, "/state") == 0;
    }
    }
    return false;
}
