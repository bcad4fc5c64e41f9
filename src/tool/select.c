#include "select.h"

#include "convt.h"
#include "version.h"
#include "json_access.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static const char *const tier_names[] = {"fp32", "tf32"}; /* strictest first */
enum { N_TIERS = 2 };

static int tier_rank(const char *tier)
{
    for (int t = 0; t < N_TIERS; t++)
        if (!strcmp(tier, tier_names[t]))
            return t;
    return -1;
}

static double noise_of(const cJSON *rec)
{
    double n = json_num(cJSON_GetObjectItemCaseSensitive(rec, "timing"), "noise");
    return isfinite(n) && n > 0 ? n : 0;
}

static bool usable(const cJSON *rec)
{
    return json_ok_timed(rec) && tier_rank(json_str(rec, "tier")) >= 0;
}

bool convt_is_vendor_variant(const char *variant)
{
    return !strncmp(variant, "cudnn_", 6) || !strncmp(variant, "torch_", 6);
}

/* PyTorch's records are a measured baseline, not a kernel a program built
 * on convt-bench can call. */
static bool dispatchable(const cJSON *rec)
{
    return strncmp(json_str(rec, "variant"), "torch_", 6) != 0;
}

/* A record competes in tier t when its own tier is t or stricter. */
static bool competes_in(const cJSON *rec, int t)
{
    int r = tier_rank(json_str(rec, "tier"));
    return r >= 0 && r <= t;
}

/* The usable records of one shape's group g[0..n) (file order) competing in
 * tier t, fastest first. */
static int candidates(const cJSON *const *g, int n_g, int t, const cJSON ***out)
{
    const cJSON **c = malloc((size_t)(n_g ? n_g : 1) * sizeof *c);
    if (!c)
        return *out = NULL, 0;
    int n = 0;
    for (int i = 0; i < n_g; i++)
        if (usable(g[i]) && competes_in(g[i], t))
            c[n++] = g[i];
    /* insertion sort by median: stable, so equal times keep file order */
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && json_median_ms(c[j]) < json_median_ms(c[j - 1]); j--) {
            const cJSON *tmp = c[j];
            c[j] = c[j - 1];
            c[j - 1] = tmp;
        }
    *out = c;
    return n;
}

/* The records grouped by shape key: sorted by key, then file order, so that
 * each shape's records lie together in the order they were written. The
 * former scan of every earlier record for each record's key made the
 * selection quadratic in the records: 53,700 of them (test_gpu's sweep of
 * 338 shapes) took minutes after the sweep (session 41). */
typedef struct {
    const char *key;
    int idx; /* in the file */
    const cJSON *rec;
} keyed_record;

static int by_key_then_file_order(const void *a, const void *b)
{
    const keyed_record *x = a, *y = b;
    int c = strcmp(x->key, y->key);
    return c ? c : (x->idx > y->idx) - (x->idx < y->idx);
}

/* A shape's run of keyed records, placed by its first record in the file */
typedef struct {
    int begin, end; /* in the sorted array */
    int first;      /* file index of its first record */
} shape_group;

static int by_first_record(const void *a, const void *b)
{
    const shape_group *x = a, *y = b;
    return (x->first > y->first) - (x->first < y->first);
}

/* Within the noise both recorded of the fastest: not resolvable from it. */
static bool ties_with(const cJSON *r, const cJSON *fastest)
{
    double mf = json_median_ms(fastest);
    return json_median_ms(r) - mf <= mf * (noise_of(r) + noise_of(fastest));
}

/* The previous table's row for (key, tier), or NULL. */
static const cJSON *previous_row(const cJSON *previous, const char *key, const char *tier)
{
    const cJSON *rows = cJSON_GetObjectItemCaseSensitive(previous, "selections");
    for (const cJSON *r = rows ? rows->child : NULL; r; r = r->next)
        if (!strcmp(json_str(r, "key"), key) && !strcmp(json_str(r, "tier"), tier))
            return r;
    return NULL;
}

static bool was_chosen(const cJSON *rec, const cJSON *prev)
{
    return prev && !strcmp(json_str(prev, "variant"), json_str(rec, "variant")) &&
           !strcmp(json_str(prev, "launch_key"), json_str(rec, "launch_key"));
}

/* The tie rule, criterion by criterion (select.h). Returns <0 when a goes
 * first; *decided names the criterion that separated them. */
static int tie_order(const cJSON *a, const cJSON *b, const cJSON *prev, const char **decided)
{
    bool da = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(a, "deterministic"));
    bool db = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(b, "deterministic"));
    if (da != db)
        return *decided = "deterministic before not", da ? -1 : 1;
    bool pa = was_chosen(a, prev), pb = was_chosen(b, prev);
    if (pa != pb)
        return *decided = "the previous table's choice", pa ? -1 : 1;
    /* Not prepare_ms: the first prepare of a kernel in a worker also loads
     * it (CUDA's lazy loading) and the libraries it calls, a cost of the
     * process and not of the plan (1.5 to 45 ms on 81 own records of
     * session 42's KernelBench run, each its kernel's first launch there),
     * so the recorded prepares do not rank plans. */
    double ma = json_median_ms(a), mb = json_median_ms(b);
    if (ma != mb)
        return *decided = "the faster median", ma < mb ? -1 : 1;
    int c = strcmp(json_str(a, "variant"), json_str(b, "variant"));
    if (!c)
        c = strcmp(json_str(a, "launch_key"), json_str(b, "launch_key"));
    *decided = "the name";
    return c;
}

static cJSON *brief(const cJSON *rec)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "variant", json_str(rec, "variant"));
    cJSON_AddStringToObject(o, "tier", json_str(rec, "tier"));
    cJSON_AddStringToObject(o, "launch_key", json_str(rec, "launch_key"));
    cJSON_AddNumberToObject(o, "median_ms", json_median_ms(rec));
    cJSON_AddNumberToObject(o, "noise", noise_of(rec));
    if (json_str(rec, "detail")[0])
        cJSON_AddStringToObject(o, "detail", json_str(rec, "detail"));
    return o;
}

/* The records of one shape's group g[0..n) that a program could dispatch
 * to (own variants and cuDNN's), whatever their status, competing in tier
 * t: none means those were never run here (a run cut short, or a config
 * without them), not that they failed. */
static int dispatchable_runs(const cJSON *const *g, int n_g, int t)
{
    int n = 0;
    for (int i = 0; i < n_g; i++)
        n += dispatchable(g[i]) && competes_in(g[i], t);
    return n;
}

/* One row: the winner of (key, tier t) among the candidates c[0..n);
 * runs: the group's dispatchable records of the tier, valid or not. */
static void fill_row(cJSON *row, const cJSON **c, int n, int runs, const cJSON *prev)
{
    const cJSON *fastest = NULL;
    for (int i = 0; i < n && !fastest; i++)
        if (dispatchable(c[i]))
            fastest = c[i];
    if (!fastest) {
        cJSON_AddNullToObject(row, "variant");
        cJSON_AddStringToObject(row, "note",
                                !n     ? "no run of this tier (or a stricter one) passed validation"
                                : runs ? "only PyTorch's records passed validation"
                                       : "not run here (only PyTorch's records): no own or cuDNN "
                                         "run of this shape and tier in the results");
    } else {
        /* the tied records, best first by the tie rule; decided: the
         * criterion that put the winner before the runner-up */
        const cJSON *best = fastest, *second = NULL;
        int tied = 0;
        cJSON *tie_list = cJSON_CreateArray();
        const char *decided = "fastest", *unused;
        for (int i = 0; i < n; i++) {
            if (!dispatchable(c[i]) || !ties_with(c[i], fastest))
                continue;
            tied++;
            cJSON_AddItemToArray(tie_list, brief(c[i]));
            if (c[i] == fastest)
                continue;
            if (tie_order(c[i], best, prev, &unused) < 0) {
                second = best;
                best = c[i];
            } else if (!second || tie_order(c[i], second, prev, &unused) < 0) {
                second = c[i];
            }
        }
        if (second)
            tie_order(best, second, prev, &decided);
        cJSON_AddStringToObject(row, "variant", json_str(best, "variant"));
        cJSON_AddStringToObject(row, "variant_tier", json_str(best, "tier"));
        cJSON_AddBoolToObject(row, "deterministic",
                              cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(best, "deterministic")));
        cJSON_AddItemToObject(row, "launch", cJSON_Duplicate(
            cJSON_GetObjectItemCaseSensitive(best, "launch"), true));
        cJSON_AddStringToObject(row, "launch_key", json_str(best, "launch_key"));
        if (json_str(best, "detail")[0])
            cJSON_AddStringToObject(row, "detail", json_str(best, "detail"));
        /* the winner ran an equivalent form of the shape (convt_problem_for) */
        const cJSON *ran_as = cJSON_GetObjectItemCaseSensitive(best, "ran_as");
        if (ran_as)
            cJSON_AddItemToObject(row, "ran_as", cJSON_Duplicate(ran_as, true));
        cJSON_AddNumberToObject(row, "median_ms", json_median_ms(best));
        cJSON_AddNumberToObject(row, "noise", noise_of(best));
        double ff = json_num(best, "floor_fraction");
        if (isfinite(ff))
            cJSON_AddNumberToObject(row, "floor_fraction", ff);
        cJSON_AddNumberToObject(row, "fastest_ms", json_median_ms(fastest));
        cJSON_AddStringToObject(row, "fastest_variant", json_str(fastest, "variant"));
        cJSON_AddNumberToObject(row, "tied", tied);
        if (tied > 1) {
            cJSON_AddItemToObject(row, "ties", tie_list);
            tie_list = NULL;
        }
        cJSON_Delete(tie_list);
        char why[128];
        snprintf(why, sizeof why, "%d tied within their noise; tie rule: %s", tied, decided);
        cJSON_AddStringToObject(row, "chosen_by", tied > 1 ? why : "fastest");
    }
    /* the fastest vendor record competing in the tier (c is sorted) */
    for (int i = 0; i < n; i++) {
        if (!convt_is_vendor_variant(json_str(c[i], "variant")))
            continue;
        cJSON *b = brief(c[i]);
        cJSON_AddItemToObject(row, "baseline", b);
        if (fastest) {
            double win = json_num(row, "median_ms");
            cJSON_AddNumberToObject(row, "speedup", json_median_ms(c[i]) / win);
        }
        break;
    }
}

cJSON *convt_select(const cJSON *results, const cJSON *previous)
{
    const cJSON *records = cJSON_GetObjectItemCaseSensitive(results, "records");
    cJSON *sel = cJSON_CreateObject();
    cJSON_AddStringToObject(sel, "tool", "convt-bench selection");
    /* what libconvt's convt_table_load checks (include/convt/convt.h) */
    cJSON_AddNumberToObject(sel, "table_schema", CONVT_TABLE_SCHEMA);
    cJSON_AddStringToObject(sel, "library_version", CONVT_VERSION);
    cJSON_AddStringToObject(sel, "compute_capability",
                            json_str(cJSON_GetObjectItemCaseSensitive(results, "device"),
                                     "compute_capability"));
    cJSON_AddStringToObject(sel, "results_time", json_str(results, "time"));
    cJSON_AddStringToObject(sel, "backend", json_str(results, "backend"));
    cJSON_AddStringToObject(sel, "device",
                            json_str(cJSON_GetObjectItemCaseSensitive(results, "device"), "name"));
    cJSON_AddStringToObject(sel, "rules",
                            "tier: the tier's records and stricter ones compete; ties: within "
                            "the noise both recorded of the fastest, picked by deterministic, "
                            "previous table, faster median, name; baseline: fastest cudnn_* "
                            "or torch_* record of the tier or a stricter one");
    if (cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(results, "complete"))) {
        cJSON_AddBoolToObject(sel, "partial", true); /* of an interrupted run */
        const char *why = json_str(results, "incomplete_because");
        cJSON_AddStringToObject(sel, "partial_because", why[0] ? why : "interrupted");
    }
    cJSON *out = cJSON_AddArrayToObject(sel, "selections");
    if (!cJSON_IsArray(records))
        return sel;
    const int n_rec = cJSON_GetArraySize(records);
    keyed_record *kr = malloc((size_t)(n_rec ? n_rec : 1) * sizeof *kr);
    shape_group *groups = malloc((size_t)(n_rec ? n_rec : 1) * sizeof *groups);
    const cJSON **g = malloc((size_t)(n_rec ? n_rec : 1) * sizeof *g);
    if (!kr || !groups || !g) {
        free(kr), free(groups), free(g);
        cJSON_Delete(sel);
        return NULL;
    }
    int i = 0;
    for (const cJSON *r = records->child; r; r = r->next, i++)
        kr[i] = (keyed_record){json_shape_key(r), i, r};
    qsort(kr, (size_t)n_rec, sizeof *kr, by_key_then_file_order);
    int n_groups = 0;
    for (int b = 0, e; b < n_rec; b = e) {
        for (e = b + 1; e < n_rec && !strcmp(kr[e].key, kr[b].key); e++)
            ;
        groups[n_groups++] = (shape_group){b, e, kr[b].idx};
    }
    /* rows in the order the shapes first appear in the file */
    qsort(groups, (size_t)n_groups, sizeof *groups, by_first_record);
    for (int k = 0; k < n_groups; k++) {
        const int n_g = groups[k].end - groups[k].begin;
        for (int j = 0; j < n_g; j++)
            g[j] = kr[groups[k].begin + j].rec;
        const char *key = kr[groups[k].begin].key;
        for (int t = 0; t < N_TIERS; t++) {
            bool tier_present = false; /* a row per tier the shape was run in */
            for (int j = 0; j < n_g && !tier_present; j++)
                tier_present = !strcmp(json_str(g[j], "tier"), tier_names[t]);
            if (!tier_present)
                continue;
            const cJSON *shape = cJSON_GetObjectItemCaseSensitive(g[0], "shape");
            cJSON *row = cJSON_CreateObject();
            cJSON_AddStringToObject(row, "name", json_str(shape, "name"));
            cJSON_AddStringToObject(row, "key", key);
            cJSON_AddStringToObject(row, "tier", tier_names[t]);
            cJSON_AddItemToObject(row, "shape", cJSON_Duplicate(shape, true));
            const cJSON **c;
            int n = candidates(g, n_g, t, &c);
            fill_row(row, c, n, dispatchable_runs(g, n_g, t),
                     previous_row(previous, key, tier_names[t]));
            free(c);
            cJSON_AddItemToArray(out, row);
        }
    }
    free(kr), free(groups), free(g);
    return sel;
}

// ----------------------------------------------------------------------------
// the table for people

static void print_row(FILE *f, bool md, const char *const col[11])
{
    if (md)
        fprintf(f, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", col[0], col[1],
                col[2], col[3], col[4], col[5], col[6], col[7], col[8], col[9], col[10]);
    else
        fprintf(f, "%-24.24s %-4s %-29.29s %-22.22s %10s %6s %4s %-24.24s %10s %8s %8s\n",
                col[0], col[1], col[2], col[3], col[4], col[5], col[6], col[7], col[8], col[9],
                col[10]);
}

void convt_selection_print(const cJSON *sel, bool md, FILE *f)
{
    const cJSON *rows = cJSON_GetObjectItemCaseSensitive(sel, "selections");
    const char *head[11] = {"shape", "tier", "winner", "launch", "median ms", "noise", "ties",
                            "fastest vendor record", "vendor ms", "speedup", "of floor"};
    print_row(f, md, head);
    if (md) {
        const char *bar[11] = {"---", "---", "---", "---", "---:", "---:", "---:", "---",
                               "---:", "---:", "---:"};
        print_row(f, md, bar);
    }
    double log_sum[N_TIERS] = {0};
    int count[N_TIERS] = {0}, faster[N_TIERS] = {0};
    for (const cJSON *r = rows ? rows->child : NULL; r; r = r->next) {
        const char *variant = json_str(r, "variant");
        const cJSON *base = cJSON_GetObjectItemCaseSensitive(r, "baseline");
        char winner[96], ms[24] = "-", noise[16] = "-", ties[8] = "-", vendor[64] = "-",
             vms[24] = "-", speed[16] = "-", floor[16] = "-";
        if (!variant[0])
            snprintf(winner, sizeof winner, "(%s)", json_str(r, "note"));
        else if (strcmp(json_str(r, "variant_tier"), json_str(r, "tier")))
            snprintf(winner, sizeof winner, "%s [%s]", variant, json_str(r, "variant_tier"));
        else
            snprintf(winner, sizeof winner, "%s", variant);
        if (variant[0]) {
            snprintf(ms, sizeof ms, "%.4f", json_num(r, "median_ms"));
            snprintf(noise, sizeof noise, "%.1f%%", 100 * json_num(r, "noise"));
            if (json_num(r, "tied") > 1)
                snprintf(ties, sizeof ties, "%d", (int)json_num(r, "tied"));
        }
        if (base) {
            snprintf(vendor, sizeof vendor, "%s", json_str(base, "variant"));
            snprintf(vms, sizeof vms, "%.4f", json_num(base, "median_ms"));
        }
        double s = json_num(r, "speedup"), ff = json_num(r, "floor_fraction");
        if (isfinite(s)) {
            snprintf(speed, sizeof speed, "%.2fx", s);
            int t = tier_rank(json_str(r, "tier"));
            if (t >= 0 && s > 0) {
                log_sum[t] += log(s);
                count[t]++;
                faster[t] += s > 1;
            }
        }
        if (isfinite(ff))
            snprintf(floor, sizeof floor, "%.1f%%", 100 * ff);
        char launch[128]; /* split-K's key is 76 characters */
        snprintf(launch, sizeof launch, "%s", json_str(r, "launch_key"));
        const char *col[11] = {json_str(r, "name"), json_str(r, "tier"), winner, launch, ms,
                               noise, ties, vendor, vms, speed, floor};
        print_row(f, md, col);
    }
    for (int t = 0; t < N_TIERS; t++)
        if (count[t])
            fprintf(f, "%s%s: speedup over the fastest vendor record, geometric mean %.2fx over "
                       "%d shape%s; faster on %d\n",
                    md ? "\n" : "", tier_names[t], exp(log_sum[t] / count[t]), count[t],
                    count[t] == 1 ? "" : "s", faster[t]);
    /* a winner that ran an equivalent form (an input of one position at a
     * wider stride) says which, under the table */
    for (const cJSON *r = rows ? rows->child : NULL; r; r = r->next) {
        const cJSON *stride = cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(r, "ran_as"), "stride");
        if (!cJSON_IsArray(stride))
            continue;
        char s[96] = "";
        for (const cJSON *v = stride->child; v; v = v->next) {
            size_t l = strlen(s);
            snprintf(s + l, sizeof s - l, "%s%lld", l ? "x" : "", (long long)v->valuedouble);
        }
        fprintf(f, "%s%s %s: %s ran the shape's equivalent at stride %s (an input of one "
                   "position; the record's ran_as)\n",
                md ? "\n" : "", json_str(r, "name"), json_str(r, "tier"), json_str(r, "variant"), s);
    }
    /* the means above are over the rows measured: say so where a run was cut */
    if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(sel, "partial")))
        fprintf(f, "%spartial: the results are incomplete (%s); the means are over the rows "
                   "above with a winner, and a shape cut off has no row or PyTorch's alone\n",
                md ? "\n" : "", json_str(sel, "partial_because"));
}
