/* Timing statistics, the results document and its atomic write (the
 * selection is tested in test_select.c). */
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

#include "measure.h"
#include "results.h"
#include "test_util.h"

static void timing_statistics(void **state)
{
    (void)state;
    double v[] = {3, 1, 2, 5, 4};
    convt_timing t;
    convt_timing_from_samples(v, 5, &t);
    assert_int_equal(t.samples, 5);
    assert_true(t.median_ms == 3 && t.min_ms == 1 && t.max_ms == 5 && t.mean_ms == 3);
    assert_true(fabs(t.stddev_ms - sqrt(2.5)) < 1e-12);
    /* quartiles 2 and 4: noise = 2 / 1.349 / 3 */
    assert_true(fabs(t.noise - 2 / 1.349 / 3) < 1e-12);
    /* One outlier barely moves the robust noise... */
    double w[] = {10, 10.01, 9.99, 10.02, 9.98, 10, 55};
    convt_timing_from_samples(w, 7, &t);
    assert_true(t.noise < 0.003);
    assert_true(t.stddev_ms > 10);
    /* ...but two interleaved clock states are noise, however many agree. */
    double bi[] = {1, 2, 1, 2, 1, 1, 2};
    convt_timing_from_samples(bi, 7, &t);
    assert_true(t.noise > 0.3);
}

/* A fake backend whose "launch" takes a known time lets the adaptive loop
 * be tested without a device. */
static double fake_ms[64];
static int fake_at;
static int fake_start(bool hold, convt_err *e) { (void)hold, (void)e; return 0; }
static int fake_stop(double *ms, convt_err *e) { (void)e; *ms = fake_ms[fake_at++ % 64]; return 0; }
static int fake_sync(convt_err *e) { (void)e; return 0; }
static int fake_flush(convt_err *e) { (void)e; return 0; }
static int nop(void *arg, convt_err *e) { (void)arg, (void)e; return 0; }

static void adaptive_sampling_stops_on_low_noise(void **state)
{
    (void)state;
    convt_backend be = {.timer_start = fake_start, .timer_stop = fake_stop,
                        .synchronize = fake_sync, .flush_cache = fake_flush};
    for (int i = 0; i < 64; i++)
        fake_ms[i] = 1.0 + 1e-4 * (i % 3);
    convt_measure_settings s = {.warmup = 1, .min_samples = 5, .max_samples = 50,
                                .max_time_s = 10, .target_noise = 0.005, .cold_cache = true,
                                .batch_below_us = 0};
    convt_timing t;
    convt_err e;
    fake_at = 0;
    assert_int_equal(convt_measure(&be, &s, nop, NULL, &t, &e), 0);
    assert_int_equal(t.samples, 5); /* quiet from the start: stops at the minimum */
    assert_true(t.target_met);
    for (int i = 0; i < 64; i++) /* noisy: runs to max_samples and says so */
        fake_ms[i] = 1.0 + (i % 2);
    fake_at = 0;
    assert_int_equal(convt_measure(&be, &s, nop, NULL, &t, &e), 0);
    assert_int_equal(t.samples, 50);
    assert_false(t.target_met);
}

/* A fake launch that "takes" 2 us: a fake timer that reports 2 us per launch
 * between its marks. */
static int launches_since_start;
static int count_start(bool hold, convt_err *e)
{
    (void)hold, (void)e;
    launches_since_start = 0;
    return 0;
}
static int count_stop(double *ms, convt_err *e)
{
    (void)e;
    *ms = 0.002 * launches_since_start;
    return 0;
}
static int total_launches; /* every launch, warm-up and probes included */
static int count_launch(void *arg, convt_err *e)
{
    (void)arg, (void)e;
    launches_since_start++;
    total_launches++;
    return 0;
}

static void short_runs_are_timed_in_batches(void **state)
{
    (void)state;
    convt_backend be = {.timer_start = count_start, .timer_stop = count_stop,
                        .synchronize = fake_sync, .flush_cache = fake_flush};
    convt_measure_settings s = {.warmup = 1, .min_samples = 5, .max_samples = 20,
                                .max_time_s = 10, .target_noise = 0.005, .cold_cache = true,
                                .batch_below_us = 20};
    convt_timing t;
    convt_err e;
    assert_int_equal(convt_measure(&be, &s, count_launch, NULL, &t, &e), 0);
    assert_int_equal(t.batch, 128); /* 200 us per sample / 2 us = 100, up to a power of two */
    assert_true(fabs(t.median_ms - 0.002) < 1e-12); /* per launch, not per batch */
    s.batch_below_us = 1;                           /* 2 us is above: one launch per sample */
    assert_int_equal(convt_measure(&be, &s, count_launch, NULL, &t, &e), 0);
    assert_int_equal(t.batch, 1);
}

/* A launch well above the line: the third probe at or above it decides (the
 * median of five could not fall below), so a slow run spends three probe
 * launches, not five. 1 warm-up + 3 probes + 4 samples. */
static void slow_runs_stop_probing_once_decided(void **state)
{
    (void)state;
    convt_backend be = {.timer_start = count_start, .timer_stop = count_stop,
                        .synchronize = fake_sync, .flush_cache = fake_flush};
    convt_measure_settings s = {.warmup = 1, .min_samples = 4, .max_samples = 4,
                                .max_time_s = 10, .target_noise = 0.005, .cold_cache = true,
                                .batch_below_us = 1}; /* 2 us a launch: above */
    convt_timing t;
    convt_err e;
    int before = total_launches;
    assert_int_equal(convt_measure(&be, &s, count_launch, NULL, &t, &e), 0);
    assert_int_equal(t.batch, 1);
    assert_int_equal(total_launches - before, 1 + 3 + 4);
}

/* The batch decision is the median of several probes: one slow first launch
 * (25 us, over the 20 us line) does not stop a 15 us kernel from being
 * batched, as it did when one launch decided. */
static int probe_calls;
static int outlier_stop(double *ms, convt_err *e)
{
    (void)e;
    *ms = probe_calls++ == 0 ? 0.025 : 0.015 * launches_since_start;
    return 0;
}

static void one_slow_probe_does_not_decide_the_batch(void **state)
{
    (void)state;
    convt_backend be = {.timer_start = count_start, .timer_stop = outlier_stop,
                        .synchronize = fake_sync, .flush_cache = fake_flush};
    convt_measure_settings s = {.warmup = 0, .min_samples = 3, .max_samples = 3,
                                .max_time_s = 10, .target_noise = 0.005, .batch_below_us = 20};
    convt_timing t;
    convt_err e;
    probe_calls = 0;
    assert_int_equal(convt_measure(&be, &s, count_launch, NULL, &t, &e), 0);
    assert_int_equal(t.batch, 16); /* 200 / 15 = 13.3, up to a power of two */
    assert_true(fabs(t.median_ms - 0.015) < 1e-12);
}

/* A launch that synchronises inside: a held sample times out (NaN), an
 * unheld one takes 3 ms. The sample is thrown away and the run goes on
 * unheld, and says so. */
static bool last_hold;
static int hold_start(bool hold, convt_err *e)
{
    (void)e;
    last_hold = hold;
    return 0;
}
static int hold_stop(double *ms, convt_err *e)
{
    (void)e;
    *ms = last_hold ? NAN : 3.0;
    return 0;
}

static void a_sample_the_hold_gave_up_on_is_retimed_unheld(void **state)
{
    (void)state;
    convt_backend be = {.timer_start = hold_start, .timer_stop = hold_stop,
                        .synchronize = fake_sync, .flush_cache = fake_flush};
    convt_measure_settings s = {.warmup = 0, .min_samples = 5, .max_samples = 5,
                                .max_time_s = 10, .target_noise = 0.005, .batch_below_us = 20};
    convt_timing t;
    convt_err e;
    assert_int_equal(convt_measure(&be, &s, nop, NULL, &t, &e), 0);
    assert_false(t.held);
    assert_int_equal(t.samples, 5);
    assert_true(fabs(t.median_ms - 3.0) < 1e-12);
    s.batch_below_us = 0; /* no probe: the first sample meets the timeout */
    assert_int_equal(convt_measure(&be, &s, nop, NULL, &t, &e), 0);
    assert_false(t.held);
    assert_int_equal(t.samples, 5);
    be.timer_start = fake_start; /* an ordinary backend: held throughout */
    be.timer_stop = fake_stop;
    assert_int_equal(convt_measure(&be, &s, nop, NULL, &t, &e), 0);
    assert_true(t.held);
}

/* Clock readings, one before and one after each sample: every third sample
 * ends "throttled" at a lower clock, and reads full speed before it (the
 * clock is back up between samples). */
static int clock_reads;
static int fake_clock(convt_clock_reading *r)
{
    int i = clock_reads++;
    r->throttled = i % 6 == 5;
    r->sm_mhz = r->throttled ? 1500 : 1980;
    return 0;
}

static void clocks_and_throttling_are_recorded(void **state)
{
    (void)state;
    convt_backend be = {.timer_start = fake_start, .timer_stop = fake_stop,
                        .synchronize = fake_sync, .flush_cache = fake_flush,
                        .read_clock = fake_clock};
    for (int i = 0; i < 64; i++)
        fake_ms[i] = 1.0 + (i % 2); /* noisy: runs to max_samples */
    convt_measure_settings s = {.warmup = 0, .min_samples = 9, .max_samples = 9,
                                .max_time_s = 10, .target_noise = 0.005};
    convt_timing t;
    convt_err e;
    fake_at = 0;
    clock_reads = 0;
    assert_int_equal(convt_measure(&be, &s, nop, NULL, &t, &e), 0);
    assert_int_equal(clock_reads, 18);
    assert_int_equal(t.clock_samples, 9);
    assert_int_equal(t.throttled_samples, 3);
    assert_int_equal(t.sm_mhz_min, 1500);
    assert_int_equal(t.sm_mhz_max, 1980);
    be.read_clock = NULL; /* the CPU: nothing recorded */
    assert_int_equal(convt_measure(&be, &s, nop, NULL, &t, &e), 0);
    assert_int_equal(t.clock_samples, 0);
}

/* Rounds: the fake timer's level moves between rounds (as it does between
 * runs of a sweep) while the samples of one round agree. */
static int launches;
static int counted_nop(void *arg, convt_err *e) { (void)arg, (void)e; launches++; return 0; }

static void rounds_measure_the_spread_between_them(void **state)
{
    (void)state;
    convt_backend be = {.timer_start = fake_start, .timer_stop = fake_stop,
                        .synchronize = fake_sync, .flush_cache = fake_flush};
    const double level[4] = {1.00, 1.02, 0.98, 1.00};
    for (int i = 0; i < 8; i++)
        fake_ms[i] = level[i / 2];
    /* min_samples 5 over 4 rounds: 2 a round; max 8: 2 a round */
    convt_measure_settings s = {.warmup = 3, .min_samples = 5, .max_samples = 8,
                                .max_time_s = 10, .target_noise = 0.005, .rounds = 4};
    convt_timing t;
    convt_err e;
    fake_at = 0;
    launches = 0;
    assert_int_equal(convt_measure(&be, &s, counted_nop, NULL, &t, &e), 0);
    assert_int_equal(t.rounds, 4);
    assert_int_equal(t.samples, 8);
    assert_int_equal(launches, 3 + 3 * 1 + 8); /* full warm-up once, one launch in later rounds */
    for (int r = 0; r < 4; r++)
        assert_true(fabs(t.round_median_ms[r] - level[r]) < 1e-12);
    assert_true(fabs(t.median_ms - 1.0) < 1e-12);
    assert_true(t.noise_within < 1e-12); /* each round is quiet */
    double sd = sqrt((0.02 * 0.02 * 2) / 3);
    assert_true(fabs(t.noise_between - sd) < 1e-9);
    assert_true(fabs(t.noise - sd) < 1e-9);
    assert_false(t.target_met); /* 1.6% between rounds is above the 0.5% target */

    /* The same level in every round, noisy inside each: all within. */
    for (int i = 0; i < 8; i++)
        fake_ms[i] = i % 2 ? 1.01 : 0.99;
    fake_at = 0;
    assert_int_equal(convt_measure(&be, &s, nop, NULL, &t, &e), 0);
    assert_true(t.noise_between < 1e-12);
    assert_true(t.noise_within > 0.005);
    assert_true(fabs(t.noise - t.noise_within) < 1e-12);

    /* A caller that runs a round more than it asked for is told so. */
    convt_sampling acc;
    assert_int_equal(convt_sampling_init(&acc, &s, &e), 0);
    for (int r = 0; r < 4; r++)
        assert_int_equal(convt_measure_round(&be, &s, nop, NULL, &acc, &e), 0);
    assert_int_equal(convt_measure_round(&be, &s, nop, NULL, &acc, &e), -1);
    assert_non_null(strstr(e.msg, "rounds = 4"));
    convt_sampling_free(&acc);
}

/* The batch size is fixed by the first round: every round times the same
 * number of launches per sample. */
static void rounds_share_one_batch_size(void **state)
{
    (void)state;
    convt_backend be = {.timer_start = count_start, .timer_stop = count_stop,
                        .synchronize = fake_sync, .flush_cache = fake_flush};
    convt_measure_settings s = {.warmup = 1, .min_samples = 6, .max_samples = 6,
                                .max_time_s = 10, .target_noise = 0.005, .batch_below_us = 20,
                                .rounds = 3};
    convt_timing t;
    convt_err e;
    assert_int_equal(convt_measure(&be, &s, count_launch, NULL, &t, &e), 0);
    assert_int_equal(t.batch, 128);
    assert_int_equal(t.samples, 6);
    for (int r = 0; r < 3; r++)
        assert_true(fabs(t.round_median_ms[r] - 0.002) < 1e-12);
}

/* measure.prune judges a launch against its own variant's fastest only:
 * a slow variant keeps its best launch, NaN (a run with no samples) is left
 * alone, a launch at exactly prune times the best is kept, 0 prunes none. */
static void prune_compares_launches_of_one_variant(void **state)
{
    (void)state;
    /*                    variant 0        variant 1 (10x slower)  variant 0 */
    double first[] = {1.0, 1.6, 1.4, 10.0, 30.0, 14.9, 15.1, NAN, 0.9};
    int group[] = {0, 0, 0, 3, 3, 3, 3, 3, 0};
    enum { N = sizeof first / sizeof *first };
    bool stop[N];
    double best[N];
    assert_int_equal(convt_prune_runs(first, group, N, 1.5, stop, best), 4);
    bool want[N] = {false, true, true, false, true, false, true, false, false};
    for (int i = 0; i < N; i++) {
        assert_int_equal(stop[i], want[i]);
        assert_float_equal(best[i], group[i] == 0 ? 0.9 : 10.0, 0);
    }
    double tie[] = {2.0, 3.0};
    int one[] = {0, 0};
    assert_int_equal(convt_prune_runs(tie, one, 2, 1.5, stop, best), 0); /* 3.0 = 1.5 x 2.0: kept */
    assert_int_equal(convt_prune_runs(first, group, N, 0, stop, best), 0);
    double zero[] = {0.0, 0.5}; /* a timer too coarse to see the fastest: nothing to compare with */
    assert_int_equal(convt_prune_runs(zero, one, 2, 1.5, stop, best), 0);
}

/* The drift: a robust spread of the clock probe over the run. */
static void drift_is_the_spread_of_the_clock_probe(void **state)
{
    (void)state;
    convt_drift d;
    double steady[] = {1.0, 1.0, 1.0, 1.0};
    convt_drift_from_probes(steady, 4, &d);
    assert_int_equal(d.probes, 4);
    assert_true(d.relative == 0 && d.relative_sd == 0 && d.median_ms == 1.0);
    /* 20 probes, a third of the run one 15 MHz clock step lower (1980 -> 1965):
     * a state that lasts, so it counts */
    const double slow = 1980.0 / 1965;
    double stepped[20];
    for (int i = 0; i < 20; i++)
        stepped[i] = i % 3 == 0 ? slow : 1.0;
    convt_drift_from_probes(stepped, 20, &d);
    assert_true(fabs(d.relative - (slow - 1) / 2.563) < 1e-12);
    /* one probe that caught a momentary 12% power cap: the plain stddev
     * jumps, the robust spread does not */
    double capped[20];
    for (int i = 0; i < 20; i++)
        capped[i] = i == 7 ? 1.12 : 1.0;
    convt_drift_from_probes(capped, 20, &d);
    assert_true(d.relative == 0);
    assert_true(d.relative_sd > 0.02);
    convt_drift_from_probes(stepped, 2, &d); /* too few to say */
    assert_true(d.relative == 0 && d.relative_sd == 0);
    assert_true(fabs(convt_noise_total(0.003, 0.004, 0) - 0.005) < 1e-15);
    assert_true(fabs(convt_noise_total(0, 0.003, 0.004) - 0.005) < 1e-15);
}

/* Adding the drift to a results document updates every timed record. */
static void drift_is_added_to_every_timed_record(void **state)
{
    (void)state;
    cJSON *doc = cJSON_CreateObject();
    cJSON *recs = cJSON_AddArrayToObject(doc, "records");
    cJSON *r = cJSON_CreateObject();
    cJSON *t = cJSON_AddObjectToObject(r, "timing");
    cJSON_AddNumberToObject(t, "noise", 0.003);
    cJSON_AddNumberToObject(t, "noise_within", 0.003);
    cJSON_AddNumberToObject(t, "noise_between", 0.0);
    cJSON_AddBoolToObject(t, "target_met", true);
    cJSON_AddItemToArray(recs, r);
    cJSON *skipped = cJSON_CreateObject(); /* no timing: left alone */
    cJSON_AddStringToObject(skipped, "status", "skipped");
    cJSON_AddItemToArray(recs, skipped);
    convt_drift d = {.probes = 10, .median_ms = 1.0, .relative = 0.004, .relative_sd = 0.01};
    convt_results_add_drift(doc, &d, 0.0045);
    assert_true(fabs(cJSON_GetObjectItem(t, "noise")->valuedouble - 0.005) < 1e-15);
    assert_true(cJSON_GetObjectItem(t, "noise_drift")->valuedouble == 0.004);
    assert_true(cJSON_IsFalse(cJSON_GetObjectItem(t, "target_met"))); /* 0.5% > 0.45% */
    assert_null(cJSON_GetObjectItem(skipped, "timing"));
    assert_int_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "drift"), "probes")->valuedouble, 10);
    cJSON_Delete(doc);
}

static void results_write_is_atomic_and_complete(void **state)
{
    (void)state;
    char dir[256], path[512];
    temp_dir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/sub/dir/results.json", dir); /* directories made */
    cJSON *doc = cJSON_CreateObject();
    cJSON_AddStringToObject(doc, "tool", "convt-bench");
    convt_err e;
    assert_int_equal(convt_results_write(doc, path, &e), 0);
    cJSON_AddNumberToObject(doc, "second", 2);
    assert_int_equal(convt_results_write(doc, path, &e), 0); /* replaces */
    cJSON *back = read_json(path);
    assert_non_null(back);
    assert_non_null(cJSON_GetObjectItemCaseSensitive(back, "second"));
    cJSON_Delete(back);
    /* An unwritable place is an error with the path in it, not a crash. */
    assert_int_equal(convt_results_write(doc, "/proc/no/such/place.json", &e), -1);
    assert_non_null(strstr(e.msg, "/proc/no"));
    cJSON_Delete(doc);
}

static void floor_is_the_larger_of_two_limits(void **state)
{
    (void)state;
    convt_problem p = convt_problem_default(1);
    p.n = 1, p.cin = 1000, p.cout = 1000, p.in[0] = 1000, p.k[0] = 1;
    convt_ceilings c = {.copy_gbps = 1000, .gemm_gflops = {1000, 8000}};
    /* 2 GFLOP; 4*(1e6 + 1e6 + 1e6) = 12 MB -> 2 ms of math, 0.012 ms of memory */
    assert_true(fabs(convt_floor_ms(&p, CONVT_TIER_FP32, &c) - 2.0) < 1e-9);
    assert_true(fabs(convt_floor_ms(&p, CONVT_TIER_TF32, &c) - 0.25) < 1e-9);
    c.copy_gbps = 1; /* now memory-bound: 12 ms */
    assert_true(fabs(convt_floor_ms(&p, CONVT_TIER_TF32, &c) - 12.0) < 1e-9);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(timing_statistics),
        cmocka_unit_test(adaptive_sampling_stops_on_low_noise),
        cmocka_unit_test(short_runs_are_timed_in_batches),
        cmocka_unit_test(clocks_and_throttling_are_recorded),
        cmocka_unit_test(a_sample_the_hold_gave_up_on_is_retimed_unheld),
        cmocka_unit_test(rounds_measure_the_spread_between_them),
        cmocka_unit_test(rounds_share_one_batch_size),
        cmocka_unit_test(one_slow_probe_does_not_decide_the_batch),
        cmocka_unit_test(slow_runs_stop_probing_once_decided),
        cmocka_unit_test(prune_compares_launches_of_one_variant),
        cmocka_unit_test(drift_is_the_spread_of_the_clock_probe),
        cmocka_unit_test(drift_is_added_to_every_timed_record),
        cmocka_unit_test(results_write_is_atomic_and_complete),
        cmocka_unit_test(floor_is_the_larger_of_two_limits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
