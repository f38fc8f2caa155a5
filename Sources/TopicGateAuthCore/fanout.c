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

static size_t read_u32(const unsigned char *bytes)
{
    return (size_t)bytes[0] << 24 | (size_t)bytes[1] << 16 | (size_t)bytes[2] << 8 | (size_t)bytes[3];
}

/* One fan-out of a batch: its payload's place and length, its topics' place and number. */
struct section {
    size_t payload, payload_len, topics, count;
};

/* Reads the fan-out at `*offset` into `section` and moves `*offset` past it; false when
 * anything in it is malformed. */
static bool next_section(const unsigned char *bytes, size_t length, size_t *offset, struct section *section)
{
    if (length - *offset < 4) return false;
    section->payload_len = read_u32(bytes + *offset);
    section->payload = *offset + 4;
    if (length - section->payload < section->payload_len) return false;
    size_t count_at = section->payload + section->payload_len;
    if (length - count_at < 2) return false;
    section->count = (size_t)bytes[count_at] << 8 | bytes[count_at + 1];
    section->topics = count_at + 2;
    if (section->count == 0) return false;
    char topic[TG_MAX_USERNAME + 1];
    *offset = section->topics;
    for (size_t n = 0; n < section->count; n++)
        if (*offset >= length || !next_topic(bytes, length, offset, topic)) return false;
    return true;
}

static long batch_each(const unsigned char *bytes, size_t length, tg_fanout_fn each, void *context)
{
    if (length == 1) return -1;
    /* Everything is checked before the first topic is handed out: a malformed batch reaches no
     * device, not even through the fan-outs before the malformed one. */
    long count = 0;
    struct section section;
    for (size_t offset = 1; offset < length; count += (long)section.count)
        if (!next_section(bytes, length, &offset, &section)) return -1;
    char topic[TG_MAX_USERNAME + 1];
    for (size_t offset = 1; offset < length;) {
        next_section(bytes, length, &offset, &section);
        for (size_t at = section.topics, n = 0; n < section.count; n++) {
            copy_topic(bytes, &at, topic);
            each(topic, bytes + section.payload, section.payload_len, context);
        }
    }
    return count;
}

long tg_fanout_each(const void *data, size_t length, tg_fanout_fn each, void *context)
{
    const unsigned char *bytes = data;
    if (!bytes || length < 1) return -1;
    if (bytes[0] == TG_FANOUT_BATCH_VERSION) return batch_each(bytes, length, each, context);
    if (length < 5 || bytes[0] != TG_FANOUT_VERSION) return -1;
    size_t payload_len = read_u32(bytes + 1);
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
