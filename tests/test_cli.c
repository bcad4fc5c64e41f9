/* The binary end to end on the CPU backend: help, version, list, dry run, a
 * real sweep whose results and selection are read back, --dump. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <cjson/cJSON.h>
#include <glob.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "npy.h"
#include "test_util.h"
#include "variant.h"

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

/* A step that outlives measure.hang_timeout_s costs its own runs, not the
 * sweep: the orchestrator kills the worker, records why (the step and the
 * shape) and goes on; the sweep exits 1 (a run failed). Here the hang is the
 * slow shape's float64 reference, so all of that shape's runs pay. */
static void a_hang_costs_its_runs_not_the_sweep(void **state)
{
    (void)state;
    char cfg[512], args[1024], path[512], *out;
    snprintf(cfg, sizeof cfg, "%s/hang.json", dir);
    write_file(cfg, "{\"variants\": [\"cpu_gather\"], \"measure\": {\"hang_timeout_s\": 1.5,"
                    " \"max_time_s\": 0.05, \"max_samples\": 2, \"min_samples\": 1, \"cache\": \"warm\"},"
                    " \"validation\": {\"cpu_reference_max_gflop\": 100},"
                    " \"shapes\": [{\"name\": \"slow\", \"n\": 4, \"cin\": 64, \"cout\": 64, \"in\": [96, 96], \"k\": [5, 5]},"
                    " {\"name\": \"quick\", \"n\": 1, \"cin\": 2, \"cout\": 2, \"in\": [8], \"k\": [3]}]}");
    snprintf(args, sizeof args, "--backend cpu --config %s --out %s/hang-r.json", cfg, dir);
    int st = run_bench(args, &out);
    if (st != 1 || !strstr(out, "hung: no progress for 1.5 s in the reference of slow"))
        fail_msg("exit %d:\n%s", st, out);
    free(out);
    snprintf(path, sizeof path, "%s/hang-r.json", dir);
    cJSON *doc = read_json(path); /* both shapes, the quick one after the hang */
    assert_non_null(doc);
    const cJSON *recs = cJSON_GetObjectItemCaseSensitive(doc, "records");
    assert_int_equal(cJSON_GetArraySize(recs), 2);
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(recs, 0), "status")->valuestring,
                        "failed");
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(recs, 1), "status")->valuestring,
                        "ok");
    cJSON_Delete(doc);
}

/* A knob value beyond what the variant can run is a skip with the variant's
 * reason, never a crash: 100000 OpenMP threads overflowed libgomp's stack. */
static void too_many_threads_is_a_skip(void **state)
{
    (void)state;
    char cfg[512], args[1024], path[512], *out;
    snprintf(cfg, sizeof cfg, "%s/threads.json", dir);
    write_file(cfg, "{\"launch\":{\"cpu_gather\":{\"threads\":100000}},"
                    "\"shapes\":[{\"n\":1,\"cin\":1,\"cout\":1,\"in\":[1],\"k\":[1]}]}");
    snprintf(args, sizeof args, "--backend cpu --config %s --out %s/threads-r.json", cfg, dir);
    int st = run_bench(args, &out);
    if (st != 0 || !strstr(out, "threads = 100000 is above"))
        fail_msg("exit %d:\n%s", st, out);
    free(out);
    snprintf(path, sizeof path, "%s/threads-r.json", dir);
    cJSON *doc = read_json(path);
    assert_non_null(doc);
    int skipped = 0;
    const cJSON *r;
    cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(doc, "records"))
    {
        const char *v = cJSON_GetObjectItemCaseSensitive(r, "variant")->valuestring;
        const char *status = cJSON_GetObjectItemCaseSensitive(r, "status")->valuestring;
        if (strcmp(v, "cpu_gather"))
            continue;
        assert_string_equal(status, "skipped");
        assert_non_null(strstr(cJSON_GetObjectItemCaseSensitive(r, "reason")->valuestring,
                               "threads = 100000 is above"));
        skipped++;
    }
    assert_int_equal(skipped, 1);
    cJSON_Delete(doc);
    /* the check that the results can be written left no probe file */
    char probes[600];
    snprintf(probes, sizeof probes, "%s/*.probe.*", dir);
    glob_t g;
    assert_int_equal(glob(probes, 0, NULL, &g), GLOB_NOMATCH);
}

/* Paths the sweep would write over what it must not: refused with exit 2
 * before anything runs, and the config is left as it was. */
static void outputs_never_overwrite_the_config(void **state)
{
    (void)state;
    char cfg[512], args[1400], *out;
    snprintf(cfg, sizeof cfg, "%s/self.json", dir);
    const char *text = "{\"variants\": [\"cpu_gather\"], "
                       "\"shapes\": [{\"n\": 1, \"cin\": 1, \"cout\": 1, \"in\": [4], \"k\": [2]}]}";
    write_file(cfg, text);
    static const struct {
        const char *out;   /* --out, under the directory; "" gives --out '' */
        const char *extra;
        const char *expect;
    } cases[] = {
        {"self.json", "", "is the config file"},
        {"./self.json", "", "is the config file"},
        {"self.json", "--dry-run", "is the config file"},
        {"", "", "--out: an empty path"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char outarg[700] = "''";
        if (cases[i].out[0])
            snprintf(outarg, sizeof outarg, "%s/%s", dir, cases[i].out);
        snprintf(args, sizeof args, "--backend cpu --config %s --out %s %s", cfg, outarg,
                 cases[i].extra);
        int st = run_bench(args, &out);
        if (st != 2 || !strstr(out, cases[i].expect))
            fail_msg("%s: exit %d:\n%s\nexpected exit 2 and \"%s\"", args, st, out,
                     cases[i].expect);
        free(out);
        char *now = read_file(cfg);
        assert_non_null(now);
        assert_string_equal(now, text);
        free(now);
    }
    /* the config's own "output" naming the config file */
    char own[1024];
    snprintf(cfg, sizeof cfg, "%s/own-output.json", dir);
    snprintf(own, sizeof own, "{\"output\": \"%s\", \"variants\": [\"cpu_gather\"], \"shapes\": "
                              "[{\"n\": 1, \"cin\": 1, \"cout\": 1, \"in\": [4], \"k\": [2]}]}",
             cfg);
    write_file(cfg, own);
    snprintf(args, sizeof args, "--backend cpu --config %s", cfg);
    int st = run_bench(args, &out);
    if (st != 2 || !strstr(out, "own-output.json: output: the results file"))
        fail_msg("exit %d:\n%s", st, out);
    free(out);
    char *now = read_file(cfg);
    assert_string_equal(now, own);
    free(now);
}

/* An output nobody can write is found before the first shape is measured:
 * exit 3 naming the path given; the dry run, which writes nothing, runs. */
static void unwritable_results_fail_before_any_work(void **state)
{
    (void)state;
    char cfg[512], blocker[512], args[1400], *out;
    snprintf(cfg, sizeof cfg, "%s/tiny.json", dir);
    write_file(cfg, tiny);
    /* a regular file where a directory should be: not writable, even for root */
    snprintf(blocker, sizeof blocker, "%s/a-file", dir);
    write_file(blocker, "");
    snprintf(args, sizeof args, "--backend cpu --config %s --out %s/sub/r.json", cfg, blocker);
    int st = run_bench(args, &out);
    if (st != 3 || !strstr(out, "results not writable") || !strstr(out, "a-file/sub/r.json"))
        fail_msg("exit %d:\n%s", st, out);
    assert_null(strstr(out, "measuring")); /* nothing measured, not even the ceilings */
    assert_null(strstr(out, "ok,"));
    free(out);
    snprintf(args, sizeof args, "--backend cpu --config %s --out %s/sub/r.json --dry-run", cfg,
             blocker);
    st = run_bench(args, &out);
    if (st != 0 || !strstr(out, "runs planned"))
        fail_msg("dry run: exit %d:\n%s", st, out);
    free(out);
}

/* --seed takes every 64-bit seed and nothing else. */
static void seeds_are_exact_64_bit_integers(void **state)
{
    (void)state;
    char cfg[512], args[1024], *out;
    snprintf(cfg, sizeof cfg, "%s/tiny.json", dir);
    write_file(cfg, tiny);
    static const char *const bad[] = {"-1", "18446744073709551616", "1e3", "+5", " 5", "0x10",
                                      "12abc"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        snprintf(args, sizeof args, "--backend cpu --config %s --dry-run --seed '%s'", cfg,
                 bad[i]);
        int st = run_bench(args, &out);
        if (st != 2 || !strstr(out, "--seed: expected an integer in [0, 18446744073709551615]"))
            fail_msg("--seed '%s': exit %d:\n%s", bad[i], st, out);
        free(out);
    }
    snprintf(args, sizeof args, "--backend cpu --config %s --dry-run --seed 18446744073709551615",
             cfg);
    int st = run_bench(args, &out);
    if (st != 0)
        fail_msg("exit %d:\n%s", st, out);
    free(out);
}

/* A shape whose input has one position along a dimension runs, for the
 * project's own variants, as its equivalent of a wider stride
 * (convt_problem_equivalent): each record validated against the float64
 * reference of the shape as written, which the record keeps as "shape",
 * with the form the variant was given as "ran_as". A shape without such a
 * dimension has no "ran_as". */
static void a_one_position_input_runs_as_its_equivalent(void **state)
{
    (void)state;
    static const char *cfg_text =
        "{\"variants\": [\"cpu_*\"], \"seed\": 3,"
        " \"measure\": {\"warmup\": 1, \"min_samples\": 3, \"max_samples\": 3},"
        " \"shapes\": [{\"name\": \"latent\", \"n\": 2, \"cin\": 5, \"cout\": 3,"
        " \"in\": [1, 1], \"k\": [4, 3], \"stride\": [1, 2], \"pad\": [0, 1], \"bias\": true},"
        " {\"name\": \"dilated\", \"n\": 1, \"cin\": 4, \"cout\": 2, \"in\": [1], \"k\": [5],"
        " \"dil\": [2], \"out_pad\": [1]},"
        " {\"name\": \"longer\", \"n\": 1, \"cin\": 2, \"cout\": 2, \"in\": [3], \"k\": [4]}]}";
    char cfg[512], args[1024], path[512], *out;
    snprintf(cfg, sizeof cfg, "%s/one_position.json", dir);
    write_file(cfg, cfg_text);
    snprintf(args, sizeof args, "--backend cpu --config %s --out %s/one_position_out.json", cfg, dir);
    int st = run_bench(args, &out);
    if (st != 0)
        fail_msg("exit %d:\n%s", st, out);
    /* the selection table says which winners ran the equivalent */
    if (!strstr(out, "ran the shape's equivalent at stride 4x3") ||
        !strstr(out, "ran the shape's equivalent at stride 9") ||
        strstr(out, "longer fp32: cpu_"))
        fail_msg("the table's notes of equivalents:\n%s", out);
    free(out);
    snprintf(path, sizeof path, "%s/one_position_out.json", dir);
    cJSON *doc = read_json(path);
    assert_non_null(doc);
    int seen[3] = {0};
    const cJSON *recs = cJSON_GetObjectItemCaseSensitive(doc, "records");
    for (const cJSON *r = recs->child; r; r = r->next) {
        assert_string_equal(cJSON_GetObjectItemCaseSensitive(r, "status")->valuestring, "ok");
        const cJSON *shape = cJSON_GetObjectItemCaseSensitive(r, "shape");
        const char *name = cJSON_GetObjectItemCaseSensitive(shape, "name")->valuestring;
        const cJSON *as = cJSON_GetObjectItemCaseSensitive(r, "ran_as");
        const cJSON *stride = cJSON_GetObjectItemCaseSensitive(shape, "stride");
        const cJSON *as_stride = cJSON_GetObjectItemCaseSensitive(as, "stride");
        if (!strcmp(name, "latent")) {
            seen[0]++;
            assert_int_equal(cJSON_GetArrayItem(stride, 0)->valuedouble, 1);
            assert_int_equal(cJSON_GetArrayItem(stride, 1)->valuedouble, 2);
            assert_non_null(as_stride);
            assert_int_equal(cJSON_GetArrayItem(as_stride, 0)->valuedouble, 4);
            assert_int_equal(cJSON_GetArrayItem(as_stride, 1)->valuedouble, 3);
        } else if (!strcmp(name, "dilated")) {
            seen[1]++;
            assert_non_null(as_stride);
            assert_int_equal(cJSON_GetArrayItem(as_stride, 0)->valuedouble, 9); /* 2 x 4 + 1 */
        } else {
            seen[2]++;
            assert_null(as);
        }
    }
    for (int i = 0; i < 3; i++)
        assert_true(seen[i] >= 2); /* cpu_gather and cpu_scatter, at least */
    cJSON_Delete(doc);
}

/* Every committed config plans on every build: a variant this binary was
 * built without (all the CUDA ones, without the CUDA Toolkit) is noted and
 * skipped, never an error. */
static void committed_configs_dry_run(void **state)
{
    (void)state;
    char pattern[1024];
    source_path("configs/*.json", pattern, sizeof pattern);
    glob_t g;
    assert_int_equal(glob(pattern, 0, NULL, &g), 0);
    assert_true(g.gl_pathc >= 8);
    for (size_t i = 0; i < g.gl_pathc; i++) {
        char args[2048], *out;
        snprintf(args, sizeof args, "--backend cpu --config %s --dry-run", g.gl_pathv[i]);
        int st = run_bench(args, &out);
        if (st != 0 || !strstr(out, "planned"))
            fail_msg("%s: exit %d:\n%s", g.gl_pathv[i], st, out);
        if (!convt_variant_find("polyphase_igemm_tf32") && strstr(g.gl_pathv[i], "polyphase") &&
            !strstr(out, "matches only variants this binary was built without"))
            fail_msg("%s: no note of the variants not built:\n%s", g.gl_pathv[i], out);
        free(out);
    }
    globfree(&g);
}

int main(void)
{
    temp_dir(dir, sizeof dir);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(help_version_list),
        cmocka_unit_test(dry_run_lists_the_plan),
        cmocka_unit_test(a_sweep_records_everything),
        cmocka_unit_test(too_many_threads_is_a_skip),
        cmocka_unit_test(outputs_never_overwrite_the_config),
        cmocka_unit_test(unwritable_results_fail_before_any_work),
        cmocka_unit_test(seeds_are_exact_64_bit_integers),
        cmocka_unit_test(committed_configs_dry_run),
        cmocka_unit_test(a_one_position_input_runs_as_its_equivalent),
        cmocka_unit_test(a_hang_costs_its_runs_not_the_sweep),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
