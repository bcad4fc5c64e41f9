/* libconvt's dispatch API on the CPU backend (include/convt/convt.h): the
 * three rules (an exact row, the nearest row of the shape's class, the
 * heuristic) pick what they document, and a nearest row whose launch cannot
 * run here gives way to the next; tables of another device, schema or major
 * version are refused with the reason and used with the override; plans are
 * cached (by table, not address) and shared across threads; and every plan's output
 * matches the float64 reference on random shapes over every parameter. The
 * heuristic's order on a GPU is read by name (convt_heuristic_order), which
 * needs none. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <cjson/cJSON.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "convt.h"
#include "dispatch_impl.h"
#include "problem_json.h"
#include "reference.h"
#include "shape_random.h"
#include "test_util.h"

static convt_ctx *cpu_ctx(void)
{
    convt_ctx *ctx;
    convt_err e = {{0}, 0};
    assert_int_equal(convt_ctx_create(-1, &ctx, &e), 0);
    return ctx;
}

static convt_problem shape(int64_t n, int64_t cin, int64_t cout, int64_t len, int64_t k,
                           int64_t stride, bool bias)
{
    convt_problem p = convt_problem_default(1);
    p.n = n, p.cin = cin, p.cout = cout, p.in[0] = len, p.k[0] = k, p.stride[0] = stride;
    p.bias = bias;
    return p;
}

/* A selection entry as convt-bench writes it. */
static cJSON *row(const convt_problem *p, const char *tier, const char *variant, int threads,
                  double ms)
{
    cJSON *r = cJSON_CreateObject();
    char key[256];
    convt_problem_key(p, key, sizeof key);
    cJSON_AddStringToObject(r, "key", key);
    cJSON_AddStringToObject(r, "tier", tier);
    cJSON_AddItemToObject(r, "shape", convt_problem_json(p, true));
    cJSON_AddStringToObject(r, "variant", variant);
    cJSON *l = cJSON_AddObjectToObject(r, "launch");
    cJSON_AddNumberToObject(l, "threads", threads);
    cJSON_AddNumberToObject(r, "median_ms", ms);
    return r;
}

static void write_table(const char *path, const char *device, const char *version, int schema,
                        cJSON *rows)
{
    cJSON *t = cJSON_CreateObject();
    cJSON_AddStringToObject(t, "tool", "convt-bench selection");
    cJSON_AddNumberToObject(t, "table_schema", schema);
    cJSON_AddStringToObject(t, "library_version", version);
    cJSON_AddStringToObject(t, "backend", "cpu");
    cJSON_AddStringToObject(t, "device", device);
    cJSON_AddItemToObject(t, "selections", rows);
    char *text = cJSON_Print(t);
    write_file(path, text);
    free(text);
    cJSON_Delete(t);
}

static void rules_pick_what_they_document(void **state)
{
    (void)state;
    convt_ctx *ctx = cpu_ctx();
    char dir[256], path[512];
    temp_dir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/t.selection.json", dir);
    convt_problem measured = shape(2, 16, 8, 100, 4, 2, false);
    convt_problem far = shape(2, 16, 8, 3000, 4, 2, false); /* same class, M 30x */
    convt_problem near = shape(2, 16, 8, 120, 4, 2, false);
    cJSON *rows = cJSON_CreateArray();
    cJSON_AddItemToArray(rows, row(&measured, "tf32", "cpu_gather", 3, 1.0));
    cJSON_AddItemToArray(rows, row(&far, "tf32", "cpu_scatter", 5, 2.0));
    cJSON_AddItemToArray(rows, row(&measured, "fp32", "nonexistent_variant", 1, 1.0));
    write_table(path, convt_ctx_device_name(ctx), "0.1.0", 1, rows);

    convt_err e = {{0}, 0};
    convt_table *t;
    assert_int_equal(convt_table_load(ctx, path, 0, &t, &e), 0);
    char line[1024];
    convt_table_describe(t, line, sizeof line);
    assert_non_null(strstr(line, "2 rows used, 1 left out"));
    assert_non_null(strstr(line, "nonexistent_variant"));

    convt_plan *p;
    assert_int_equal(convt_plan_create(ctx, t, &measured, CONVT_TIER_TF32, &p, &e), 0);
    assert_string_equal(convt_plan_rule(p), "exact");
    assert_string_equal(convt_plan_variant(p), "cpu_gather");
    convt_plan_describe(p, line, sizeof line);
    assert_non_null(strstr(line, "threads=3")); /* the row's launch, not a default */
    convt_plan_destroy(p);

    /* nearest: the row of the class nearest in log M, N, K */
    assert_int_equal(convt_plan_create(ctx, t, &near, CONVT_TIER_TF32, &p, &e), 0);
    assert_string_equal(convt_plan_rule(p), "nearest");
    assert_string_equal(convt_plan_variant(p), "cpu_gather");
    convt_plan_destroy(p);

    /* the nearest row's launch cannot run here (more threads than the
     * machine allows): the next nearest row of the class serves */
    convt_table_destroy(t);
    rows = cJSON_CreateArray();
    convt_problem mid = shape(2, 16, 8, 110, 4, 2, false);
    cJSON_AddItemToArray(rows, row(&mid, "tf32", "cpu_gather", 100000, 1.0));
    cJSON_AddItemToArray(rows, row(&far, "tf32", "cpu_scatter", 5, 2.0));
    write_table(path, convt_ctx_device_name(ctx), "0.1.0", 1, rows);
    assert_int_equal(convt_table_load(ctx, path, 0, &t, &e), 0);
    assert_int_equal(convt_plan_create(ctx, t, &near, CONVT_TIER_TF32, &p, &e), 0);
    assert_string_equal(convt_plan_rule(p), "nearest");
    assert_string_equal(convt_plan_variant(p), "cpu_scatter");
    convt_plan_destroy(p);

    /* an input of one position is a class apart (a GEMM), whatever its
     * kernel and stride: the heuristic, not the k 4 stride 2 rows */
    convt_problem latent = shape(2, 16, 8, 1, 4, 2, false);
    assert_int_equal(convt_plan_create(ctx, t, &latent, CONVT_TIER_TF32, &p, &e), 0);
    assert_string_equal(convt_plan_rule(p), "heuristic");
    convt_plan_destroy(p);
    /* another class (stride 3): no row fits, the heuristic */
    convt_problem other = shape(2, 16, 8, 100, 4, 3, false);
    assert_int_equal(convt_plan_create(ctx, t, &other, CONVT_TIER_TF32, &p, &e), 0);
    assert_string_equal(convt_plan_rule(p), "heuristic");
    convt_plan_destroy(p);
    /* fp32: the tf32 rows do not serve a stricter tier */
    assert_int_equal(convt_plan_create(ctx, t, &measured, CONVT_TIER_FP32, &p, &e), 0);
    assert_string_equal(convt_plan_rule(p), "heuristic");
    convt_plan_destroy(p);
    convt_table_destroy(t);
    convt_ctx_destroy(ctx);
}

static void foreign_tables_are_refused_with_the_reason(void **state)
{
    (void)state;
    convt_ctx *ctx = cpu_ctx();
    char dir[256], path[512];
    temp_dir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/t.json", dir);
    convt_problem p1 = shape(1, 4, 4, 10, 3, 1, true);
    convt_err e = {{0}, 0};
    convt_table *t = NULL;

    cJSON *rows = cJSON_CreateArray();
    cJSON_AddItemToArray(rows, row(&p1, "tf32", "cpu_gather", 1, 1.0));
    write_table(path, "NVIDIA H100 80GB HBM3", "0.1.0", 1, rows);
    assert_int_equal(convt_table_load(ctx, path, 0, &t, &e), -1);
    assert_non_null(strstr(e.msg, "measured on NVIDIA H100 80GB HBM3"));
    assert_non_null(strstr(e.msg, "CONVT_TABLE_ANY_DEVICE"));
    assert_int_equal(convt_table_load(ctx, path, CONVT_TABLE_ANY_DEVICE, &t, &e), 0);
    convt_table_destroy(t);

    rows = cJSON_CreateArray();
    write_table(path, convt_ctx_device_name(ctx), "0.1.0", 7, rows);
    assert_int_equal(convt_table_load(ctx, path, 0, &t, &e), -1);
    assert_non_null(strstr(e.msg, "table schema 7"));

    rows = cJSON_CreateArray();
    write_table(path, convt_ctx_device_name(ctx), "3.0.0", 1, rows);
    assert_int_equal(convt_table_load(ctx, path, 0, &t, &e), -1);
    assert_non_null(strstr(e.msg, "another major version"));

    write_file(path, "{\"tool\": \"convt-bench\", \"records\": []}");
    assert_int_equal(convt_table_load(ctx, path, 0, &t, &e), -1);
    assert_non_null(strstr(e.msg, "not a convt-bench selection table"));
    convt_ctx_destroy(ctx);
}

typedef struct shared {
    convt_ctx *ctx;
    convt_table *t;
    convt_problem p;
    convt_plan *got;
} shared;

static void *create_one(void *arg)
{
    shared *s = arg;
    convt_err e = {{0}, 0};
    if (convt_plan_create(s->ctx, s->t, &s->p, CONVT_TIER_TF32, &s->got, &e))
        s->got = NULL;
    return NULL;
}

static void plans_are_cached_and_thread_safe(void **state)
{
    (void)state;
    convt_ctx *ctx = cpu_ctx();
    convt_err e = {{0}, 0};
    convt_table *t;
    assert_int_equal(convt_table_empty(ctx, &t, &e), 0);
    shared s[8];
    pthread_t th[8];
    for (int i = 0; i < 8; i++) {
        s[i] = (shared){ctx, t, shape(1, 6, 6, 50 + (i % 2), 3, 2, true), NULL};
        assert_int_equal(pthread_create(&th[i], NULL, create_one, &s[i]), 0);
    }
    for (int i = 0; i < 8; i++)
        pthread_join(th[i], NULL);
    for (int i = 0; i < 8; i++) {
        assert_non_null(s[i].got);
        assert_ptr_equal(s[i].got, s[i % 2].got); /* one plan per shape */
    }
    assert_ptr_not_equal(s[0].got, s[1].got);
    for (int i = 0; i < 8; i++)
        convt_plan_destroy(s[i].got);
    convt_table_destroy(t);
    convt_ctx_destroy(ctx);
}

static void every_plan_matches_the_reference(void **state)
{
    (void)state;
    convt_ctx *ctx = cpu_ctx();
    convt_err e = {{0}, 0};
    convt_table *t;
    assert_int_equal(convt_table_empty(ctx, &t, &e), 0);
    convt_random_spec spec = {.dims_mask = 7, .max_output_elems = 20000, .max_channels = 12};
    int checked = 0, widened = 0;
    for (int i = 0; i < 60; i++) {
        convt_problem p = convt_random_problem(2026, (uint64_t)i, &spec);
        if (i % 3 == 0) /* plans that run an equivalent of a wider stride */
            one_position_inputs(&p, (unsigned)(i / 3) % 7 + 1);
        convt_plan *plan;
        assert_int_equal(convt_plan_create(ctx, t, &p, i % 2 ? CONVT_TIER_FP32 : CONVT_TIER_TF32,
                                           &plan, &e),
                         0);
        int64_t nx = convt_x_elems(&p), nw = convt_w_elems(&p), ny = convt_y_elems(&p);
        float *x = malloc(4 * nx), *w = malloc(4 * nw), *b = malloc(4 * p.cout),
              *y = malloc(4 * ny);
        for (int64_t j = 0; j < nx; j++)
            x[j] = (float)sin(0.37 * (double)j);
        for (int64_t j = 0; j < nw; j++)
            w[j] = (float)cos(0.11 * (double)j);
        for (int64_t j = 0; j < p.cout; j++)
            b[j] = 0.5f - (float)j / 7;
        char line[1024];
        convt_plan_describe(plan, line, sizeof line);
        const convt_problem as = convt_problem_for(convt_variant_find(convt_plan_variant(plan)), &p);
        char key[256], as_key[256], says[300];
        convt_problem_key(&p, key, sizeof key);
        convt_problem_key(&as, as_key, sizeof as_key);
        snprintf(says, sizeof says, ", run as %s)", as_key);
        if ((strstr(line, says) != NULL) != (strcmp(key, as_key) != 0))
            fail_msg("shape %d: \"%s\" and the form run, %s", i, line, as_key);
        widened += strcmp(key, as_key) != 0;
        size_t ws = convt_plan_workspace_size(plan);
        void *work = ws ? malloc(ws) : NULL;
        assert_int_equal(convt_execute(plan, x, w, p.bias ? b : NULL, y, work, NULL, &e), 0);
        double *ref = malloc(8 * ny), *mag = malloc(8 * ny);
        convt_reference(&p, x, w, p.bias ? b : NULL, ref, mag);
        convt_tolerance tol = convt_tolerance_default(CONVT_TIER_FP32);
        convt_error_stats st;
        convt_compare_host(y, ref, mag, ny, &tol, &st);
        char why[256];
        convt_error_describe(&st, &tol, why, sizeof why);
        if (!convt_error_passes(&st, &tol))
            fail_msg("shape %d (%s): %s", i, convt_plan_variant(plan), why);
        checked++;
        free(x), free(w), free(b), free(y), free(work), free(ref), free(mag);
        convt_plan_destroy(plan);
    }
    assert_int_equal(checked, 60);
    assert_true(widened >= 5); /* plans that ran an equivalent, and said so */
    /* the errors a caller can make are said, not crashed on */
    convt_problem p = shape(1, 2, 2, 5, 2, 1, true);
    convt_plan *plan;
    assert_int_equal(convt_plan_create(ctx, t, &p, CONVT_TIER_TF32, &plan, &e), 0);
    float buf[64] = {0};
    assert_int_equal(convt_execute(plan, buf, buf, NULL, buf, NULL, NULL, &e), -1);
    assert_non_null(strstr(e.msg, "has a bias"));
    convt_plan_destroy(plan);
    p.out_pad[0] = 3;
    assert_int_equal(convt_plan_create(ctx, t, &p, CONVT_TIER_TF32, &plan, &e), -1);
    assert_non_null(strstr(e.msg, "out_pad"));
    convt_table_destroy(t);
    convt_ctx_destroy(ctx);
}

/* A plan that outlives its table, and a table loaded afterwards (malloc
 * hands it the freed address): the new table's plans follow its own rows. */
static void plans_follow_their_own_table(void **state)
{
    (void)state;
    convt_ctx *ctx = cpu_ctx();
    char dir[256], pa[512], pb[512];
    temp_dir(dir, sizeof dir);
    snprintf(pa, sizeof pa, "%s/a.json", dir);
    snprintf(pb, sizeof pb, "%s/b.json", dir);
    convt_problem p = shape(2, 4, 4, 16, 3, 1, false);
    cJSON *ra = cJSON_CreateArray(), *rb = cJSON_CreateArray();
    cJSON_AddItemToArray(ra, row(&p, "fp32", "cpu_gather", 1, 1.0));
    cJSON_AddItemToArray(rb, row(&p, "fp32", "cpu_scatter", 2, 1.0));
    write_table(pa, convt_ctx_device_name(ctx), "0.1.0", 1, ra);
    write_table(pb, convt_ctx_device_name(ctx), "0.1.0", 1, rb);
    convt_err e = {{0}, 0};
    convt_plan *held = NULL;
    for (int gen = 0; gen < 6; gen++) {
        convt_table *t;
        assert_int_equal(convt_table_load(ctx, gen % 2 ? pb : pa, 0, &t, &e), 0);
        convt_plan *plan;
        assert_int_equal(convt_plan_create(ctx, t, &p, CONVT_TIER_FP32, &plan, &e), 0);
        assert_string_equal(convt_plan_variant(plan), gen % 2 ? "cpu_scatter" : "cpu_gather");
        convt_table_destroy(t); /* the plan outlives it */
        convt_plan_destroy(held);
        held = plan;
    }
    convt_plan_destroy(held);
    /* tuning into a table of another device is refused: one file, one device */
    cJSON *rows = cJSON_CreateArray();
    write_table(pa, "NVIDIA H100 80GB HBM3", "0.1.0", 1, rows);
    convt_table *t;
    assert_int_equal(convt_table_load(ctx, pa, CONVT_TABLE_ANY_DEVICE, &t, &e), 0);
    char out[600];
    snprintf(out, sizeof out, "%s/tuned.json", dir);
    assert_int_equal(convt_table_enable_tuning(t, out, &e), -1);
    assert_non_null(strstr(e.msg, "two devices"));
    convt_table_destroy(t);
    convt_ctx_destroy(ctx);
}

/* The heuristic's order (names, knobs, why) for a shape on a backend, as
 * "variant[knob=value,...]" joined by spaces. */
static void order_of(const convt_problem *p, convt_tier tier, convt_backend_kind kind, char *buf,
                     size_t len, const char **first_why)
{
    convt_heuristic_step steps[CONVT_HEURISTIC_MAX_STEPS];
    const int n = convt_heuristic_order(p, tier, kind, steps, CONVT_HEURISTIC_MAX_STEPS);
    size_t at = 0;
    buf[0] = 0;
    for (int i = 0; i < n; i++) {
        at += (size_t)snprintf(buf + at, len - at, "%s%s", i ? " " : "", steps[i].variant);
        for (int k = 0; k < steps[i].n_knobs; k++)
            at += (size_t)snprintf(buf + at, len - at, "%s%s=%lld", k ? "," : "[",
                                   steps[i].knob[k], (long long)steps[i].value[k]);
        if (steps[i].n_knobs)
            at += (size_t)snprintf(buf + at, len - at, "]");
    }
    *first_why = n ? steps[0].why : "";
}

static void expect_order(const convt_problem *p, convt_tier tier, convt_backend_kind kind,
                         const char *want, const char *why)
{
    char got[512];
    const char *first_why;
    order_of(p, tier, kind, got, sizeof got, &first_why);
    if (strcmp(got, want) || !strstr(first_why, why))
        fail_msg("heuristic order \"%s\" (first because \"%s\"), wanted \"%s\" (\"%s\")", got,
                 first_why, want, why);
}

/* On a GPU, with no measured row of its class: a latent takes im2col's one
 * GEMM; few output channels over many input channels take im2col's columns
 * (session 60: faster than the polyphase implicit GEMM on all 9 such layers
 * measured); in TF32, many input channels on a small map take im2col's
 * channels-last GEMM (session 62); few channels per group in, with groups or few out, the direct
 * kernel; anything else the polyphase implicit GEMM. A tier's order never
 * names a TF32 variant for an fp32 plan; the CPU has its own. */
static void heuristic_orders_by_class(void **state)
{
    (void)state;
    const convt_backend_kind gpu = CONVT_BACKEND_CUDA;
    const char *gemm = "polyphase_igemm_tf32 polyphase_igemm_3xtf32 direct_grouped gather";
    const char *gemm32 = "polyphase_igemm_3xtf32 direct_grouped gather";
    const char *direct = "direct_grouped polyphase_igemm_3xtf32 gather";
    char want[512];

    convt_problem dense = convt_problem_default(2); /* 64 -> 64, k 4 stride 2 */
    dense.n = 8, dense.cin = dense.cout = 64, dense.in[0] = dense.in[1] = 32;
    dense.k[0] = dense.k[1] = 4, dense.stride[0] = dense.stride[1] = 2, dense.pad[0] = dense.pad[1] = 1;
    expect_order(&dense, CONVT_TIER_TF32, gpu, gemm, "no measured shape");
    expect_order(&dense, CONVT_TIER_FP32, gpu, gemm32, "no measured shape");
    expect_order(&dense, CONVT_TIER_TF32, CONVT_BACKEND_CPU, "cpu_scatter cpu_gather", "no measured");

    convt_problem rgb = dense; /* 64 -> 3: an image generator's last layer */
    rgb.cout = 3;
    snprintf(want, sizeof want, "im2col_gemm_tf32[images=0,merge=0] im2col_gemm[images=0,merge=0] %s", gemm);
    expect_order(&rgb, CONVT_TIER_TF32, gpu, want, "few output channels");
    snprintf(want, sizeof want, "im2col_gemm[images=0,merge=0] %s", gemm32);
    expect_order(&rgb, CONVT_TIER_FP32, gpu, want, "few output channels");
    rgb.cout = 5; /* past the rule */
    expect_order(&rgb, CONVT_TIER_TF32, gpu, gemm, "no measured shape");
    rgb.cout = 8, rgb.groups = 2; /* 4 a group, of 32 inputs */
    snprintf(want, sizeof want, "im2col_gemm[images=0,merge=0] %s", gemm32);
    expect_order(&rgb, CONVT_TIER_FP32, gpu, want, "few output channels");
    expect_order(&rgb, CONVT_TIER_FP32, CONVT_BACKEND_CPU, "cpu_scatter cpu_gather", "no measured");

    convt_problem head = convt_problem_default(2); /* SimpleBaseline's 2048 -> 256 on 8 x 6 */
    head.n = 32, head.cin = 2048, head.cout = 256, head.in[0] = 8, head.in[1] = 6;
    head.k[0] = head.k[1] = 4, head.stride[0] = head.stride[1] = 2, head.pad[0] = head.pad[1] = 1;
    snprintf(want, sizeof want, "im2col_gemm_tf32[images=0,merge=2] %s", gemm);
    expect_order(&head, CONVT_TIER_TF32, gpu, want, "many input channels on a small map");
    expect_order(&head, CONVT_TIER_FP32, gpu, gemm32, "no measured shape"); /* TF32's rule */
    head.in[0] = 9, head.in[1] = 8; /* 72 positions: past the rule */
    expect_order(&head, CONVT_TIER_TF32, gpu, gemm, "no measured shape");
    head.in[0] = 8, head.cin = 256; /* 256 channels on 8 x 8: past the rule */
    expect_order(&head, CONVT_TIER_TF32, gpu, gemm, "no measured shape");
    head.cin = 1024, head.groups = 2; /* 512 a group */
    expect_order(&head, CONVT_TIER_TF32, gpu, want, "many input channels on a small map");

    convt_problem flow = dense; /* PWC-Net's 2 -> 2 */
    flow.cin = flow.cout = 2;
    expect_order(&flow, CONVT_TIER_TF32, gpu, direct, "no measured shape");
    flow.cout = 64; /* few in, many out, one group: not measured, the GEMM as before */
    expect_order(&flow, CONVT_TIER_TF32, gpu, gemm, "no measured shape");
    convt_problem depthwise = dense;
    depthwise.groups = 64;
    expect_order(&depthwise, CONVT_TIER_TF32, gpu, direct, "no measured shape");

    convt_problem latent = convt_problem_default(2); /* DCGAN's 100 -> 512, 1 x 1 -> 4 x 4 */
    latent.n = 64, latent.cin = 100, latent.cout = 512, latent.k[0] = latent.k[1] = 4;
    latent.in[0] = latent.in[1] = 1;
    snprintf(want, sizeof want, "im2col_gemm_tf32[images=0] im2col_gemm[images=0] %s", gemm);
    expect_order(&latent, CONVT_TIER_TF32, gpu, want, "one GEMM");
    latent.cout = 3; /* a latent to RGB: one GEMM first all the same */
    snprintf(want, sizeof want, "im2col_gemm[images=0] %s", gemm32);
    expect_order(&latent, CONVT_TIER_FP32, gpu, want, "one GEMM");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(rules_pick_what_they_document),
        cmocka_unit_test(foreign_tables_are_refused_with_the_reason),
        cmocka_unit_test(plans_are_cached_and_thread_safe),
        cmocka_unit_test(every_plan_matches_the_reference),
        cmocka_unit_test(plans_follow_their_own_table),
        cmocka_unit_test(heuristic_orders_by_class),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
