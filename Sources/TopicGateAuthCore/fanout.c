/* Fan-outs from the gateway on $CONTROL/topicgate/v1/fanout (see topicgate_auth.h). */
#include "topicgate_auth.h"

#include <string.h>

/* Copies the topic at `data[*offset]` (whose length byte was checked) into `topic`,
 * NUL-terminated, and moves `*offset` past it. */
static void copy_topic(const unsigned char *data, size_t *offset, char topic[TG_MAX_USERNAME + 1])
{
    size_t topic_len = data[*offset];
    memcpy(topic, data + *offset + 1, topic_len);
    topic[topic_len] = '\0';
    *offset += 1 + topic_len;
}

/* Like copy_topic, after checking the length byte; false when the topic is cut short or not a
 * device topic. */
static bool next_topic(const unsigned char *data, size_t length, size_t *offset, char topic[TG_MAX_USERNAME + 1])
{
    size_t topic_len = data[*offset];
    if (topic_len == 0 || topic_len > TG_MAX_USERNAME || length - *offset - 1 < topic_len) return false;
    copy_topic(data, offset, topic);
    /* A NUL inside would cut the topic short: the plugin would publish to another one. */
    return strlen(topic) == topic_len && tg_username_valid(topic);
}

long tg_fanout_each(const void *data, size_t length, tg_fanout_fn each, void *context)
{
    const unsigned char *bytes = data;
    if (!bytes || length < 5 || bytes[0] != TG_FANOUT_VERSION) return -1;
    size_t payload_len = (size_t)bytes[1] << 24 | (size_t)bytes[2] << 16 | (size_t)bytes[3] << 8 | (size_t)bytes[4];
    if (length - 5 < payload_len) return -1;
    const size_t first = 5 + payload_len;
    if (first == length) return -1;
    char topic[TG_MAX_USERNAME + 1];
    /* Everything is checked before the first topic is handed out: a malformed fan-out reaches
     * no device. */
    long count = 0;
    for (size_t offset = first; offset < length; count++)
        if (!next_topic(bytes, length, &offset, topic)) return -1;
    /* Checked: each topic is only copied now. */
    for (size_t offset = first; offset < length;) {
        copy_topic(bytes, &offset, topic);
        each(topic, bytes + 5, payload_len, context);
    }
    return count;
}
