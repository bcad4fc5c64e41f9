/* The selection's rules (select.h) on synthetic results: the fastest valid
 * record wins; the tier rule (fp32 competes in tf32, never the reverse);
 * the baseline is the fastest vendor record of the tier or a stricter one,
 * named; PyTorch's records never win; ties within the recorded noise are
 * declared and broken by the documented rule, so a winner does not flip on
 * noise: checked on 500 random pairs of runs whose times differ by noise. */
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
#include <time.h>

#include "hostdevice.h"
#include "select.h"
#include "test_util.h"

static cJSON *record(const char *key, const char *variant, const char *tier, const char *status,
                     double ms, double noise, int deterministic)
{
    cJSON *r = cJSON_CreateObject();
    cJSON *s = cJSON_AddObjectToObject(r, "shape");
    cJSON_AddStringToObject(s, "key", key);
    cJSON_AddStringToObject(s, "name", key);
    cJSON_AddStringToObject(r, "variant", variant);
    cJSON_AddStringToObject(r, "tier", tier);
    cJSON_AddBoolToObject(r, "deterministic", deterministic);
    cJSON_AddStringToObject(r, "status", status);
    cJSON_AddObjectToObject(r, "launch");
    cJSON_AddStringToObject(r, "launch_key", "-");
    cJSON *t = cJSON_AddObjectToObject(r, "timing");
    cJSON_AddNumberToObject(t, "median_ms", ms);
    cJSON_AddNumberToObject(t, "noise", noise);
    return r;
}

static cJSON *results(void)
{
    cJSON *doc = cJSON_CreateObject();
    cJSON_AddArrayToObject(doc, "records");
    return doc;
}

static void add(cJSON *doc, cJSON *rec)
{
    cJSON_AddItemToArray(cJSON_GetObjectItemCaseSensitive(doc, "records"), rec);
}

static const cJSON *row_of(const cJSON *sel, const char *key, const char *tier)
{
    const cJSON *rows = cJSON_GetObjectItemCaseSensitive(sel, "selections");
    for (const cJSON *r = rows->child; r; r = r->next)
        if (!strcmp(cJSON_GetObjectItem(r, "key")->valuestring, key) &&
            !strcmp(cJSON_GetObjectItem(r, "tier")->valuestring, tier))
            return r;
    return NULL;
}

/* The table convt_selection_print writes for sel (md: Markdown), read
 * back; the caller frees it. */
static char *printed(const cJSON *sel, bool md)
{
    char dir[256], path[512];
    temp_dir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/table.txt", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    convt_selection_print(sel, md, f);
    fclose(f);
    return read_file(path);
}

static const char *str(const cJSON *o, const char *k)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsString(v) ? v->valuestring : "";
}

static double num(const cJSON *o, const char *k)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

static void fastest_valid_wins_against_the_fastest_vendor_record(void **state)
{
    (void)state;
    cJSON *doc = results();
    add(doc, record("A", "gather", "fp32", "ok", 4.0, 0, 1));
    add(doc, record("A", "cudnn_fp32", "fp32", "ok", 3.0, 0, 0));
    add(doc, record("A", "cudnn_graph_fp32", "fp32", "ok", 2.0, 0, 0));
    add(doc, record("A", "fastbroken", "fp32", "wrong", 0.1, 0, 1)); /* never wins */
    add(doc, record("A", "mine", "fp32", "ok", 1.0, 0, 1));
    add(doc, record("B", "gather", "fp32", "failed", 1.0, 0, 1));
    cJSON *sel = convt_select(doc, NULL);
    const cJSON *a = row_of(sel, "A", "fp32");
    assert_string_equal(str(a, "variant"), "mine");
    assert_string_equal(str(a, "chosen_by"), "fastest");
    /* the baseline is the faster of the two cuDNN paths, and named */
    assert_string_equal(str(cJSON_GetObjectItem(a, "baseline"), "variant"), "cudnn_graph_fp32");
    assert_true(num(a, "speedup") == 2.0);
    const cJSON *b = row_of(sel, "B", "fp32");
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(b, "variant")));
    assert_null(row_of(sel, "A", "tf32")); /* no record of that tier: no row */
    cJSON_Delete(sel);
    cJSON_Delete(doc);
}

static void stricter_tiers_compete_in_looser_ones_never_the_reverse(void **state)
{
    (void)state;
    cJSON *doc = results();
    add(doc, record("D", "direct_grouped", "fp32", "ok", 1.0, 0, 1));
    add(doc, record("D", "polyphase_igemm_tf32", "tf32", "ok", 3.0, 0, 1));
    add(doc, record("D", "cudnn_tf32", "tf32", "ok", 2.0, 0, 0));
    add(doc, record("D", "cudnn_fp32", "fp32", "ok", 1.5, 0, 0));
    add(doc, record("E", "fast_tf32", "tf32", "ok", 0.5, 0, 1));
    add(doc, record("E", "slow_fp32", "fp32", "ok", 5.0, 0, 1));
    cJSON *sel = convt_select(doc, NULL);
    const cJSON *d = row_of(sel, "D", "tf32");
    assert_string_equal(str(d, "variant"), "direct_grouped");
    assert_string_equal(str(d, "variant_tier"), "fp32");
    /* cuDNN's fp32 path is the fastest vendor record competing in tf32 */
    assert_string_equal(str(cJSON_GetObjectItem(d, "baseline"), "variant"), "cudnn_fp32");
    assert_true(num(d, "speedup") == 1.5);
    /* a tf32 record is never the fp32 winner, however fast */
    const cJSON *e = row_of(sel, "E", "fp32");
    assert_string_equal(str(e, "variant"), "slow_fp32");
    assert_string_equal(str(row_of(sel, "E", "tf32"), "variant"), "fast_tf32");
    cJSON_Delete(sel);
    cJSON_Delete(doc);
}

static void pytorch_is_a_baseline_never_a_winner(void **state)
{
    (void)state;
    cJSON *doc = results();
    add(doc, record("P", "polyphase_igemm_tf32", "tf32", "ok", 6.0, 0, 1));
    add(doc, record("P", "cudnn_tf32", "tf32", "ok", 28.0, 0, 0));
    add(doc, record("P", "torch_tf32_benchmark", "tf32", "ok", 5.0, 0, 0));
    add(doc, record("Q", "torch_fp32", "fp32", "ok", 5.0, 0, 0));
    add(doc, record("Q", "mine", "fp32", "wrong", 5.0, 0, 0));
    cJSON *sel = convt_select(doc, NULL);
    const cJSON *p = row_of(sel, "P", "tf32");
    assert_string_equal(str(p, "variant"), "polyphase_igemm_tf32");
    assert_string_equal(str(cJSON_GetObjectItem(p, "baseline"), "variant"), "torch_tf32_benchmark");
    assert_true(fabs(num(p, "speedup") - 5.0 / 6.0) < 1e-12); /* slower than PyTorch: said */
    const cJSON *q = row_of(sel, "Q", "fp32");
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(q, "variant")));
    assert_string_equal(str(q, "note"), "only PyTorch's records passed validation");
    cJSON_Delete(sel);
    cJSON_Delete(doc);
}

/* A shape whose own and cuDNN runs are missing (a shard cut short, merged
 * with PyTorch's records of the whole config: session 42's kb77) is not
 * run, which the row says, rather than that those runs failed; the table
 * of an incomplete run says its means leave such shapes out. */
static void a_shape_cut_off_is_not_run_not_failed(void **state)
{
    (void)state;
    cJSON *doc = results();
    cJSON_AddBoolToObject(doc, "complete", false);
    cJSON_AddStringToObject(doc, "incomplete_because", "SIGTERM after 6 of 7 shapes");
    add(doc, record("A", "mine", "tf32", "ok", 1.0, 0, 1));
    add(doc, record("A", "cudnn_tf32", "tf32", "ok", 2.0, 0, 0));
    add(doc, record("C", "torch_tf32", "tf32", "ok", 3.0, 0, 0));
    cJSON *sel = convt_select(doc, NULL);
    const cJSON *c = row_of(sel, "C", "tf32");
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(c, "variant")));
    assert_ptr_equal(strstr(str(c, "note"), "not run here"), str(c, "note"));
    assert_true(cJSON_IsTrue(cJSON_GetObjectItem(sel, "partial")));
    assert_string_equal(str(sel, "partial_because"), "SIGTERM after 6 of 7 shapes");
    char *text = printed(sel, false);
    assert_non_null(strstr(text, "geometric mean 2.00x over 1 shape; faster on 1"));
    assert_non_null(strstr(text, "partial: the results are incomplete (SIGTERM after 6 of 7 shapes)"));
    free(text);
    cJSON_Delete(sel);
    cJSON_Delete(doc);
}

static void ties_are_declared_and_broken_by_the_rule(void **state)
{
    (void)state;
    /* 1.00 and 1.01 ms with 1% noise each: tied (0.01 <= 1.00 * 0.02); the
     * deterministic one is picked though it is the slower median */
    cJSON *doc = results();
    add(doc, record("T", "atomics", "fp32", "ok", 1.00, 0.01, 0));
    add(doc, record("T", "gathers", "fp32", "ok", 1.01, 0.01, 1));
    add(doc, record("T", "slow", "fp32", "ok", 1.10, 0.01, 1)); /* beyond the noise */
    cJSON *sel = convt_select(doc, NULL);
    const cJSON *t = row_of(sel, "T", "fp32");
    assert_string_equal(str(t, "variant"), "gathers");
    assert_true(num(t, "tied") == 2);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(t, "ties")), 2);
    assert_non_null(strstr(str(t, "chosen_by"), "deterministic"));
    assert_string_equal(str(t, "fastest_variant"), "atomics");
    cJSON_Delete(sel);
    cJSON_Delete(doc);

    /* Both deterministic: the previous table's choice, then the faster
     * median, then the name. prepare_ms ranks nothing (a kernel's first
     * prepare in a worker carries its load): x's 50 ms against y's 5 ms
     * does not make y the winner. */
    doc = results();
    cJSON *x = record("T", "xkernel", "fp32", "ok", 1.00, 0.01, 1);
    cJSON *y = record("T", "ykernel", "fp32", "ok", 1.005, 0.01, 1);
    cJSON_AddNumberToObject(x, "prepare_ms", 50);
    cJSON_AddNumberToObject(y, "prepare_ms", 5);
    add(doc, y); /* the slower first in the file: the order decides nothing */
    add(doc, x);
    sel = convt_select(doc, NULL);
    assert_string_equal(str(row_of(sel, "T", "fp32"), "variant"), "xkernel");
    assert_true(num(row_of(sel, "T", "fp32"), "tied") == 2);
    assert_non_null(strstr(str(row_of(sel, "T", "fp32"), "chosen_by"), "faster median"));
    cJSON *prev = cJSON_CreateObject(), *rows = cJSON_AddArrayToObject(prev, "selections");
    cJSON *pr = cJSON_CreateObject();
    cJSON_AddStringToObject(pr, "key", "T");
    cJSON_AddStringToObject(pr, "tier", "fp32");
    cJSON_AddStringToObject(pr, "variant", "ykernel");
    cJSON_AddStringToObject(pr, "launch_key", "-");
    cJSON_AddItemToArray(rows, pr);
    cJSON *sel2 = convt_select(doc, prev);
    assert_string_equal(str(row_of(sel2, "T", "fp32"), "variant"), "ykernel"); /* yesterday's, though slower */
    assert_non_null(strstr(str(row_of(sel2, "T", "fp32"), "chosen_by"), "previous table"));
    cJSON_Delete(sel2);
    cJSON_Delete(sel);
    cJSON_Delete(prev);
    cJSON_Delete(doc);
    /* equal medians: the name */
    doc = results();
    add(doc, record("T", "ykernel", "fp32", "ok", 1.00, 0.01, 1));
    add(doc, record("T", "xkernel", "fp32", "ok", 1.00, 0.01, 1));
    sel = convt_select(doc, NULL);
    assert_string_equal(str(row_of(sel, "T", "fp32"), "variant"), "xkernel");
    assert_non_null(strstr(str(row_of(sel, "T", "fp32"), "chosen_by"), "the name"));
    cJSON_Delete(sel);
    cJSON_Delete(doc);
}

/* Two runs of the same three kernels, each median moved by at most a
 * third of its recorded noise: the winner is the same in both runs, or at
 * least one run declared a tie. Random times and noises, 500 pairs, seed
 * printed. */
static void a_winner_does_not_flip_on_noise(void **state)
{
    (void)state;
    uint64_t seed = 20261123;
    print_message("seed %llu\n", (unsigned long long)seed);
    int flips = 0, declared = 0;
    for (int trial = 0; trial < 500; trial++) {
        double base[3], noise[3];
        for (int k = 0; k < 3; k++) {
            seed = convt_mix64(seed);
            base[k] = 1.0 + (double)(seed % 1000) / 20000.0; /* 1.00 .. 1.05 ms */
            seed = convt_mix64(seed);
            noise[k] = 0.002 + (double)(seed % 100) / 10000.0; /* 0.2% .. 1.2% */
        }
        const char *winner[2];
        int tied[2];
        cJSON *sel[2], *docs[2];
        for (int run = 0; run < 2; run++) {
            docs[run] = results();
            for (int k = 0; k < 3; k++) {
                seed = convt_mix64(seed);
                double u = (double)(seed % 2001) / 1000.0 - 1.0; /* -1 .. 1 */
                char name[8];
                snprintf(name, sizeof name, "v%d", k);
                add(docs[run], record("S", name, "fp32", "ok", base[k] * (1 + u * noise[k] / 3),
                                      noise[k], k != 1));
            }
            sel[run] = convt_select(docs[run], NULL);
            const cJSON *r = row_of(sel[run], "S", "fp32");
            winner[run] = str(r, "variant");
            tied[run] = (int)num(r, "tied");
        }
        if (strcmp(winner[0], winner[1])) {
            flips++;
            /* a changed winner was declared tied in (at least) one run: a
             * clear winner's lead exceeds the noise of both, and moves of a
             * third of it cannot close the gap in the other run */
            assert_true(tied[0] > 1 || tied[1] > 1);
        }
        declared += tied[0] > 1;
        for (int run = 0; run < 2; run++) {
            cJSON_Delete(sel[run]);
            cJSON_Delete(docs[run]);
        }
    }
    print_message("%d of 500 pairs changed winner (each declared tied), %d declared ties\n",
                  flips, declared);
    assert_true(declared > 0); /* the data did exercise ties */
}

static void the_table_names_the_baseline_and_the_geomean(void **state)
{
    (void)state;
    cJSON *doc = results();
    add(doc, record("A", "mine", "tf32", "ok", 1.0, 0, 1));
    add(doc, record("A", "cudnn_graph_tf32", "tf32", "ok", 4.0, 0, 0));
    add(doc, record("B", "mine", "tf32", "ok", 1.0, 0, 1));
    add(doc, record("B", "torch_tf32", "tf32", "ok", 1.0, 0, 0));
    cJSON *sel = convt_select(doc, NULL);
    char *text = printed(sel, true);
    assert_non_null(strstr(text, "| A | tf32 | mine | - | 1.0000 |"));
    assert_non_null(strstr(text, "| cudnn_graph_tf32 | 4.0000 | 4.00x |"));
    assert_non_null(strstr(text, "| torch_tf32 | 1.0000 | 1.00x |"));
    assert_non_null(strstr(text, "tf32: speedup over the fastest vendor record, geometric mean "
                                 "2.00x over 2 shapes; faster on 1"));
    free(text);
    cJSON_Delete(sel);
    cJSON_Delete(doc);
}

/* Many shapes whose records arrive interleaved (as a multi-device sweep's
 * lanes write them): each shape's row is its own fastest record, rows come
 * in the order the shapes first appear, and the selection stays linear in
 * the records (it was quadratic: 53,700 records took minutes, session 41). */
static double now_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

static void many_interleaved_shapes_select_by_shape_in_linear_time(void **state)
{
    (void)state;
    enum { SHAPES = 2000, PER_SHAPE = 25 };
    cJSON *doc = results();
    char key[32];
    for (int j = 0; j < PER_SHAPE; j++)
        for (int i = 0; i < SHAPES; i++) {
            /* shape i's fastest record is its (i % PER_SHAPE)-th */
            const double ms = j == i % PER_SHAPE ? 1.0 : 2.0 + j;
            snprintf(key, sizeof key, "shape%05d", (i * 7919) % SHAPES);
            char variant[16];
            snprintf(variant, sizeof variant, "v%02d", j);
            add(doc, record(key, variant, "tf32", "ok", ms, 0, 1));
        }
    const double t0 = now_seconds();
    cJSON *sel = convt_select(doc, NULL);
    const double took = now_seconds() - t0;
    printf("%d records selected in %.2f s\n", SHAPES * PER_SHAPE, took);
    const cJSON *rows = cJSON_GetObjectItemCaseSensitive(sel, "selections");
    assert_int_equal(cJSON_GetArraySize(rows), SHAPES);
    int i = 0;
    for (const cJSON *r = rows->child; r; r = r->next, i++) {
        snprintf(key, sizeof key, "shape%05d", (i * 7919) % SHAPES);
        assert_string_equal(str(r, "key"), key);
        char want[16];
        snprintf(want, sizeof want, "v%02d", i % PER_SHAPE);
        assert_string_equal(str(r, "variant"), want);
        assert_true(num(r, "median_ms") == 1.0);
    }
    /* generous: the quadratic scan took over a minute here */
    assert_true(took < 10.0);
    cJSON_Delete(sel);
    cJSON_Delete(doc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fastest_valid_wins_against_the_fastest_vendor_record),
        cmocka_unit_test(stricter_tiers_compete_in_looser_ones_never_the_reverse),
        cmocka_unit_test(pytorch_is_a_baseline_never_a_winner),
        cmocka_unit_test(a_shape_cut_off_is_not_run_not_failed),
        cmocka_unit_test(ties_are_declared_and_broken_by_the_rule),
        cmocka_unit_test(a_winner_does_not_flip_on_noise),
        cmocka_unit_test(the_table_names_the_baseline_and_the_geomean),
        cmocka_unit_test(many_interleaved_shapes_select_by_shape_in_linear_time),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
