#include "compare.h"
#include "json_access.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const cJSON *timing(const cJSON *r) { return cJSON_GetObjectItemCaseSensitive(r, "timing"); }
static const char *key_of(const cJSON *r)
{
    return json_str(cJSON_GetObjectItemCaseSensitive(r, "shape"), "key");
}
static const char *name_of(const cJSON *r)
{
    return json_str(cJSON_GetObjectItemCaseSensitive(r, "shape"), "name");
}

static bool same_record(const cJSON *a, const cJSON *b)
{
    return !strcmp(key_of(a), key_of(b)) && !strcmp(json_str(a, "variant"), json_str(b, "variant")) &&
           !strcmp(json_str(a, "launch_key"), json_str(b, "launch_key")) &&
           !strcmp(json_str(a, "tier"), json_str(b, "tier"));
}

static const cJSON *find_same(const cJSON *records, const cJSON *r)
{
    for (const cJSON *q = records ? records->child : NULL; q; q = q->next)
        if (same_record(q, r))
            return q;
    return NULL;
}

static bool ok_timed(const cJSON *r)
{
    return !strcmp(json_str(r, "status"), "ok") && isfinite(json_num(timing(r), "median_ms"));
}

/* What a record's change must exceed to count: the threshold, or the noise
 * the two runs recorded for it together, whichever is larger. */
static double allowance(const cJSON *a, const cJSON *b, double threshold)
{
    double na = json_num(timing(a), "noise"), nb = json_num(timing(b), "noise");
    double noise = (isfinite(na) ? na : 0) + (isfinite(nb) ? nb : 0);
    return noise > threshold ? noise : threshold;
}

/* A record whose variant chose differently (cuDNN's algorithm search picked
 * another algorithm: its `detail` differs) measured a different kernel; its
 * change says nothing about the code under test and is shown, not judged. */
static bool redefined(const cJSON *a, const cJSON *b)
{
    const cJSON *da = cJSON_GetObjectItemCaseSensitive(a, "detail");
    const cJSON *db = cJSON_GetObjectItemCaseSensitive(b, "detail");
    return cJSON_IsString(da) && cJSON_IsString(db) && strcmp(da->valuestring, db->valuestring);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The distribution of |change| over the records timed on both sides, and the
 * share of them whose change stays within the noise the runs recorded: how
 * far two runs of the same thing disagree, which is what any threshold has
 * to sit above. */
static void spread(const cJSON *brec, const cJSON *crec, convt_compare_summary *sum)
{
    int n = 0, within = 0;
    for (const cJSON *c = crec ? crec->child : NULL; c; c = c->next)
        n++;
    double *d = malloc((size_t)(n ? n : 1) * sizeof *d);
    n = 0;
    for (const cJSON *c = crec ? crec->child : NULL; c && d; c = c->next) {
        const cJSON *b = find_same(brec, c);
        if (!b || !ok_timed(b) || !ok_timed(c))
            continue;
        double change = fabs(json_num(timing(c), "median_ms") / json_num(timing(b), "median_ms") - 1);
        within += change <= allowance(b, c, 0);
        d[n++] = change;
    }
    sum->spread_count = n;
    if (n) {
        qsort(d, (size_t)n, sizeof *d, cmp_double);
        sum->spread_median = d[n / 2];
        sum->spread_p95 = d[(int)ceil(0.95 * n) - 1];
        sum->spread_max = d[n - 1];
        sum->within_noise = (double)within / n;
    }
    free(d);
}

static const cJSON *fastest(const cJSON *records, const char *key, const char *tier)
{
    const cJSON *best = NULL;
    for (const cJSON *r = records ? records->child : NULL; r; r = r->next)
        if (ok_timed(r) && !strcmp(key_of(r), key) && !strcmp(json_str(r, "tier"), tier) &&
            (!best || json_num(timing(r), "median_ms") < json_num(timing(best), "median_ms")))
            best = r;
    return best;
}

static void row(FILE *out, bool md, const char *a, const char *b, const char *c, const char *d,
                const char *e, const char *f, const char *g)
{
    if (md)
        fprintf(out, "| %s | %s | %s | %s | %s | %s | %s |\n", a, b, c, d, e, f, g);
    else
        fprintf(out, "%-24.24s %-16.16s %-22.22s %-4s %11s %11s %s\n", a, b, c, d, e, f, g);
}

static bool environment_differs(const cJSON *a, const cJSON *b, FILE *out, bool md)
{
    static const char *const keys[] = {"name", "driver_version", "runtime_version",
                                       "cudnn_version", NULL};
    const cJSON *da = cJSON_GetObjectItemCaseSensitive(a, "device");
    const cJSON *db = cJSON_GetObjectItemCaseSensitive(b, "device");
    bool differs = strcmp(json_str(a, "backend"), json_str(b, "backend")) != 0;
    for (const char *const *k = keys; *k; k++) {
        const cJSON *x = cJSON_GetObjectItemCaseSensitive(da, *k);
        const cJSON *y = cJSON_GetObjectItemCaseSensitive(db, *k);
        char *sx = x ? cJSON_PrintUnformatted(x) : NULL, *sy = y ? cJSON_PrintUnformatted(y) : NULL;
        if ((sx || sy) && (!sx || !sy || strcmp(sx, sy))) {
            fprintf(out, "%sdevice.%s differs: baseline %s, current %s\n", md ? "> " : "", *k,
                    sx ? sx : "(none)", sy ? sy : "(none)");
            differs = true;
        }
        cJSON_free(sx);
        cJSON_free(sy);
    }
    return differs;
}

int convt_compare(const cJSON *base, const cJSON *cur, const convt_compare_options *opt,
                  FILE *out, convt_compare_summary *sum)
{
    memset(sum, 0, sizeof *sum);
    const bool md = opt->markdown;
    const cJSON *brec = cJSON_GetObjectItemCaseSensitive(base, "records");
    const cJSON *crec = cJSON_GetObjectItemCaseSensitive(cur, "records");
    sum->environment_differs = environment_differs(base, cur, out, md);
    if (sum->environment_differs && opt->strict) {
        fprintf(out, "refusing to compare runs on different devices or toolkits (--strict)\n");
        return -1;
    }
    if (sum->environment_differs)
        fprintf(out, "%swarning: the runs differ in device or toolkit; times may not be "
                     "comparable\n\n", md ? "> " : "");

    if (md) {
        row(out, true, "shape", "variant", "launch", "tier", "baseline ms", "current ms", "verdict");
        row(out, true, "---", "---", "---", "---", "---", "---", "---");
    } else {
        row(out, false, "shape", "variant", "launch", "tier", "baseline ms", "current ms",
            "verdict");
    }
    for (const cJSON *c = crec ? crec->child : NULL; c; c = c->next) {
        const cJSON *b = find_same(brec, c);
        if (!b) {
            sum->only_current++;
            continue;
        }
        sum->matched++;
        char bm[32] = "-", cm[32] = "-", verdict[160];
        if (ok_timed(b))
            snprintf(bm, sizeof bm, "%.4f", json_num(timing(b), "median_ms"));
        if (ok_timed(c))
            snprintf(cm, sizeof cm, "%.4f", json_num(timing(c), "median_ms"));
        const char *cs = json_str(c, "status");
        if (!strcmp(json_str(b, "status"), "ok") && (!strcmp(cs, "wrong") || !strcmp(cs, "failed"))) {
            sum->turned_bad++;
            snprintf(verdict, sizeof verdict, "REGRESSION: now %s: %.80s", cs, json_str(c, "reason"));
        } else if (ok_timed(b) && ok_timed(c)) {
            double change = json_num(timing(c), "median_ms") / json_num(timing(b), "median_ms") - 1;
            double allow = allowance(b, c, opt->threshold);
            if (redefined(b, c)) {
                sum->redefined++;
                snprintf(verdict, sizeof verdict, "not judged, %+.1f%%: %.50s -> %.50s",
                         100 * change, json_str(b, "detail"), json_str(c, "detail"));
            } else if (change > allow) {
                sum->regressed++;
                snprintf(verdict, sizeof verdict, "REGRESSION: %+.1f%% (allowed %.1f%%)",
                         100 * change, 100 * allow);
            } else if (change < -allow) {
                sum->improved++;
                snprintf(verdict, sizeof verdict, "faster: %+.1f%%", 100 * change);
            } else {
                sum->unchanged++;
                snprintf(verdict, sizeof verdict, "same: %+.1f%% (within %.1f%%)", 100 * change,
                         100 * allow);
            }
        } else {
            snprintf(verdict, sizeof verdict, "%s -> %s", json_str(b, "status"), cs);
            sum->unchanged++;
        }
        row(out, md, name_of(c), json_str(c, "variant"), json_str(c, "launch_key"), json_str(c, "tier"), bm, cm,
            verdict);
    }
    for (const cJSON *b = brec ? brec->child : NULL; b; b = b->next)
        if (!find_same(crec, b))
            sum->only_baseline++;

    /* Winners: the best time per shape and tier on each side. */
    fprintf(out, "\n%swinners (best time per shape and tier)\n", md ? "### " : "");
    static const char *const tiers[] = {"fp32", "tf32"};
    for (const cJSON *c = crec ? crec->child : NULL; c; c = c->next) {
        bool first = true; /* each (key, tier) once */
        for (const cJSON *q = crec->child; q != c; q = q->next)
            first &= strcmp(key_of(q), key_of(c)) || strcmp(json_str(q, "tier"), json_str(c, "tier"));
        if (!first)
            continue;
        for (int t = 0; t < 2; t++) {
            if (strcmp(json_str(c, "tier"), tiers[t]))
                continue;
            const cJSON *bw = fastest(brec, key_of(c), tiers[t]);
            const cJSON *cw = fastest(crec, key_of(c), tiers[t]);
            if (!bw || !cw)
                continue;
            double change = json_num(timing(cw), "median_ms") / json_num(timing(bw), "median_ms") - 1;
            double allow = allowance(bw, cw, opt->threshold);
            /* Not judged either (see redefined()): a winner whose own record
             * chose differently in the current run (seen on the H100: cuDNN
             * found a slower algorithm, and another variant became the winner). */
            const cJSON *bw_now = find_same(crec, bw);
            bool other_choice = (same_record(bw, cw) && redefined(bw, cw)) ||
                                (bw_now && ok_timed(bw_now) && redefined(bw, bw_now));
            bool worse = change > allow && !other_choice;
            sum->winners_regressed += worse;
            fprintf(out, "%s%s %s: %s %.4f ms -> %s %.4f ms (%+.1f%%)%s\n", md ? "- " : "  ",
                    name_of(c), tiers[t], json_str(bw, "variant"), json_num(timing(bw), "median_ms"),
                    json_str(cw, "variant"), json_num(timing(cw), "median_ms"), 100 * change,
                    worse ? "  REGRESSION" : other_choice ? "  (not judged: it chose differently)" : "");
        }
    }
    if (sum->only_baseline || sum->only_current) {
        fprintf(out, "\n%smissing records\n", md ? "### " : "");
        for (const cJSON *b = brec ? brec->child : NULL; b; b = b->next)
            if (!find_same(crec, b))
                fprintf(out, "%sonly in the baseline: %s %s %s %s\n", md ? "- " : "  ",
                        name_of(b), json_str(b, "variant"), json_str(b, "launch_key"), json_str(b, "tier"));
        for (const cJSON *c = crec ? crec->child : NULL; c; c = c->next)
            if (!find_same(brec, c))
                fprintf(out, "%sonly in the current run: %s %s %s %s\n", md ? "- " : "  ",
                        name_of(c), json_str(c, "variant"), json_str(c, "launch_key"), json_str(c, "tier"));
    }
    spread(brec, crec, sum);
    if (sum->spread_count)
        fprintf(out,
                "\n%srun-to-run spread over %d records timed on both sides: |change| median "
                "%.1f%%, 95th percentile %.1f%%, max %.1f%%; %.0f%% within the noise both runs "
                "recorded\n",
                md ? "- " : "", sum->spread_count, 100 * sum->spread_median,
                100 * sum->spread_p95, 100 * sum->spread_max, 100 * sum->within_noise);
    fprintf(out,
            "\n%d matched: %d regressed, %d turned wrong or failed, %d faster, %d same, %d "
            "chose differently (not judged); %d "
            "winner%s regressed; %d only in the baseline, %d only in the current run\n",
            sum->matched, sum->regressed, sum->turned_bad, sum->improved, sum->unchanged,
            sum->redefined,
            sum->winners_regressed, sum->winners_regressed == 1 ? "" : "s", sum->only_baseline,
            sum->only_current);
    return 0;
}
