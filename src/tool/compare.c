#include "compare.h"
#include "stats.h"
#include "json_access.h"
#include "run_index.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

#include "bootstrap.h"
#include "fnv1a.h"
#include "select.h"

static const cJSON *timing(const cJSON *r) { return cJSON_GetObjectItemCaseSensitive(r, "timing"); }
static const char *name_of(const cJSON *r)
{
    return json_str(cJSON_GetObjectItemCaseSensitive(r, "shape"), "name");
}

/* Passed validation: ok, or stopped by measure.prune after its first
 * round of timing. */
static bool validated(const cJSON *r)
{
    return !strcmp(json_str(r, "status"), "ok") || !strcmp(json_str(r, "status"), "pruned");
}

/* Validated and timed (a pruned record's few samples widen the interval,
 * and judge says so). */
static bool validated_timed(const cJSON *r)
{
    return validated(r) && isfinite(json_median_ms(r));
}

/* What a record's change must exceed to count when samples are missing
 * (files of schema 1): the threshold, or the noise the two runs recorded
 * for it together, whichever is larger. */
static double allowance(const cJSON *a, const cJSON *b, double threshold)
{
    double na = json_num(timing(a), "noise"), nb = json_num(timing(b), "noise");
    double noise = (isfinite(na) ? na : 0) + (isfinite(nb) ? nb : 0);
    return noise > threshold ? noise : threshold;
}

/* A record's raw samples (timing.samples_ms, by round), malloc'd; 0 when
 * it has none or they are malformed. */
typedef struct samples {
    double *v;
    int *end;
    int rounds;
} samples;

static int read_samples(const cJSON *rec, samples *s)
{
    memset(s, 0, sizeof *s);
    const cJSON *by_round = cJSON_GetObjectItemCaseSensitive(timing(rec), "samples_ms");
    int rounds = cJSON_GetArraySize(by_round), n = 0;
    if (!cJSON_IsArray(by_round) || rounds < 1)
        return 0;
    for (const cJSON *r = by_round->child; r; r = r->next)
        n += cJSON_GetArraySize(r);
    s->v = malloc((size_t)(n ? n : 1) * sizeof *s->v);
    s->end = malloc((size_t)rounds * sizeof *s->end);
    if (!s->v || !s->end)
        goto bad;
    n = 0;
    for (const cJSON *r = by_round->child; r; r = r->next) {
        if (!cJSON_IsArray(r) || cJSON_GetArraySize(r) < 1)
            goto bad;
        for (const cJSON *x = r->child; x; x = x->next) {
            if (!cJSON_IsNumber(x))
                goto bad;
            s->v[n++] = x->valuedouble;
        }
        s->end[s->rounds++] = n;
    }
    return 1;
bad:
    free(s->v);
    free(s->end);
    memset(s, 0, sizeof *s);
    return 0;
}

typedef enum verdict_kind { SAME, FASTER, SLOWER, AMBIGUOUS } verdict_kind;

/* The verdict on one pair of records (compare.h). `how` gets the change and
 * the interval or allowance behind the verdict. */
static verdict_kind judge(const cJSON *b, const cJSON *c, const convt_compare_options *opt,
                     char *how, size_t len)
{
    double change = json_median_ms(c) / json_median_ms(b) - 1;
    samples sb, sc;
    int have = read_samples(b, &sb) & read_samples(c, &sc);
    convt_ratio_interval ci;
    bool boot = false;
    if (have) {
        convt_round_samples rb = {sb.v, sb.end, sb.rounds}, rc = {sc.v, sc.end, sc.rounds};
        double db = json_num(timing(b), "noise_drift"), dc = json_num(timing(c), "noise_drift");
        /* the same record gets the same resamples in every comparison */
        uint64_t seed = convt_fnv1a(convt_fnv1a(convt_fnv1a(CONVT_FNV1A_START, json_shape_key(c)), json_str(c, "variant")),
                                    json_str(c, "launch_key"));
        boot = convt_bootstrap_median_ratio(&rb, &rc, isfinite(db) ? db : 0, isfinite(dc) ? dc : 0,
                                            CONVT_COMPARE_CONFIDENCE, CONVT_COMPARE_REPLICATES,
                                            seed, &ci) == 0;
    }
    free(sb.v), free(sb.end), free(sc.v), free(sc.end);
    double t = opt->threshold;
    if (boot) {
        snprintf(how, len, "%+.1f%% [%+.1f%%, %+.1f%%]", 100 * change, 100 * (ci.lo - 1),
                 100 * (ci.hi - 1));
        if (ci.lo > 1 + t)
            return SLOWER;
        if (ci.hi < 1 - t)
            return FASTER;
        if (ci.lo >= 1 - t && ci.hi <= 1 + t)
            return SAME;
        return AMBIGUOUS;
    }
    double allow = allowance(b, c, t);
    snprintf(how, len, "%+.1f%% (no samples; allowed %.1f%%)", 100 * change, 100 * allow);
    return change > allow ? SLOWER : change < -allow ? FASTER : SAME;
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

/* The distribution of |change| over the records timed on both sides, and the
 * share of them whose change stays within the noise the runs recorded: how
 * far two runs of the same thing disagree, which is what any threshold has
 * to sit above. */
static void spread(const convt_run_index *bix, const cJSON *crec, convt_compare_summary *sum)
{
    int n = 0, within = 0;
    for (const cJSON *c = crec ? crec->child : NULL; c; c = c->next)
        n++;
    double *d = malloc((size_t)(n ? n : 1) * sizeof *d);
    n = 0;
    for (const cJSON *c = crec ? crec->child : NULL; c && d; c = c->next) {
        const cJSON *b = convt_run_index_find(bix, c);
        if (!b || !json_ok_timed(b) || !json_ok_timed(c))
            continue;
        double change = fabs(json_median_ms(c) / json_median_ms(b) - 1);
        within += change <= allowance(b, c, 0);
        d[n++] = change;
    }
    sum->spread_count = n;
    if (n) {
        convt_sort(d, n);
        sum->spread_median = convt_median_sorted(d, n);
        sum->spread_p95 = convt_rank_sorted(d, n, 0.95);
        sum->spread_max = d[n - 1];
        sum->within_noise = (double)within / n;
    }
    free(d);
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

/* The record behind a selection row, in the run indexed by ix. */
static const cJSON *row_record(const convt_run_index *ix, const cJSON *row)
{
    return convt_run_index_find_fields(ix, json_str(row, "key"), json_str(row, "variant"),
                                       json_str(row, "launch_key"), json_str(row, "variant_tier"));
}

static const cJSON *find_row(const cJSON *sel, const cJSON *row)
{
    const cJSON *rows = cJSON_GetObjectItemCaseSensitive(sel, "selections");
    for (const cJSON *r = rows ? rows->child : NULL; r; r = r->next)
        if (!strcmp(json_str(r, "key"), json_str(row, "key")) &&
            !strcmp(json_str(r, "tier"), json_str(row, "tier")))
            return r;
    return NULL;
}

/* " (1.13x vs torch_tf32)" or "" */
static void versus(const cJSON *row, char *buf, size_t len)
{
    double s = json_num(row, "speedup");
    const cJSON *base = cJSON_GetObjectItemCaseSensitive(row, "baseline");
    if (isfinite(s) && base)
        snprintf(buf, len, " (%.2fx vs %s)", s, json_str(base, "variant"));
    else
        buf[0] = 0;
}

/* Winners: each side's selection (select.h: tier rule, ties), and the
 * current winner's record judged against the baseline's. */
static void winners(const cJSON *base, const cJSON *cur, const convt_run_index *bix,
                    const convt_run_index *cix, const convt_compare_options *opt, FILE *out,
                    convt_compare_summary *sum)
{
    const bool md = opt->markdown;
    cJSON *bsel = convt_select(base, NULL), *csel = convt_select(cur, NULL);
    fprintf(out, "\n%swinners (the selection of each run: tier rule and ties as in select; "
                 "speedup over the run's fastest vendor record)\n",
            md ? "### " : "");
    const cJSON *rows = cJSON_GetObjectItemCaseSensitive(csel, "selections");
    for (const cJSON *crow = rows ? rows->child : NULL; crow; crow = crow->next) {
        const cJSON *brow = find_row(bsel, crow);
        const cJSON *cw = row_record(cix, crow), *bw = brow ? row_record(bix, brow) : NULL;
        if (!cw || !bw)
            continue;
        char how[96], bv[64], cv[64];
        verdict_kind v = judge(bw, cw, opt, how, sizeof how);
        /* Not judged either (see redefined()): a winner whose own record
         * chose differently in the current run (seen on the H100: cuDNN
         * found a slower algorithm, and another variant became the winner). */
        const cJSON *bw_now = convt_run_index_find(cix, bw);
        bool other_choice = (json_same_run(bw, cw) && redefined(bw, cw)) ||
                            (bw_now && json_ok_timed(bw_now) && redefined(bw, bw_now));
        bool worse = v == SLOWER && !other_choice;
        sum->winners_regressed += worse;
        /* the same pick, or a tie declared by either run (select.h) */
        sum->winners_compared++;
        if (!json_same_run(bw, cw)) {
            sum->winners_changed++;
            sum->winners_changed_untied +=
                json_num(brow, "tied") <= 1 && json_num(crow, "tied") <= 1;
        }
        sum->winners_ambiguous += v == AMBIGUOUS && !other_choice;
        versus(brow, bv, sizeof bv);
        versus(crow, cv, sizeof cv);
        fprintf(out, "%s%s %s: %s %.4f ms%s -> %s %.4f ms%s: %s%s\n", md ? "- " : "  ",
                name_of(cw), json_str(crow, "tier"), json_str(bw, "variant"),
                json_median_ms(bw), bv, json_str(cw, "variant"),
                json_median_ms(cw), cv, how,
                worse                   ? "  REGRESSION"
                : other_choice          ? "  (not judged: it chose differently)"
                : v == AMBIGUOUS        ? "  (ambiguous)"
                : v == FASTER           ? "  (faster)"
                                        : "");
    }
    if (sum->winners_compared)
        fprintf(out, "%s%d winners: %d the same record in both runs, %d changed (%d of them "
                     "with no tie declared in either run)\n",
                md ? "- " : "  ", sum->winners_compared,
                sum->winners_compared - sum->winners_changed, sum->winners_changed,
                sum->winners_changed_untied);
    cJSON_Delete(bsel);
    cJSON_Delete(csel);
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
    convt_run_index bix, cix;
    if (convt_run_index_of(&bix, brec)) {
        fprintf(out, "out of memory indexing the baseline's records\n");
        return -1;
    }
    if (convt_run_index_of(&cix, crec)) {
        convt_run_index_free(&bix);
        fprintf(out, "out of memory indexing the current run's records\n");
        return -1;
    }

    if (md) {
        row(out, true, "shape", "variant", "launch", "tier", "baseline ms", "current ms", "verdict");
        row(out, true, "---", "---", "---", "---", "---", "---", "---");
    } else {
        row(out, false, "shape", "variant", "launch", "tier", "baseline ms", "current ms",
            "verdict");
    }
    for (const cJSON *c = crec ? crec->child : NULL; c; c = c->next) {
        const cJSON *b = convt_run_index_find(&bix, c);
        if (!b) {
            sum->only_current++;
            continue;
        }
        sum->matched++;
        char bm[32] = "-", cm[32] = "-", verdict[160];
        if (validated_timed(b))
            snprintf(bm, sizeof bm, "%.4f", json_median_ms(b));
        if (validated_timed(c))
            snprintf(cm, sizeof cm, "%.4f", json_median_ms(c));
        const char *cs = json_str(c, "status");
        if (validated(b) && (!strcmp(cs, "wrong") || !strcmp(cs, "failed"))) {
            sum->turned_bad++;
            snprintf(verdict, sizeof verdict, "REGRESSION: now %s: %.80s", cs, json_str(c, "reason"));
        } else if (validated_timed(b) && validated_timed(c)) {
            char how[96];
            verdict_kind v = judge(b, c, opt, how, sizeof how);
            if (redefined(b, c)) {
                sum->redefined++;
                snprintf(verdict, sizeof verdict, "not judged, %s: %.50s -> %.50s", how,
                         json_str(b, "detail"), json_str(c, "detail"));
            } else {
                static const char *const label[] = {"same", "faster", "REGRESSION", "ambiguous"};
                int *count[] = {&sum->unchanged, &sum->improved, &sum->regressed, &sum->ambiguous};
                (*count[v])++;
                snprintf(verdict, sizeof verdict, "%s: %s", label[v], how);
            }
        } else {
            snprintf(verdict, sizeof verdict, "%s -> %s", json_str(b, "status"), cs);
            sum->unchanged++;
        }
        row(out, md, name_of(c), json_str(c, "variant"), json_str(c, "launch_key"), json_str(c, "tier"), bm, cm,
            verdict);
    }
    for (const cJSON *b = brec ? brec->child : NULL; b; b = b->next)
        if (!convt_run_index_find(&cix, b))
            sum->only_baseline++;

    winners(base, cur, &bix, &cix, opt, out, sum);
    if (sum->only_baseline || sum->only_current) {
        fprintf(out, "\n%smissing records\n", md ? "### " : "");
        for (const cJSON *b = brec ? brec->child : NULL; b; b = b->next)
            if (!convt_run_index_find(&cix, b))
                fprintf(out, "%sonly in the baseline: %s %s %s %s\n", md ? "- " : "  ",
                        name_of(b), json_str(b, "variant"), json_str(b, "launch_key"), json_str(b, "tier"));
        for (const cJSON *c = crec ? crec->child : NULL; c; c = c->next)
            if (!convt_run_index_find(&bix, c))
                fprintf(out, "%sonly in the current run: %s %s %s %s\n", md ? "- " : "  ",
                        name_of(c), json_str(c, "variant"), json_str(c, "launch_key"), json_str(c, "tier"));
    }
    spread(&bix, crec, sum);
    if (sum->spread_count)
        fprintf(out,
                "\n%srun-to-run spread over %d records timed on both sides: |change| median "
                "%.1f%%, 95th percentile %.1f%%, max %.1f%%; %.0f%% within the noise both runs "
                "recorded\n",
                md ? "- " : "", sum->spread_count, 100 * sum->spread_median,
                100 * sum->spread_p95, 100 * sum->spread_max, 100 * sum->within_noise);
    fprintf(out,
            "\n%d matched: %d regressed, %d turned wrong or failed, %d faster, %d same, %d "
            "ambiguous, %d chose differently (not judged); %d winner%s regressed, %d "
            "ambiguous; %d only in the baseline, %d only in the current run\n",
            sum->matched, sum->regressed, sum->turned_bad, sum->improved, sum->unchanged,
            sum->ambiguous, sum->redefined, sum->winners_regressed,
            sum->winners_regressed == 1 ? "" : "s", sum->winners_ambiguous, sum->only_baseline,
            sum->only_current);
    convt_run_index_free(&bix);
    convt_run_index_free(&cix);
    return 0;
}
