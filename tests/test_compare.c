/* compare on synthetic results: identical files pass; a 10% slowdown beyond
 * the recorded noise fails; noise-only differences pass; a record that
 * turned wrong fails; missing records are listed; a different device warns,
 * or refuses with --strict. With raw samples: the bootstrap verdict (faster,
 * same, slower, ambiguous) on synthetic samples of known centre and spread,
 * its interval widened by drift, --fail-on-ambiguous. compare --best: each
 * (shape, variant, tier)'s fastest ok launch on each side, the ratios and
 * their geometric means. Through the library and through the binary. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bootstrap.h"
#include "compare.h"
#include "compare_best.h"
#include "hostdevice.h"
#include "test_util.h"

static cJSON *rec(const char *key, const char *variant, const char *status, double ms,
                  double noise)
{
    cJSON *r = cJSON_CreateObject();
    cJSON *s = cJSON_AddObjectToObject(r, "shape");
    cJSON_AddStringToObject(s, "key", key);
    cJSON_AddStringToObject(s, "name", key);
    cJSON_AddStringToObject(r, "variant", variant);
    cJSON_AddStringToObject(r, "launch_key", "block=128");
    cJSON_AddStringToObject(r, "tier", "fp32");
    cJSON_AddStringToObject(r, "status", status);
    if (!strcmp(status, "ok") || !strcmp(status, "pruned")) {
        cJSON *t = cJSON_AddObjectToObject(r, "timing");
        cJSON_AddNumberToObject(t, "median_ms", ms);
        cJSON_AddNumberToObject(t, "noise", noise);
    } else {
        cJSON_AddStringToObject(r, "reason", "normwise error 3e-2 exceeds 1e-5");
    }
    return r;
}

/* A results document with records A/gather and A/fast and B/gather. */
static cJSON *doc(const char *gpu, double a_gather, double a_fast, double noise,
                  const char *a_fast_status)
{
    cJSON *d = cJSON_CreateObject();
    cJSON_AddStringToObject(d, "backend", "cuda");
    cJSON *dev = cJSON_AddObjectToObject(d, "device");
    cJSON_AddStringToObject(dev, "name", gpu);
    cJSON_AddNumberToObject(dev, "cudnn_version", 91400);
    cJSON *r = cJSON_AddArrayToObject(d, "records");
    cJSON_AddItemToArray(r, rec("A", "gather", "ok", a_gather, noise));
    cJSON_AddItemToArray(r, rec("A", "fast", a_fast_status, a_fast, noise));
    cJSON_AddItemToArray(r, rec("B", "gather", "ok", 2.0, noise));
    return d;
}

static convt_compare_summary run(cJSON *base, cJSON *cur, bool strict, int *rc)
{
    convt_compare_options opt = {.threshold = 0.05, .strict = strict};
    convt_compare_summary sum;
    FILE *sink = fopen("/dev/null", "w");
    *rc = convt_compare(base, cur, &opt, sink, &sum);
    fclose(sink);
    cJSON_Delete(base);
    cJSON_Delete(cur);
    return sum;
}

/* cuDNN's search picked another algorithm in the second run: the record got
 * 40% slower, but it timed another kernel; shown, not judged. The same
 * slowdown with the same choice is a regression. */
static void a_record_that_chose_differently_is_not_judged(void **state)
{
    (void)state;
    int rc;
    cJSON *base = doc("H100", 4, 1, 0.005, "ok"), *cur = doc("H100", 4, 1.4, 0.005, "ok");
    cJSON_AddStringToObject(cJSON_GetArrayItem(cJSON_GetObjectItem(base, "records"), 1), "detail",
                            "algo=0 math=FMA");
    cJSON_AddStringToObject(cJSON_GetArrayItem(cJSON_GetObjectItem(cur, "records"), 1), "detail",
                            "algo=1 math=FMA");
    convt_compare_summary s = run(base, cur, false, &rc);
    assert_int_equal(s.redefined, 1);
    assert_int_equal(s.regressed + s.winners_regressed, 0);

    /* the baseline's winner chose a slower algorithm, and another record won */
    base = doc("H100", 4, 1, 0.005, "ok"), cur = doc("H100", 3, 5, 0.005, "ok");
    cJSON_AddStringToObject(cJSON_GetArrayItem(cJSON_GetObjectItem(base, "records"), 1), "detail",
                            "algo=0 math=FMA");
    cJSON_AddStringToObject(cJSON_GetArrayItem(cJSON_GetObjectItem(cur, "records"), 1), "detail",
                            "algo=1 math=FMA");
    s = run(base, cur, false, &rc);
    assert_int_equal(s.redefined, 1);
    assert_int_equal(s.regressed + s.winners_regressed, 0);

    base = doc("H100", 4, 1, 0.005, "ok"), cur = doc("H100", 4, 1.4, 0.005, "ok");
    cJSON_AddStringToObject(cJSON_GetArrayItem(cJSON_GetObjectItem(base, "records"), 1), "detail",
                            "algo=0 math=FMA");
    cJSON_AddStringToObject(cJSON_GetArrayItem(cJSON_GetObjectItem(cur, "records"), 1), "detail",
                            "algo=0 math=FMA");
    s = run(base, cur, false, &rc);
    assert_int_equal(s.redefined, 0);
    assert_int_equal(s.regressed, 1);
    assert_int_equal(s.winners_regressed, 1);
}

static void identical_results_pass(void **state)
{
    (void)state;
    int rc;
    convt_compare_summary s = run(doc("H100", 4, 1, 0.005, "ok"), doc("H100", 4, 1, 0.005, "ok"),
                                  false, &rc);
    assert_int_equal(rc, 0);
    assert_int_equal(s.matched, 3);
    assert_int_equal(s.unchanged, 3);
    assert_int_equal(s.regressed + s.turned_bad + s.winners_regressed, 0);
    assert_false(s.environment_differs);
}

static void spread_of_identical_and_changed_runs(void **state)
{
    (void)state;
    int rc;
    convt_compare_summary s = run(doc("H100", 4, 1, 0.005, "ok"), doc("H100", 4, 1, 0.005, "ok"),
                                  false, &rc);
    assert_int_equal(s.spread_count, 3);
    assert_true(s.spread_max == 0 && s.within_noise == 1.0);
    /* one of three records 10% slower with 1% noise: outside; two unchanged */
    s = run(doc("H100", 4, 1, 0.005, "ok"), doc("H100", 4, 1.1, 0.005, "ok"), false, &rc);
    assert_true(fabs(s.spread_max - 0.1) < 1e-9);
    assert_true(fabs(s.within_noise - 2.0 / 3) < 1e-9);
    assert_true(s.spread_median == 0);
}

static void a_slowdown_beyond_noise_fails(void **state)
{
    (void)state;
    int rc; /* the winner of A (fast) is 10% slower, noise 0.5% per run */
    convt_compare_summary s = run(doc("H100", 4, 1, 0.005, "ok"), doc("H100", 4, 1.1, 0.005, "ok"),
                                  false, &rc);
    assert_int_equal(s.regressed, 1);
    assert_int_equal(s.winners_regressed, 1);
    assert_int_equal(s.winners_compared, 2);
    assert_int_equal(s.winners_changed, 0);
}

static void a_changed_winner_is_counted_with_its_ties(void **state)
{
    (void)state;
    int rc; /* A: fast (1.0) wins, then gather (0.9) wins with 0.5% noise: changed, no tie */
    convt_compare_summary s = run(doc("H100", 4, 1, 0.005, "ok"), doc("H100", 0.9, 1, 0.005, "ok"),
                                  false, &rc);
    assert_int_equal(s.winners_changed, 1);
    assert_int_equal(s.winners_changed_untied, 1);
    /* the same with 10% noise: tied in the current run, and the tie rule
     * (neither deterministic, no previous table: the faster median) takes
     * "gather": a changed winner, counted with the ties it was declared
     * among, not as an untied change */
    s = run(doc("H100", 4, 1, 0.1, "ok"), doc("H100", 0.95, 1, 0.1, "ok"), false, &rc);
    assert_int_equal(s.winners_changed, 1);
    assert_int_equal(s.winners_changed_untied, 0);
}

static void noise_only_differences_pass(void **state)
{
    (void)state;
    int rc; /* 3% slower under a 5% threshold */
    convt_compare_summary s = run(doc("H100", 4, 1, 0.005, "ok"), doc("H100", 4, 1.03, 0.005, "ok"),
                                  false, &rc);
    assert_int_equal(s.regressed + s.winners_regressed, 0);
    /* 8% slower, but each run recorded 5% noise: 10% allowed */
    s = run(doc("H100", 4, 1, 0.05, "ok"), doc("H100", 4, 1.08, 0.05, "ok"), false, &rc);
    assert_int_equal(s.regressed + s.winners_regressed, 0);
    /* 8% faster is reported as faster, never as a failure */
    s = run(doc("H100", 4, 1, 0.005, "ok"), doc("H100", 4, 0.92, 0.005, "ok"), false, &rc);
    assert_int_equal(s.improved, 1);
    assert_int_equal(s.regressed, 0);
}

static void a_record_that_turned_wrong_fails(void **state)
{
    (void)state;
    int rc;
    convt_compare_summary s = run(doc("H100", 4, 1, 0.005, "ok"),
                                  doc("H100", 4, 0.5, 0.005, "wrong"), false, &rc);
    assert_int_equal(s.turned_bad, 1);
}

/* A launch measure.prune stopped after one round was validated like an
 * ok one: turning wrong or failed is a regression, and its time, ok or
 * pruned on either side, is judged (a launch 60% slower, pruned now). */
static void a_pruned_record_is_judged_like_an_ok_one(void **state)
{
    (void)state;
    int rc;
    convt_compare_summary s = run(doc("H100", 4, 1, 0.005, "pruned"),
                                  doc("H100", 4, 1, 0.005, "failed"), false, &rc);
    assert_int_equal(s.turned_bad, 1);
    assert_int_equal(rc, 0);
    s = run(doc("H100", 4, 1, 0.005, "ok"), doc("H100", 4, 1.6, 0.005, "pruned"), false, &rc);
    assert_int_equal(s.regressed, 1);
    s = run(doc("H100", 4, 1, 0.005, "pruned"), doc("H100", 4, 1, 0.005, "pruned"), false, &rc);
    assert_int_equal(s.regressed + s.turned_bad, 0);
    assert_int_equal(s.unchanged, 3);
}

static void missing_records_are_listed(void **state)
{
    (void)state;
    cJSON *base = doc("H100", 4, 1, 0.005, "ok"), *cur = doc("H100", 4, 1, 0.005, "ok");
    cJSON_DeleteItemFromArray(cJSON_GetObjectItemCaseSensitive(cur, "records"), 2); /* B */
    cJSON_AddItemToArray(cJSON_GetObjectItemCaseSensitive(cur, "records"),
                         rec("C", "gather", "ok", 1, 0.01));
    int rc;
    convt_compare_summary s = run(base, cur, false, &rc);
    assert_int_equal(s.only_baseline, 1);
    assert_int_equal(s.only_current, 1);
    assert_int_equal(s.matched, 2);
}

static void different_devices_warn_or_refuse(void **state)
{
    (void)state;
    int rc;
    convt_compare_summary s = run(doc("H100", 4, 1, 0.005, "ok"), doc("H200", 4, 1, 0.005, "ok"),
                                  false, &rc);
    assert_int_equal(rc, 0);
    assert_true(s.environment_differs);
    s = run(doc("H100", 4, 1, 0.005, "ok"), doc("H200", 4, 1, 0.005, "ok"), true, &rc);
    assert_int_equal(rc, -1);
}

/* A record of `variant` on shape `key` at launch `launch`. */
static cJSON *launch_rec(const char *key, const char *variant, const char *launch,
                         const char *status, double ms)
{
    cJSON *r = rec(key, variant, status, ms, 0.01);
    cJSON_ReplaceItemInObject(r, "launch_key", cJSON_CreateString(launch));
    return r;
}

static cJSON *records_doc(cJSON **recs, int n)
{
    cJSON *d = cJSON_CreateObject();
    cJSON *r = cJSON_AddArrayToObject(d, "records");
    for (int i = 0; i < n; i++)
        cJSON_AddItemToArray(r, recs[i]);
    return d;
}

/* Each side's best ok launch per (shape, variant, tier), whatever the
 * launches' order; pruned, wrong and one-sided records left out; each
 * variant's geometric mean of its ratios and all of them together. */
static void best_launches_per_variant_and_their_means(void **state)
{
    (void)state;
    cJSON *b[] = {
        launch_rec("A", "fast", "block=64", "ok", 1.0),
        launch_rec("A", "fast", "block=128", "ok", 0.8), /* fast's best on A: 0.8 */
        launch_rec("A", "fast", "block=256", "pruned", 0.1),
        launch_rec("B", "fast", "block=64", "ok", 2.0),
        launch_rec("A", "slow", "block=64", "ok", 4.0),
        launch_rec("C", "fast", "block=64", "ok", 1.0), /* not in the current run */
    };
    cJSON *c[] = {
        launch_rec("A", "fast", "block=64", "ok", 0.9), /* 0.9 / 0.8 = 1.125 */
        launch_rec("A", "fast", "block=128", "ok", 1.2),
        launch_rec("A", "fast", "block=256", "wrong", 0.05),
        launch_rec("B", "fast", "block=128", "ok", 1.0), /* 1.0 / 2.0 = 0.5 */
        launch_rec("A", "slow", "block=64", "ok", 2.0),  /* 0.5 */
        launch_rec("D", "fast", "block=64", "ok", 1.0),  /* not in the baseline */
    };
    cJSON *base = records_doc(b, 6), *cur = records_doc(c, 6);
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    convt_compare_best_summary sum;
    assert_int_equal(convt_compare_best(base, cur, false, out, &sum), 0);
    fclose(out);
    assert_int_equal(sum.pairs, 3);
    assert_true(fabs(sum.geomean - cbrt(1.125 * 0.5 * 0.5)) < 1e-12);
    assert_non_null(strstr(text, "0.8000 (block=128)"));
    assert_non_null(strstr(text, "0.9000 (block=64)"));
    assert_non_null(strstr(text, "1.125"));
    assert_null(strstr(text, "0.0500"));                    /* the wrong record */
    assert_null(strstr(text, "0.1000"));                    /* the pruned one */
    assert_non_null(strstr(text, "0.750x over 2"));         /* fast: sqrt(1.125 x 0.5) */
    assert_non_null(strstr(text, "0.500x over 1"));         /* slow */
    /* the rows in the current run's order: A/fast, B/fast, A/slow */
    const char *a_fast = strstr(text, "\nA "), *b_fast = strstr(text, "\nB ");
    assert_non_null(a_fast);
    assert_non_null(b_fast);
    assert_true(a_fast < b_fast);
    free(text);

    /* nothing in common: no pairs, no mean */
    cJSON_Delete(base);
    base = records_doc((cJSON *[]){launch_rec("Z", "fast", "block=64", "ok", 1.0)}, 1);
    FILE *sink = fopen("/dev/null", "w");
    assert_int_equal(convt_compare_best(base, cur, true, sink, &sum), 0);
    fclose(sink);
    assert_int_equal(sum.pairs, 0);
    assert_true(isnan(sum.geomean));
    cJSON_Delete(base);
    cJSON_Delete(cur);
}

/* Runs the binary with the arguments fmt makes and checks its exit status
 * and, unless needle is NULL, that its output holds needle. */
static void expect_bench(int status, const char *needle, const char *fmt, ...)
{
    char args[2048], *out;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    assert_int_equal(run_bench(args, &out), status);
    if (needle)
        assert_non_null(strstr(out, needle));
    free(out);
}

/* The binary's exit statuses, and its report, from files. */
static void binary_exit_statuses(void **state)
{
    (void)state;
    char dir[256], a[512], b[512], w[512];
    temp_dir(dir, sizeof dir);
    snprintf(a, sizeof a, "%s/base.json", dir);
    snprintf(b, sizeof b, "%s/slow.json", dir);
    snprintf(w, sizeof w, "%s/h200.json", dir);
    cJSON *d1 = doc("H100", 4, 1, 0.005, "ok"), *d2 = doc("H100", 4, 1.1, 0.005, "ok"),
          *d3 = doc("H200", 4, 1, 0.005, "ok");
    char *t1 = cJSON_Print(d1), *t2 = cJSON_Print(d2), *t3 = cJSON_Print(d3);
    write_file(a, t1);
    write_file(b, t2);
    write_file(w, t3);
    free(t1), free(t2), free(t3);
    cJSON_Delete(d1), cJSON_Delete(d2), cJSON_Delete(d3);
    expect_bench(0, NULL, "compare %s %s", a, a);
    expect_bench(1, "| A | fast | block=128 | fp32 | 1.0000 | 1.1000 | REGRESSION",
                 "compare --markdown %s %s", a, b);
    expect_bench(0, NULL, "compare --threshold 15 %s %s", a, b); /* 10% < 15% */
    expect_bench(2, "device.name differs", "compare --strict %s %s", a, w);
    /* nothing in common, or an interrupted current run: not a pass */
    cJSON *other = doc("H100", 4, 1, 0.005, "ok");
    cJSON *orecs = cJSON_GetObjectItemCaseSensitive(other, "records");
    for (cJSON *r = orecs->child; r; r = r->next)
        cJSON_ReplaceItemInObject(cJSON_GetObjectItem(r, "shape"), "key", cJSON_CreateString("Z"));
    char z[512];
    snprintf(z, sizeof z, "%s/other.json", dir);
    char *tz = cJSON_Print(other);
    write_file(z, tz);
    free(tz);
    expect_bench(1, "no record of the current run matches", "compare %s %s", a, z);
    cJSON_Delete(other);
    cJSON *cut = doc("H100", 4, 1, 0.005, "ok");
    cJSON_AddBoolToObject(cut, "complete", false);
    tz = cJSON_Print(cut);
    write_file(z, tz);
    free(tz);
    cJSON_Delete(cut);
    expect_bench(1, "is incomplete", "compare %s %s", a, z);
    /* --best: a report, exit 0, with each variant's mean (fast: 1.1 / 1.0);
     * it says a run was cut; it takes no verdict options */
    expect_bench(0, "1.100x over 1", "compare --best %s %s", a, b);
    expect_bench(0, "is incomplete (interrupted): its best launches are among those",
                 "compare --best %s %s", a, z);
    expect_bench(2, "--best gives no verdicts", "compare --best --threshold 10 %s %s", a, b);
    expect_bench(2, "missing.json: cannot open", "compare %s %s/missing.json", a, dir);
}


/* Synthetic samples: `rounds` rounds of `k` samples around centre * (1 +
 * a round offset of sd `between`) * (1 + a sample offset of sd `within`),
 * offsets uniform with those standard deviations, from seed. */
static void add_samples(cJSON *rec, double centre, int rounds, int k, double within,
                        double between, uint64_t seed)
{
    cJSON *t = cJSON_GetObjectItemCaseSensitive(rec, "timing");
    cJSON *by = cJSON_AddArrayToObject(t, "samples_ms");
    double u_sd = 1.0 / sqrt(3.0); /* sd of uniform(-1, 1) */
    for (int r = 0; r < rounds; r++) {
        seed = convt_mix64(seed + 1);
        double ro = ((double)(seed % 20001) / 10000.0 - 1.0) / u_sd * between;
        cJSON *one = cJSON_CreateArray();
        for (int i = 0; i < k; i++) {
            seed = convt_mix64(seed + 7);
            double so = ((double)(seed % 20001) / 10000.0 - 1.0) / u_sd * within;
            cJSON_AddItemToArray(one, cJSON_CreateNumber(centre * (1 + ro) * (1 + so)));
        }
        cJSON_AddItemToArray(by, one);
    }
}

/* One record A/fast at `centre` with samples, in a document. */
static cJSON *sampled_doc(double centre, double within, double between, double drift,
                          uint64_t seed)
{
    cJSON *d = cJSON_CreateObject();
    cJSON_AddStringToObject(d, "backend", "cuda");
    cJSON_AddStringToObject(cJSON_AddObjectToObject(d, "device"), "name", "H100");
    cJSON *r = rec("A", "fast", "ok", centre, within + between + drift);
    add_samples(r, centre, 4, 12, within, between, seed);
    cJSON_AddNumberToObject(cJSON_GetObjectItemCaseSensitive(r, "timing"), "noise_drift", drift);
    cJSON_AddItemToArray(cJSON_AddArrayToObject(d, "records"), r);
    return d;
}

static void the_bootstrap_interval_is_reproducible_and_covers_the_ratio(void **state)
{
    (void)state;
    double a[24], b[24];
    int end[3] = {8, 16, 24};
    uint64_t s = 99;
    for (int i = 0; i < 24; i++) {
        s = convt_mix64(s);
        a[i] = 1.0 + (double)(s % 100) * 1e-4;
        b[i] = 1.1 * (1.0 + (double)((s >> 20) % 100) * 1e-4);
    }
    convt_round_samples ra = {a, end, 3}, rb = {b, end, 3};
    convt_ratio_interval x, y;
    assert_int_equal(convt_bootstrap_median_ratio(&ra, &rb, 0, 0, 0.95, 2000, 5, &x), 0);
    assert_int_equal(convt_bootstrap_median_ratio(&ra, &rb, 0, 0, 0.95, 2000, 5, &y), 0);
    assert_true(x.lo == y.lo && x.hi == y.hi); /* same seed, same verdict */
    assert_true(x.lo <= x.point && x.point <= x.hi);
    assert_true(x.lo > 1.08 && x.hi < 1.12);
    /* drift widens it by one drift of the ratio: 2% in each run, exp(0.0283) */
    assert_int_equal(convt_bootstrap_median_ratio(&ra, &rb, 0.02, 0.02, 0.95, 2000, 5, &y), 0);
    assert_true(fabs(y.hi / x.hi - exp(CONVT_DRIFT_SIGMAS * sqrt(0.0008))) < 1e-12);
    /* rounds of unequal length (as real runs have: a round stops when its
     * noise is low enough): a replicate may draw the longest round three
     * times; seen as a heap overrun on the H100's results before the fix */
    int uneven[3] = {2, 4, 24};
    convt_round_samples ua = {a, uneven, 3}, ub = {b, uneven, 3};
    assert_int_equal(convt_bootstrap_median_ratio(&ua, &ub, 0, 0, 0.95, 2000, 5, &y), 0);
    assert_true(y.lo <= y.point && y.point <= y.hi);
    /* a file claiming 5000 rounds, one of them 1000 long: a replicate could
     * hold 5 million samples; refused (the caller uses its noise rule)
     * rather than an allocation of that size (an int overflow before) */
    static double many[5999];
    static int many_end[5000];
    for (int i = 0; i < 5999; i++)
        many[i] = 1.0 + i * 1e-6;
    for (int r = 0; r < 5000; r++)
        many_end[r] = r == 0 ? 1000 : 1000 + r;
    convt_round_samples lop = {many, many_end, 5000};
    assert_int_equal(convt_bootstrap_median_ratio(&lop, &rb, 0, 0, 0.95, 100, 5, &y), -1);
    /* no samples: no interval */
    convt_round_samples none = {a, end, 0};
    assert_int_equal(convt_bootstrap_median_ratio(&none, &rb, 0, 0, 0.95, 2000, 5, &y), -1);
}

static convt_compare_summary judge_pair(cJSON *base, cJSON *cur)
{
    int rc;
    return run(base, cur, false, &rc);
}

static void sampled_records_get_a_bootstrap_verdict(void **state)
{
    (void)state;
    /* the same kernel twice: 0.3% within, 0.2% between rounds: same */
    convt_compare_summary s = judge_pair(sampled_doc(1.0, 0.003, 0.002, 0, 1),
                                         sampled_doc(1.0, 0.003, 0.002, 0, 2));
    assert_int_equal(s.unchanged, 1);
    assert_int_equal(s.regressed + s.ambiguous + s.winners_regressed, 0);
    /* 10% slower, tight: slower, and so is the winner */
    s = judge_pair(sampled_doc(1.0, 0.003, 0.002, 0, 1), sampled_doc(1.10, 0.003, 0.002, 0, 2));
    assert_int_equal(s.regressed, 1);
    assert_int_equal(s.winners_regressed, 1);
    /* 10% faster: faster, never a failure */
    s = judge_pair(sampled_doc(1.0, 0.003, 0.002, 0, 1), sampled_doc(0.90, 0.003, 0.002, 0, 2));
    assert_int_equal(s.improved, 1);
    assert_int_equal(s.regressed, 0);
    /* 5% slower while the rounds disagree by 3%: the data cannot tell */
    s = judge_pair(sampled_doc(1.0, 0.003, 0.03, 0, 1), sampled_doc(1.05, 0.003, 0.03, 0, 2));
    assert_int_equal(s.ambiguous, 1);
    assert_int_equal(s.regressed, 0);
    /* 7% slower, tight samples: slower without drift; with 3% drift in each
     * run (4.2% on the ratio) the interval reaches below 1.05: ambiguous */
    s = judge_pair(sampled_doc(1.0, 0.002, 0.001, 0, 1), sampled_doc(1.07, 0.002, 0.001, 0, 2));
    assert_int_equal(s.regressed, 1);
    s = judge_pair(sampled_doc(1.0, 0.002, 0.001, 0.03, 1),
                   sampled_doc(1.07, 0.002, 0.001, 0.03, 2));
    assert_int_equal(s.ambiguous, 1);
}

static void fail_on_ambiguous_sets_the_exit_status(void **state)
{
    (void)state;
    char dir[256], a[512], b[512], args[2048];
    temp_dir(dir, sizeof dir);
    snprintf(a, sizeof a, "%s/a.json", dir);
    snprintf(b, sizeof b, "%s/b.json", dir);
    cJSON *d1 = sampled_doc(1.0, 0.003, 0.03, 0, 1), *d2 = sampled_doc(1.05, 0.003, 0.03, 0, 2);
    char *t1 = cJSON_Print(d1), *t2 = cJSON_Print(d2);
    write_file(a, t1);
    write_file(b, t2);
    free(t1), free(t2);
    cJSON_Delete(d1), cJSON_Delete(d2);
    char *out;
    snprintf(args, sizeof args, "compare %s %s", a, b);
    assert_int_equal(run_bench(args, &out), 0);
    assert_non_null(strstr(out, "ambiguous: +"));
    free(out);
    snprintf(args, sizeof args, "compare --fail-on-ambiguous %s %s", a, b);
    assert_int_equal(run_bench(args, &out), 1);
    free(out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(identical_results_pass),
        cmocka_unit_test(a_record_that_chose_differently_is_not_judged),
        cmocka_unit_test(spread_of_identical_and_changed_runs),
        cmocka_unit_test(a_slowdown_beyond_noise_fails),
        cmocka_unit_test(a_changed_winner_is_counted_with_its_ties),
        cmocka_unit_test(noise_only_differences_pass),
        cmocka_unit_test(a_record_that_turned_wrong_fails),
        cmocka_unit_test(a_pruned_record_is_judged_like_an_ok_one),
        cmocka_unit_test(missing_records_are_listed),
        cmocka_unit_test(different_devices_warn_or_refuse),
        cmocka_unit_test(binary_exit_statuses),
        cmocka_unit_test(best_launches_per_variant_and_their_means),
        cmocka_unit_test(the_bootstrap_interval_is_reproducible_and_covers_the_ratio),
        cmocka_unit_test(sampled_records_get_a_bootstrap_verdict),
        cmocka_unit_test(fail_on_ambiguous_sets_the_exit_status),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
