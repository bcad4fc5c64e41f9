#include "compare_best.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fnv1a.h"
#include "json_access.h"

/* One (shape key, variant, tier) and the fastest ok record of each run. */
typedef struct group {
    uint64_t hash;
    const char *key, *variant, *tier; /* the first record's strings */
    const cJSON *best[2];             /* [0] baseline, [1] current */
} group;

typedef struct group_table {
    group *slot;   /* open addressing, linear probing; key NULL: empty */
    int *order;    /* the groups' slots in the order of their first record */
    size_t cap, n; /* cap a power of two, at least twice the groups */
} group_table;

static uint64_t hash_of(const char *key, const char *variant, const char *tier)
{
    uint64_t h = convt_fnv1a(CONVT_FNV1A_START, key);
    h = convt_fnv1a(convt_fnv1a(h, "|"), variant);
    return convt_fnv1a(convt_fnv1a(h, "|"), tier);
}

/* r's group; added (when add) if it has none yet; NULL if not found, or out
 * of memory. The table holds at most the records of both runs, so it never
 * fills. */
static group *group_of(group_table *t, const cJSON *r, bool add)
{
    const char *key = json_shape_key(r), *variant = json_str(r, "variant"),
               *tier = json_str(r, "tier");
    const uint64_t h = hash_of(key, variant, tier);
    for (size_t i = h & (t->cap - 1);; i = (i + 1) & (t->cap - 1)) {
        group *g = &t->slot[i];
        if (!g->key) {
            if (!add)
                return NULL;
            *g = (group){.hash = h, .key = key, .variant = variant, .tier = tier};
            t->order[t->n++] = (int)i;
            return g;
        }
        if (g->hash == h && !strcmp(g->key, key) && !strcmp(g->variant, variant) &&
            !strcmp(g->tier, tier))
            return g;
    }
}

static void row(FILE *out, bool md, const char *shape, const char *variant, const char *tier,
                const char *base, const char *cur, const char *ratio)
{
    if (md)
        fprintf(out, "| %s | %s | %s | %s | %s | %s |\n", shape, variant, tier, base, cur, ratio);
    else
        fprintf(out, "%-24s %-34s %-5s %-48s %-48s %s\n", shape, variant, tier, base, cur, ratio);
}

/* "0.0461 (block=256,passes=4,couts=4)": a record's median and launch. */
static void timed(const cJSON *r, char *buf, size_t len)
{
    snprintf(buf, len, "%.4f (%s)", json_median_ms(r), json_str(r, "launch_key"));
}

/* Each variant's geometric mean over its pairs, in the order of its first
 * pair, then all of them. */
static void variant_means(const group_table *t, bool md, FILE *out, convt_compare_best_summary *sum)
{
    double all = 0;
    int pairs = 0;
    fprintf(out, "\n%sgeometric mean of current / baseline, each variant's best launch a "
                 "(shape, tier):\n", md ? "\n" : "");
    for (size_t i = 0; i < t->n; i++) {
        const group *g = &t->slot[t->order[i]];
        if (!g->best[0] || !g->best[1])
            continue;
        bool seen = false; /* this variant's line is written at its first pair */
        for (size_t j = 0; j < i && !seen; j++) {
            const group *e = &t->slot[t->order[j]];
            seen = e->best[0] && e->best[1] && !strcmp(e->variant, g->variant);
        }
        const double r = log(json_median_ms(g->best[1]) / json_median_ms(g->best[0]));
        all += r, pairs++;
        if (seen)
            continue;
        double s = 0;
        int n = 0;
        for (size_t j = i; j < t->n; j++) {
            const group *e = &t->slot[t->order[j]];
            if (e->best[0] && e->best[1] && !strcmp(e->variant, g->variant))
                s += log(json_median_ms(e->best[1]) / json_median_ms(e->best[0])), n++;
        }
        fprintf(out, md ? "- %s: %.3fx over %d\n" : "  %-34s %.3fx over %d\n", g->variant,
                exp(s / n), n);
    }
    sum->pairs = pairs;
    sum->geomean = pairs ? exp(all / pairs) : NAN;
    if (pairs)
        fprintf(out, md ? "- %s: %.3fx over %d\n" : "  %-34s %.3fx over %d\n", "all",
                sum->geomean, pairs);
    else
        fprintf(out, "  no (shape, variant, tier) has an ok record in both runs\n");
}

int convt_compare_best(const cJSON *baseline, const cJSON *current, bool md, FILE *out,
                       convt_compare_best_summary *sum)
{
    const cJSON *recs[2] = {cJSON_GetObjectItemCaseSensitive(baseline, "records"),
                            cJSON_GetObjectItemCaseSensitive(current, "records")};
    const size_t n = (size_t)cJSON_GetArraySize(recs[0]) + (size_t)cJSON_GetArraySize(recs[1]);
    group_table t = {0};
    for (t.cap = 16; t.cap < 2 * n; t.cap *= 2)
        ;
    t.slot = calloc(t.cap, sizeof *t.slot);
    t.order = malloc(t.cap * sizeof *t.order);
    if (!t.slot || !t.order) {
        free(t.slot), free(t.order);
        return -1;
    }
    /* the current run's groups first, in its order; the baseline's only
     * where the current run has them */
    for (int side = 1; side >= 0; side--) {
        const cJSON *r;
        cJSON_ArrayForEach(r, recs[side]) {
            if (!json_ok_timed(r))
                continue;
            group *g = group_of(&t, r, side == 1);
            if (g && (!g->best[side] || json_median_ms(r) < json_median_ms(g->best[side])))
                g->best[side] = r;
        }
    }
    if (md) {
        fprintf(out, "| shape | variant | tier | baseline ms (launch) | current ms (launch) | "
                     "current / baseline |\n|---|---|---|---|---|---|\n");
    } else {
        row(out, false, "shape", "variant", "tier", "baseline ms (launch)", "current ms (launch)",
            "current / baseline");
    }
    for (size_t i = 0; i < t.n; i++) {
        const group *g = &t.slot[t.order[i]];
        if (!g->best[0] || !g->best[1])
            continue;
        char b[160], c[160], ratio[32];
        timed(g->best[0], b, sizeof b);
        timed(g->best[1], c, sizeof c);
        snprintf(ratio, sizeof ratio, "%.3f",
                 json_median_ms(g->best[1]) / json_median_ms(g->best[0]));
        row(out, md, json_str(cJSON_GetObjectItemCaseSensitive(g->best[1], "shape"), "name"),
            g->variant, g->tier, b, c, ratio);
    }
    variant_means(&t, md, out, sum);
    free(t.slot);
    free(t.order);
    return 0;
}
