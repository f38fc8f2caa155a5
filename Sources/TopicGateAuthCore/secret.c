#include "topicgate_auth.h"

static bool is_blank(unsigned char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

int tg_secret_parse(const unsigned char *contents, size_t length, size_t *start, size_t *secret_length)
{
    size_t first = 0, end = length;
    while (first < end && is_blank(contents[first])) first++;
    while (end > first && is_blank(contents[end - 1])) end--;
    size_t n = end - first;
    if (n < TG_SECRET_MIN) return -1;
    if (n > TG_SECRET_MAX) return -2;
    *start = first;
    *secret_length = n;
    return 0;
}
