/* Sweep files: the committed configs parse, cartesian sweeps and scalar
 * broadcasting expand as documented, and every malformed or invalid file
 * fed to the binary gets one clear message (file, JSON path, what was
 * expected) and exit status 2, with nothing run. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sweep_config.h"
#include "test_util.h"

/* Every committed config, on every build: one naming variants this binary
 * was built without (the CUDA ones, without the CUDA Toolkit) parses, with
 * a note of what is skipped. */
static void committed_configs_parse(void **state)
{
    (void)state;
    char pattern[1024];
    source_path("configs/*.json", pattern, sizeof pattern);
    glob_t g;
    assert_int_equal(glob(pattern, 0, NULL, &g), 0);
    assert_true(g.gl_pathc >= 8);
    for (size_t i = 0; i < g.gl_pathc; i++) {
        convt_config cfg;
        convt_err e;
        if (convt_config_load(g.gl_pathv[i], &cfg, &e))
            fail_msg("%s", e.msg);
        assert_true(cfg.n_shapes > 0);
        if (strstr(g.gl_pathv[i], "/kernelbench"))
            assert_int_equal(cfg.n_shapes, 17);
        convt_config_finish(&cfg);
    }
    globfree(&g);
}

/* A variant of the project that this build lacks is a note (file, JSON path,
 * what the build needs), not an error; its launch knobs are not used. */
static void variants_not_built_are_skipped_with_a_note(void **state)
{
    (void)state;
    const char *text = "{\"variants\": [\"polyphase*\", \"cpu_gather\"],"
                       " \"launch\": {\"polyphase_igemm_tf32\": {\"tile\": [5]}},"
                       " \"shapes\": [{\"n\": 1, \"cin\": 1, \"cout\": 1, \"in\": [4], \"k\": [2]}]}";
    convt_config cfg;
    convt_err e;
    if (convt_config_parse(text, "inline.json", &cfg, &e))
        fail_msg("%s", e.msg);
    const convt_variant *poly = convt_variant_find("polyphase_igemm_tf32");
    if (poly) {
        assert_int_equal(cfg.n_notes, 0);
        const int64_t *vals;
        assert_int_equal(convt_config_knob_values(&cfg, poly, 0, &vals), 1);
        assert_int_equal(vals[0], 5);
    } else {
        assert_int_equal(cfg.n_notes, 2);
        assert_non_null(strstr(cfg.notes[0], "inline.json: variants[0]: \"polyphase*\" matches "
                                             "only variants this binary was built without: "
                                             "polyphase_igemm_tf32, polyphase_igemm_3xtf32 (need "
                                             "the CUDA Toolkit)"));
        assert_non_null(strstr(cfg.notes[1], "launch.polyphase_igemm_tf32: variant "
                                             "\"polyphase_igemm_tf32\" is not built into this "
                                             "binary (it needs the CUDA Toolkit)"));
    }
    assert_int_equal(cfg.n_patterns, 2);
    convt_config_finish(&cfg);
}

/* Seeds reach the results exactly: up to 2^53 - 1 as numbers, any 64-bit
 * seed as a decimal string. */
static void seeds_are_exact(void **state)
{
    (void)state;
    static const struct {
        const char *seed;
        uint64_t want;
    } good[] = {
        {"0", 0},
        {"9007199254740991", 9007199254740991ull},
        {"\"1234567890123456789\"", 1234567890123456789ull},
        {"\"18446744073709551615\"", UINT64_MAX},
        {"\"0\"", 0},
    };
    for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
        char text[512];
        snprintf(text, sizeof text, "{\"seed\": %s, \"random\": {\"count\": 2, \"seed\": %s}}",
                 good[i].seed, good[i].seed);
        convt_config cfg;
        convt_err e;
        if (convt_config_parse(text, "inline.json", &cfg, &e))
            fail_msg("%s: %s", good[i].seed, e.msg);
        assert_true(cfg.seed == good[i].want);
        convt_config_finish(&cfg);
    }
    uint64_t v = 7;
    assert_int_equal(convt_parse_seed("18446744073709551616", &v), -1);
    assert_int_equal(convt_parse_seed("-1", &v), -1);
    assert_int_equal(convt_parse_seed("", &v), -1);
    assert_int_equal(convt_parse_seed("01", &v), -1);
    assert_int_equal(convt_parse_seed("18446744073709551615", &v), 0);
    assert_true(v == UINT64_MAX);
}

/* What is not a regular file of reasonable size is refused at once, saying
 * what it is; nesting past the parser's limit says so. Exit 2 each. */
static void files_that_are_no_config_are_refused(void **state)
{
    (void)state;
    char dir[256], fifo[512], big[512], deep[512];
    temp_dir(dir, sizeof dir);
    snprintf(fifo, sizeof fifo, "%s/fifo.json", dir);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    snprintf(big, sizeof big, "%s/big.json", dir);
    write_file(big, "{}");
    assert_int_equal(truncate(big, (off_t)65 << 20), 0); /* sparse: costs no disk */
    snprintf(deep, sizeof deep, "%s/deep.json", dir);
    enum { DEPTH = 1001 };
    char *text = malloc(2 * DEPTH + 32);
    size_t at = (size_t)sprintf(text, "{\"shapes\": ");
    for (int i = 0; i < DEPTH - 1; i++)
        text[at++] = '[';
    for (int i = 0; i < DEPTH - 1; i++)
        text[at++] = ']';
    snprintf(text + at, 8, "}");
    write_file(deep, text);
    free(text);
    const struct {
        const char *path, *expect;
    } cases[] = {
        {fifo, "is a FIFO (named pipe), not a regular file"},
        {dir, "is a directory, not a regular file"},
        {"/dev/zero", "is a character device, not a regular file"},
        {big, "too large (65.0 MiB; at most 64 MiB are read)"},
        {deep, "not valid JSON: arrays and objects nested more than 1000 deep (the parser's "
               "limit)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char args[1024], *out;
        snprintf(args, sizeof args, "--backend cpu --config %s --out %s/never.json", cases[i].path,
                 dir);
        int status = run_bench(args, &out);
        if (status != 2 || !strstr(out, cases[i].expect) || !strstr(out, cases[i].path))
            fail_msg("%s: exit %d, output:\n%s\nexpected exit 2 and \"%s\"", cases[i].path,
                     status, out, cases[i].expect);
        free(out);
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
    /* the sweep must not write its selection over its results */
    {"{\"output\": \"x.json\", \"selection\": \"./x.json\", \"shapes\": [" SHAPE "]}",
     "selection: the selection table \"./x.json\" is the results file"},
    /* names: UTF-8 text without control characters (results, progress lines) */
    {"{\"shapes\": [{\"name\": \"caf\xe9\", \"n\": 1, \"cin\": 4, \"cout\": 4, \"in\": [8], \"k\": [3]}]}",
     "shapes[0].name: expected UTF-8 text, got the byte 0xe9 at byte 3"},
    {"{\"shapes\": [{\"name\": \"a\\nb\", \"n\": 1, \"cin\": 4, \"cout\": 4, \"in\": [8], \"k\": [3]}]}",
     "shapes[0].name: expected a name without control characters, got U+000A at byte 1"},
    {"{\"shapes\": [{\"name\": \"x\\u0085\", \"n\": 1, \"cin\": 4, \"cout\": 4, \"in\": [8], \"k\": [3]}]}",
     "shapes[0].name: expected a name without control characters, got U+0085"},
    {"{\"sweeps\": [{\"name\": \"s\\u001b[31m\", \"base\": " SHAPE ", \"axes\": {\"n\": [1]}}]}",
     "sweeps[0].name: expected a name without control characters, got U+001B"},
    {"{\"shapes\": [{\"name\": \"a\tb\", \"n\": 1, \"cin\": 4, \"cout\": 4, \"in\": [8], \"k\": [3]}]}",
     ":1:24: not valid JSON: a control character (U+0009) inside a string"},
    {"{\"description\": \"ok\xff\", \"shapes\": [" SHAPE "]}",
     "description: expected UTF-8 text, got the byte 0xff"},
    {"{\"description\": \"a\\u0000b\", \"shapes\": [" SHAPE "]}",
     "not valid JSON: \\u0000 inside a string"},
    /* numbers as RFC 8259 writes them; cJSON alone took 007 and 1. */
    {"{\"shapes\": [{\"n\": 007, \"cin\": 4, \"cout\": 4, \"in\": [8], \"k\": [3]}]}",
     ":1:19: not valid JSON: the number \"007\": leading zeros are not allowed"},
    {"{\"shapes\": [{\"n\": 1., \"cin\": 4, \"cout\": 4, \"in\": [8], \"k\": [3]}]}",
     "not valid JSON: the number \"1.\": a digit must follow the decimal point"},
    {"{\"seed\": 1e, \"shapes\": [" SHAPE "]}", "the number \"1e\": the exponent has no digits"},
    /* a repeated key anywhere, in particular where no key list is checked */
    {"{\"launch\": {\"cpu_gather\": {\"threads\": [1], \"threads\": [2]}}, \"shapes\": [" SHAPE "]}",
     "launch.cpu_gather: key \"threads\" appears twice"},
    {"{\"launch\": {\"cpu_gather\": {}, \"cpu_gather\": {}}, \"shapes\": [" SHAPE "]}",
     "launch: key \"cpu_gather\" appears twice"},
    {"{\"seed\": 1, \"shapes\": [" SHAPE "], \"seed\": 2}", "(top level): key \"seed\" appears twice"},
    {"{\"sweeps\": [{\"base\": " SHAPE ", \"axes\": {\"n\": [1], \"n\": [2]}}]}",
     "sweeps[0].axes: key \"n\" appears twice"},
    /* seeds: exact or refused */
    {"{\"seed\": 1234567890123456789, \"shapes\": [" SHAPE "]}",
     "seed: expected an integer in [0, 9007199254740991] (a larger seed as a decimal string"},
    {"{\"seed\": -1, \"shapes\": [" SHAPE "]}", "seed: expected an integer in [0, 9007199254740991]"},
    {"{\"seed\": \"-1\", \"shapes\": [" SHAPE "]}",
     "seed: expected a seed in [0, 18446744073709551615] written in decimal digits"},
    {"{\"seed\": \"18446744073709551616\", \"shapes\": [" SHAPE "]}",
     "seed: expected a seed in [0, 18446744073709551615]"},
    {"{\"random\": {\"count\": 1, \"seed\": 1.5}}", "random.seed: expected an integer in [0, 9007199254740991]"},
    /* a name no variant of the project has stays an error on every build */
    {"{\"launch\": {\"polyphase_igemm_tf32\": 5}, \"shapes\": [" SHAPE "]}",
     "launch.polyphase_igemm_tf32: expected an object"},
    {"{\"variants\": [\"cuda_*\"], \"shapes\": [" SHAPE "]}",
     "variants[0]: \"cuda_*\" matches no variant (the variants: cpu_gather, cpu_scatter, gather,"},
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
        cmocka_unit_test(variants_not_built_are_skipped_with_a_note),
        cmocka_unit_test(seeds_are_exact),
        cmocka_unit_test(files_that_are_no_config_are_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
