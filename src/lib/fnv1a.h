/* FNV-1a, 64 bits: the one string hash of the project (a record's bootstrap
 * seed in compare, a shape's shard, the config hash that --resume checks).
 * Stable across machines and runs, which is all these need of it. */
#ifndef CONVT_SRC_FNV1A_H
#define CONVT_SRC_FNV1A_H

#include <stdint.h>

#define CONVT_FNV1A_START 0xcbf29ce484222325ull

/* h extended by the bytes of s; start with CONVT_FNV1A_START. */
static inline uint64_t convt_fnv1a(uint64_t h, const char *s)
{
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
    return h;
}

#endif
