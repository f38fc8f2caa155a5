/* The monotonic clock, for the plugin's waits (saves, gathered presence changes). */
#ifndef TOPICGATE_MONOTONIC_CLOCK_H
#define TOPICGATE_MONOTONIC_CLOCK_H

#include <time.h>

static inline struct timespec monotonic_now(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return now;
}

static inline long long nanoseconds_between(struct timespec earlier, struct timespec later)
{
    return (long long)(later.tv_sec - earlier.tv_sec) * 1000000000LL + (later.tv_nsec - earlier.tv_nsec);
}

#endif
