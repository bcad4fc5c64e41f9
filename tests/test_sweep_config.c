/* Sweep files: the committed configs parse, cartesian sweeps and scalar
 * broadcasting expand as documented, and every malformed or invalid file
 * fed to the binary gets one clear message (file, JSON path, what was
 * expected) and exit status 2, with nothing run. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sweep_config.h"
#include "test_util.h"

static void committed_configs_parse(void **state)
{
    (void)state;
    const char *files[] = {"configs/sweep.json", "configs/kernelbench-l1.json", "configs/ci.json"};
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        char path[1024];
        source_path(files[i], path, sizeof path);
        convt_config cfg;
        convt_err e;
        if (convt_config_load(path, &cfg, &e))
            fail_msg("%s", e.msg);
        assert_true(cfg.n_shapes > 0);
        if (strstr(files[i], "kernelbench"))
            assert_int_equal(cfg.n_shapes, 17);
        convt_config_finish(&cfg);
    }
}

static void sweeps_expand_and_scalars_broadcast(void **state)
{
    (void)state;
    const char *text =
        "{\"sweeps\": [{\"name\": \"s\", \"base\": {\"n\": 1, \"cin\": 4, \"cout\": 4,"
        " \"in\": [8, 8], \"k\": 3, \"stride\": 2},"
        " \"axes\": {\"n\": [1, 2, 3], \"groups\": [1, 2, 4], \"pad\": [0, [1, 0]]}}]}";
    convt_config cfg;
    convt_err e;
    if (convt_config_parse(text, "inline.json", &cfg, &e))
        fail_msg("%s", e.msg);
    assert_int_equal(cfg.n_shapes, 18);
    const convt_problem *last = &cfg.shapes[17];
    assert_int_equal(last->n, 3);
    assert_int_equal(last->groups, 4);
    assert_int_equal(last->pad[0], 1);
    assert_int_equal(last->pad[1], 0);
    assert_int_equal(last->k[0], 3);      /* scalar k broadcast */
    assert_int_equal(last->k[1], 3);
    assert_int_equal(last->stride[1], 2);
    assert_int_equal(last->dil[1], 1);    /* defaults */
    assert_non_null(strstr(last->name, "n=3"));
    assert_string_equal(cfg.selection, "results/results.selection.json");
    convt_config_finish(&cfg);
}

static void launch_overrides_replace_defaults(void **state)
{
    (void)state;
    const char *text = "{\"variants\": [\"cpu_*\"], \"launch\": {\"cpu_gather\": {\"threads\": "
                       "[1, 2]}}, \"shapes\": [{\"n\": 1, \"cin\": 1, \"cout\": 1, \"in\": [4], "
                       "\"k\": [2]}], \"output\": \"out/r.json\"}";
    convt_config cfg;
    convt_err e;
    if (convt_config_parse(text, "inline.json", &cfg, &e))
        fail_msg("%s", e.msg);
    const convt_variant *g = convt_variant_find("cpu_gather");
    const convt_variant *s = convt_variant_find("cpu_scatter");
    const int64_t *vals;
    assert_int_equal(convt_config_knob_values(&cfg, g, 0, &vals), 2);
    assert_int_equal(vals[1], 2);
    assert_int_equal(convt_config_knob_values(&cfg, s, 0, &vals), 1); /* default */
    assert_true(convt_config_wants(&cfg, g));
    assert_string_equal(cfg.selection, "out/r.selection.json");
    convt_config_finish(&cfg);
}

/* A valid shape to build bad files around. */
#define SHAPE "{\"n\": 1, \"cin\": 4, \"cout\": 4, \"in\": [8, 8], \"k\": [3, 3]}"

static const struct bad_case {
    const char *content;   /* NULL: the file does not exist */
    const char *expect;    /* must appear in the message */
} bad_cases[] = {
    {NULL, "cannot open: No such file"},
    {"", "the file is empty"},
    {"{\"shapes\": [" SHAPE ",]}", ":1:"},                       /* trailing comma: line:col */
    {"{\n  \"seed\": 1,\n  \"shapes\" [1]\n}", ":3:"},            /* syntax error on line 3 */
    {"[1, 2]", "expected a JSON object at the top level"},
    {"{\"shapes\": [" SHAPE "], \"sede\": 1}", "unknown key \"sede\""},
    {"{\"shapes\": []}", "no shapes"},
    {"{\"shapes\": [{\"n\": 1, \"cin\": 4, \"in\": [8], \"k\": [3]}]}",
     "shapes[0]: missing required key \"cout\""},
    {"{\"shapes\": [" SHAPE ", {\"n\": 1, \"cin\": 4, \"cout\": 4, \"in\": [8, 8], \"k\": [3, 3], "
     "\"stride\": [1, 0]}]}",
     "shapes[1].stride[1]: expected an integer >= 1, got 0"},
    {"{\"shapes\": [{\"n\": 1, \"cin\": 4, \"cout\": 4, \"in\": [8, 8], \"k\": [3, 3, 3]}]}",
     "shapes[0].k: expected 2 values (one per spatial dimension), got 3"},
    {"{\"shapes\": [{\"n\": 1.5, \"cin\": 4, \"cout\": 4, \"in\": [8], \"k\": [3]}]}",
     "shapes[0].n: expected an integer >= 1, got 1.5"},
    {"{\"shapes\": [{\"n\": \"8\", \"cin\": 4, \"cout\": 4, \"in\": [8], \"k\": [3]}]}",
     "shapes[0].n: expected an integer >= 1, got the string \"8\""},
    {"{\"shapes\": [{\"n\": 1, \"cin\": 4, \"cout\": 6, \"groups\": 4, \"in\": [8], \"k\": [3]}]}",
     "shapes[0]: groups = 4 must divide cout = 6"},
    {"{\"shapes\": [{\"n\": 1, \"cin\": 4, \"cout\": 4, \"in\": [8], \"k\": [3], \"out_pad\": [1]}]}",
     "shapes[0]: out_pad[0] = 1 must be smaller than stride[0] = 1 or dil[0] = 1"},
    {"{\"shapes\": [{\"n\": 1, \"cin\": 4, \"cout\": 4, \"in\": [1], \"k\": [1], \"pad\": [2]}]}",
     "output size along dimension 0"},
    {"{\"shapes\": [{\"n\": 1, \"cin\": 4, \"cout\": 4, \"in\": [8], \"k\": [3], \"bias\": 1}]}",
     "shapes[0].bias: expected true or false, got 1"},
    {"{\"shapes\": [{\"n\": 1, \"cin\": 4, \"cout\": 4, \"in\": [8], \"k\": [3], \"kernel\": 3}]}",
     "shapes[0]: unknown key \"kernel\""},
    {"{\"shapes\": [{\"n\": 1, \"cin\": 4, \"cout\": 4, \"in\": [8, 8, 8, 8], \"k\": 3}]}",
     "shapes[0].in: expected an array of 1 to 3 sizes"},
    {"{\"shapes\": [{\"n\": 1, \"n\": 2, \"cin\": 4, \"cout\": 4, \"in\": [8], \"k\": [3]}]}",
     "key \"n\" appears twice"},
    {"{\"variants\": [\"gathr\"], \"shapes\": [" SHAPE "]}",
     "variants[0]: \"gathr\" matches no variant"},
    {"{\"launch\": {\"cpu_gather\": {\"blok\": [1]}}, \"shapes\": [" SHAPE "]}",
     "launch.cpu_gather.blok: variant \"cpu_gather\" has no knob \"blok\" (its knobs: threads)"},
    {"{\"launch\": {\"nosuch\": {\"block\": [1]}}, \"shapes\": [" SHAPE "]}",
     "launch.nosuch: no variant named \"nosuch\""},
    {"{\"launch\": {\"cpu_gather\": {\"threads\": [-1]}}, \"shapes\": [" SHAPE "]}",
     "launch.cpu_gather.threads[0]: expected an integer in [0, 2147483647], got -1"},
    {"{\"measure\": {\"max_samples\": 2, \"min_samples\": 5}, \"shapes\": [" SHAPE "]}",
     "measure.max_samples: 2 is below min_samples = 5"},
    {"{\"measure\": {\"rounds\": 0}, \"shapes\": [" SHAPE "]}",
     "measure.rounds: expected an integer in [1, 16], got 0"},
    {"{\"measure\": {\"cache\": \"lukewarm\"}, \"shapes\": [" SHAPE "]}",
     "measure.cache: expected \"cold\" or \"warm\", got \"lukewarm\""},
    {"{\"validation\": {\"tolerance\": {\"fp16\": {}}}, \"shapes\": [" SHAPE "]}",
     "validation.tolerance: unknown key \"fp16\""},
    {"{\"validation\": {\"tolerance\": {\"fp32\": {\"rtol\": -1}}}, \"shapes\": [" SHAPE "]}",
     "validation.tolerance.fp32.rtol: expected a number >= 0"},
    {"{\"backend\": \"tpu\", \"shapes\": [" SHAPE "]}",
     "backend: expected \"auto\", \"cpu\" or \"cuda\", got \"tpu\""},
    {"{\"sweeps\": [{\"base\": " SHAPE ", \"axes\": {\"stride\": [1, 2], \"out_pad\": [0, 1]}}]}",
     "sweeps[0] (stride=1, out_pad=1): out_pad[0] = 1 must be smaller"},
    {"{\"sweeps\": [{\"base\": " SHAPE ", \"axes\": {\"name\": [\"a\"]}}]}",
     "sweeps[0].axes.name: not a shape parameter"},
    {"{\"sweeps\": [{\"base\": " SHAPE ", \"axes\": {\"n\": []}}]}",
     "sweeps[0].axes.n: expected a non-empty array of values, got an array"},
    {"{\"random\": {\"count\": 0}}", "random.count: expected an integer in [1, 100000], got 0"},
    {"{\"random\": {\"count\": 5, \"dims\": [4]}}", "random.dims[0]: expected an integer in [1, 3]"},
    {"{\"output\": 5, \"shapes\": [" SHAPE "]}", "output: expected a non-empty string, got 5"},
};

static void bad_configs_get_clear_messages(void **state)
{
    (void)state;
    char dir[256];
    temp_dir(dir, sizeof dir);
    size_t n = sizeof bad_cases / sizeof *bad_cases;
    assert_true(n >= 20);
    for (size_t i = 0; i < n; i++) {
        char path[512], args[1024];
        snprintf(path, sizeof path, "%s/bad%02zu.json", dir, i);
        if (bad_cases[i].content)
            write_file(path, bad_cases[i].content);
        snprintf(args, sizeof args, "--backend cpu --config %s --out %s/never.json", path, dir);
        char *out;
        int status = run_bench(args, &out);
        if (status != 2 || !strstr(out, bad_cases[i].expect) || !strstr(out, path))
            fail_msg("case %zu: exit %d, output:\n%s\nexpected exit 2, the file name and \"%s\"",
                     i, status, out, bad_cases[i].expect);
        /* One message, nothing run, nothing written. */
        assert_null(strstr(out, "ok,"));
        char never[512];
        snprintf(never, sizeof never, "%s/never.json", dir);
        assert_null(read_file(never));
        free(out);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(committed_configs_parse),
        cmocka_unit_test(sweeps_expand_and_scalars_broadcast),
        cmocka_unit_test(launch_overrides_replace_defaults),
        cmocka_unit_test(bad_configs_get_clear_messages),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
