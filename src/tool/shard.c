#include "shard.h"

#include <stdint.h>

#include "fnv1a.h"
#include <stdlib.h>

int convt_shard_parse(const char *text, int *index, int *count, convt_err *e)
{
    char *end;
    long i = strtol(text, &end, 10);
    if (end == text || *end != '/')
        return convt_fail(e, "--shard: expected I/N (e.g. 2/8), got '%s'", text);
    const char *rest = end + 1;
    long n = strtol(rest, &end, 10);
    if (end == rest || *end || n < 1 || n > 100000 || i < 1 || i > n)
        return convt_fail(e, "--shard: expected I/N with 1 <= I <= N <= 100000, got '%s'", text);
    *index = (int)i;
    *count = (int)n;
    return 0;
}

int convt_shard_of(const convt_problem *p, int count)
{
    char key[256];
    convt_problem_key(p, key, sizeof key);
    return 1 + (int)(convt_fnv1a(CONVT_FNV1A_START, key) % (uint64_t)count);
}

void convt_shard_apply(convt_config *cfg, int index, int count)
{
    int kept = 0;
    for (int s = 0; s < cfg->n_shapes; s++)
        if (convt_shard_of(&cfg->shapes[s], count) == index)
            cfg->shapes[kept++] = cfg->shapes[s];
    cfg->n_shapes = kept;
}
