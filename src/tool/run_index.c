#include "run_index.h"

#include "fnv1a.h"
#include "json_access.h"

#include <cjson/cJSON.h>
#include <stdint.h>
#include <stdlib.h>

/* A hash of exactly the fields json_run_is compares, each ended by a
 * byte no field holds, so that ("ab", "c") and ("a", "bc") differ. */
static uint64_t fields_hash(const char *key, const char *variant, const char *launch_key,
                            const char *tier)
{
    const char *fields[4] = {key, variant, launch_key, tier};
    uint64_t h = CONVT_FNV1A_START;
    for (int i = 0; i < 4; i++)
        h = convt_fnv1a(convt_fnv1a(h, fields[i]), "\x1f");
    return h;
}

static uint64_t run_hash(const cJSON *r)
{
    return fields_hash(json_shape_key(r), json_str(r, "variant"), json_str(r, "launch_key"),
                       json_str(r, "tier"));
}

int convt_run_index_init(convt_run_index *ix, size_t expected)
{
    size_t cap = 16;
    while (cap < 2 * expected)
        cap *= 2;
    ix->slot = calloc(cap, sizeof *ix->slot);
    ix->cap = ix->slot ? cap : 0;
    ix->n = 0;
    return ix->slot ? 0 : -1;
}

/* Twice the slots, every record added again. Equal records share a home
 * slot, and linear probing places each after those added before it, so a
 * find meets the first added first. The walk starts at an empty slot and
 * goes round once, so that each cluster of occupied slots is read from its
 * start and equal records are added again in the order they were added. */
static int grow(convt_run_index *ix)
{
    convt_run_index bigger;
    if (convt_run_index_init(&bigger, ix->cap))
        return -1;
    size_t start = 0;
    while (ix->slot[start])
        start++;
    for (size_t k = 1; k <= ix->cap; k++) {
        const cJSON *r = ix->slot[(start + k) & (ix->cap - 1)];
        if (r)
            convt_run_index_add(&bigger, r);
    }
    free(ix->slot);
    *ix = bigger;
    return 0;
}

int convt_run_index_add(convt_run_index *ix, const cJSON *r)
{
    if (!r)
        return -1; /* e.g. a copy that ran out of memory */
    if (!ix->slot && convt_run_index_init(ix, 0)) /* zeroed, or freed */
        return -1;
    if (2 * (ix->n + 1) > ix->cap && grow(ix))
        return -1;
    size_t i = run_hash(r) & (ix->cap - 1);
    while (ix->slot[i])
        i = (i + 1) & (ix->cap - 1);
    ix->slot[i] = r;
    ix->n++;
    return 0;
}

int convt_run_index_of(convt_run_index *ix, const cJSON *records)
{
    if (convt_run_index_init(ix, (size_t)cJSON_GetArraySize(records)))
        return -1;
    for (const cJSON *r = records ? records->child : NULL; r; r = r->next)
        if (convt_run_index_add(ix, r)) {
            convt_run_index_free(ix);
            return -1;
        }
    return 0;
}

const cJSON *convt_run_index_find(const convt_run_index *ix, const cJSON *r)
{
    return convt_run_index_find_fields(ix, json_shape_key(r), json_str(r, "variant"),
                                       json_str(r, "launch_key"), json_str(r, "tier"));
}

const cJSON *convt_run_index_find_fields(const convt_run_index *ix, const char *key,
                                         const char *variant, const char *launch_key,
                                         const char *tier)
{
    if (!ix->cap)
        return NULL;
    size_t i = fields_hash(key, variant, launch_key, tier) & (ix->cap - 1);
    for (const cJSON *q; (q = ix->slot[i]); i = (i + 1) & (ix->cap - 1))
        if (json_run_is(q, key, variant, launch_key, tier))
            return q;
    return NULL;
}

void convt_run_index_free(convt_run_index *ix)
{
    free(ix->slot);
    ix->slot = NULL;
    ix->cap = ix->n = 0;
}
