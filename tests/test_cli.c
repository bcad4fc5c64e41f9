/* The binary end to end on the CPU backend: help, version, list, dry run, a
 * real sweep whose results and selection are read back, --dump. */
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

#include "npy.h"
#include "test_util.h"

static char dir[256];

static void help_version_list(void **state)
{
    (void)state;
    char *out;
    assert_int_equal(run_bench("--help", &out), 0);
    assert_non_null(strstr(out, "--config FILE"));
    assert_non_null(strstr(out, "exit status"));
    free(out);
    assert_int_equal(run_bench("--version", &out), 0);
    assert_non_null(strstr(out, "convt-bench 0."));
    free(out);
    assert_int_equal(run_bench("--list", &out), 0);
    assert_non_null(strstr(out, "cpu_gather"));
    assert_non_null(strstr(out, "knob threads"));
    free(out);
    assert_int_equal(run_bench("", &out), 2); /* no config: usage, exit 2 */
    assert_non_null(strstr(out, "no --config given"));
    free(out);
    assert_int_equal(run_bench("--frobnicate", &out), 2);
    free(out);
}

static const char *tiny =
    "{\"variants\": [\"cpu_*\"], \"seed\": 5,"
    " \"measure\": {\"warmup\": 1, \"min_samples\": 3, \"max_samples\": 5, \"max_time_s\": 0.2,"
    " \"rounds\": 3},"
    " \"validation\": {\"trials\": 2},"
    " \"launch\": {\"cpu_gather\": {\"threads\": [1, 2]}},"
    " \"shapes\": [{\"name\": \"one\", \"n\": 2, \"cin\": 4, \"cout\": 6, \"groups\": 2,"
    " \"in\": [9, 7], \"k\": [3, 2], \"stride\": [2, 1], \"pad\": [1, 0], \"out_pad\": [1, 0],"
    " \"dil\": [1, 2], \"bias\": true},"
    " {\"name\": \"two\", \"n\": 1, \"cin\": 3, \"cout\": 3, \"in\": [20], \"k\": [4], \"stride\": 3}]}";

static void dry_run_lists_the_plan(void **state)
{
    (void)state;
    char cfg[512], args[1024], *out;
    snprintf(cfg, sizeof cfg, "%s/tiny.json", dir);
    write_file(cfg, tiny);
    snprintf(args, sizeof args, "--backend cpu --config %s --dry-run --out %s/dry.json", cfg, dir);
    assert_int_equal(run_bench(args, &out), 0);
    assert_non_null(strstr(out, "6 runs planned")); /* 2 shapes x (2 + 1) launches */
    assert_non_null(strstr(out, "threads=2"));
    free(out);
}

static void a_sweep_records_everything(void **state)
{
    (void)state;
    char cfg[512], args[1024], path[512], *out;
    snprintf(cfg, sizeof cfg, "%s/tiny.json", dir);
    write_file(cfg, tiny);
    snprintf(args, sizeof args, "--backend cpu --config %s --out %s/r.json --dump %s/dump", cfg,
             dir, dir);
    int st = run_bench(args, &out);
    if (st != 0)
        fail_msg("exit %d:\n%s", st, out);
    assert_non_null(strstr(out, "6 ok, 0 skipped, 0 failed, 0 wrong"));
    free(out);
    snprintf(path, sizeof path, "%s/r.json", dir);
    cJSON *doc = read_json(path);
    assert_non_null(doc);
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(doc, "backend")->valuestring, "cpu");
    assert_non_null(cJSON_GetObjectItemCaseSensitive(doc, "config"));
    assert_non_null(cJSON_GetObjectItemCaseSensitive(doc, "git_revision"));
    const cJSON *ceil = cJSON_GetObjectItemCaseSensitive(doc, "ceilings");
    assert_true(cJSON_GetObjectItemCaseSensitive(ceil, "copy_gbps")->valuedouble > 0);
    /* the clock probe: once at the start of each of 3 rounds of 2 shapes */
    const cJSON *run_drift = cJSON_GetObjectItemCaseSensitive(doc, "drift");
    assert_int_equal(cJSON_GetObjectItemCaseSensitive(run_drift, "probes")->valuedouble, 6);
    assert_true(cJSON_GetObjectItemCaseSensitive(run_drift, "median_ms")->valuedouble > 0);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(run_drift, "probe_ms")), 6);
    const cJSON *recs = cJSON_GetObjectItemCaseSensitive(doc, "records");
    assert_int_equal(cJSON_GetArraySize(recs), 6);
    for (const cJSON *r = recs->child; r; r = r->next) {
        assert_string_equal(cJSON_GetObjectItemCaseSensitive(r, "status")->valuestring, "ok");
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(r, "validation");
        assert_int_equal(cJSON_GetObjectItemCaseSensitive(v, "trials")->valuedouble, 2);
        assert_true(cJSON_GetObjectItemCaseSensitive(v, "normwise_rel_err")->valuedouble < 1e-5);
        const cJSON *t = cJSON_GetObjectItemCaseSensitive(r, "timing");
        double med = cJSON_GetObjectItemCaseSensitive(t, "median_ms")->valuedouble;
        double mn = cJSON_GetObjectItemCaseSensitive(t, "min_ms")->valuedouble;
        double mx = cJSON_GetObjectItemCaseSensitive(t, "max_ms")->valuedouble;
        assert_true(mn > 0 && mn <= med && med <= mx);
        assert_true(cJSON_GetObjectItemCaseSensitive(t, "samples")->valuedouble >= 3);
        /* three rounds, each on buffers moved to new memory, each with its median */
        assert_int_equal(cJSON_GetObjectItemCaseSensitive(t, "rounds")->valuedouble, 3);
        assert_int_equal(cJSON_GetObjectItemCaseSensitive(t, "placements")->valuedouble, 3);
        const cJSON *rm = cJSON_GetObjectItemCaseSensitive(t, "round_median_ms");
        assert_int_equal(cJSON_GetArraySize(rm), 3);
        for (const cJSON *m = rm->child; m; m = m->next)
            assert_true(m->valuedouble >= mn && m->valuedouble <= mx);
        double noise = cJSON_GetObjectItemCaseSensitive(t, "noise")->valuedouble;
        double within = cJSON_GetObjectItemCaseSensitive(t, "noise_within")->valuedouble;
        double between = cJSON_GetObjectItemCaseSensitive(t, "noise_between")->valuedouble;
        double drift = cJSON_GetObjectItemCaseSensitive(t, "noise_drift")->valuedouble;
        assert_true(drift == cJSON_GetObjectItemCaseSensitive(
                                 cJSON_GetObjectItemCaseSensitive(doc, "drift"), "relative")
                                 ->valuedouble);
        assert_true(fabs(noise * noise - within * within - between * between - drift * drift) <=
                    1e-12 + 1e-9 * noise);
        assert_non_null(cJSON_GetObjectItemCaseSensitive(r, "floor_fraction"));
        assert_non_null(cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(r, "shape"), "key"));
    }
    cJSON_Delete(doc);
    snprintf(path, sizeof path, "%s/r.selection.json", dir);
    cJSON *sel = read_json(path);
    assert_non_null(sel);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(sel, "selections")), 2);
    cJSON_Delete(sel);
    /* --dump: the inputs and every output, readable as .npy */
    convt_npy_type type;
    void *data;
    int ndim;
    int64_t shape[8];
    convt_err e;
    snprintf(path, sizeof path, "%s/dump/one/x.npy", dir);
    assert_int_equal(convt_npy_read(path, &type, &data, &ndim, shape, &e), 0);
    assert_int_equal(ndim, 4);
    assert_int_equal(shape[0], 2);
    assert_int_equal(shape[3], 7);
    free(data);
    snprintf(path, sizeof path, "%s/dump/one/cpu_gather__threads_2.npy", dir);
    assert_int_equal(convt_npy_read(path, &type, &data, &ndim, shape, &e), 0);
    assert_int_equal(shape[1], 6);
    free(data);
}

/* A step that outlives measure.hang_timeout_s ends the run with status 3 and
 * a message naming the run and the results file; earlier shapes are kept. */
static void watchdog_turns_a_hang_into_exit_3(void **state)
{
    (void)state;
    char cfg[512], args[1024], path[512], *out;
    snprintf(cfg, sizeof cfg, "%s/hang.json", dir);
    write_file(cfg, "{\"variants\": [\"cpu_gather\"], \"measure\": {\"hang_timeout_s\": 0.3,"
                    " \"max_time_s\": 0.05, \"max_samples\": 2, \"min_samples\": 1, \"cache\": \"warm\"},"
                    " \"shapes\": [{\"name\": \"quick\", \"n\": 1, \"cin\": 2, \"cout\": 2, \"in\": [8], \"k\": [3]},"
                    " {\"name\": \"slow\", \"n\": 4, \"cin\": 64, \"cout\": 64, \"in\": [96, 96], \"k\": [5, 5]}]}");
    snprintf(args, sizeof args, "--backend cpu --config %s --out %s/hang-r.json", cfg, dir);
    int st = run_bench(args, &out);
    if (st != 3 || !strstr(out, "did not finish within") || !strstr(out, "of slow"))
        fail_msg("exit %d:\n%s", st, out);
    free(out);
    snprintf(path, sizeof path, "%s/hang-r.json", dir);
    cJSON *doc = read_json(path); /* the quick shape was recorded before the hang */
    assert_non_null(doc);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(doc, "records")), 1);
    cJSON_Delete(doc);
}

int main(void)
{
    temp_dir(dir, sizeof dir);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(help_version_list),
        cmocka_unit_test(dry_run_lists_the_plan),
        cmocka_unit_test(a_sweep_records_everything),
        cmocka_unit_test(watchdog_turns_a_hang_into_exit_3),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
