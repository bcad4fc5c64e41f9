/* The CPU variants on random shapes over every parameter, and the validator
 * on outputs that are wrong in the ways real kernels go wrong. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hostdevice.h"
#include "reference.h"
#include "shape_random.h"
#include "validate.h"
#include "variant.h"

typedef struct data {
    convt_problem p;
    float *x, *w, *b, *y;
    double *ref, *mag;
} data;

static void make(data *d, const convt_problem *p, uint64_t seed)
{
    d->p = *p;
    d->x = malloc(4 * (size_t)convt_x_elems(p));
    d->w = malloc(4 * (size_t)convt_w_elems(p));
    d->b = p->bias ? malloc(4 * (size_t)p->cout) : NULL;
    d->y = malloc(4 * (size_t)convt_y_elems(p));
    d->ref = malloc(8 * (size_t)convt_y_elems(p));
    d->mag = malloc(8 * (size_t)convt_y_elems(p));
    for (int64_t i = 0; i < convt_x_elems(p); i++)
        d->x[i] = convt_uniform(seed, (uint64_t)i, -1, 1);
    for (int64_t i = 0; i < convt_w_elems(p); i++)
        d->w[i] = convt_uniform(seed + 1, (uint64_t)i, -1, 1);
    for (int64_t i = 0; p->bias && i < p->cout; i++)
        d->b[i] = convt_uniform(seed + 2, (uint64_t)i, -1, 1);
    convt_reference(p, d->x, d->w, d->b, d->ref, d->mag);
}

static void drop(data *d)
{
    free(d->x), free(d->w), free(d->b), free(d->y), free(d->ref), free(d->mag);
}

static bool run_and_check(const convt_variant *v, data *d, char *msg, size_t len)
{
    convt_device_info dev = {.backend = CONVT_BACKEND_CPU, .cpu_threads = 2};
    convt_context ctx = {.dev = &dev};
    for (int64_t i = 0; i < convt_y_elems(&d->p); i++)
        d->y[i] = NAN; /* every element must be written */
    convt_tensors t = {d->x, d->w, d->b, d->y};
    convt_launch l = convt_launch_first_default(v);
    convt_err e;
    if (v->launch(&d->p, &l, &t, NULL, NULL, &ctx, &e)) {
        snprintf(msg, len, "launch failed: %s", e.msg);
        return false;
    }
    convt_tolerance tol = convt_tolerance_default(v->tier);
    convt_error_stats st;
    convt_compare_host(d->y, d->ref, d->mag, convt_y_elems(&d->p), &tol, &st);
    convt_error_describe(&st, &tol, msg, (unsigned)len);
    return convt_error_passes(&st, &tol);
}

static void cpu_variants_on_random_shapes(void **state)
{
    (void)state;
    convt_random_spec spec = {.dims_mask = 7, .max_output_elems = 6000, .max_channels = 8};
    int checked = 0;
    for (int i = 0; i < 150; i++) {
        convt_problem p = convt_random_problem(2026, (uint64_t)i, &spec);
        data d;
        make(&d, &p, 100 + (uint64_t)i);
        for (const convt_variant *const *v = convt_variants; *v; v++) {
            if ((*v)->backend != CONVT_BACKEND_CPU)
                continue;
            char msg[512], key[256];
            if (!run_and_check(*v, &d, msg, sizeof msg)) {
                convt_problem_key(&p, key, sizeof key);
                fail_msg("%s on %s: %s", (*v)->name, key, msg);
            }
            checked++;
        }
        drop(&d);
    }
    assert_true(checked >= 300);
}

/* The random generator must reach every corner the design names. */
static void random_shapes_cover_the_edges(void **state)
{
    (void)state;
    convt_random_spec spec = {.dims_mask = 7, .max_output_elems = 6000, .max_channels = 8};
    bool dims[4] = {0}, n1 = 0, stride_gt_k = 0, dil_and_stride = 0, out_pad = 0, depthwise = 0,
         grouped = 0, bias = 0;
    for (int i = 0; i < 150; i++) {
        convt_problem p = convt_random_problem(2026, (uint64_t)i, &spec);
        dims[p.dims] = true;
        n1 |= p.n == 1;
        for (int d = 0; d < p.dims; d++) {
            stride_gt_k |= p.stride[d] > p.k[d];
            dil_and_stride |= p.stride[d] > 1 && p.dil[d] > 1;
            out_pad |= p.out_pad[d] > 0;
        }
        depthwise |= p.groups == p.cin && p.cin > 1;
        grouped |= p.groups > 1 && p.groups < p.cin;
        bias |= p.bias;
    }
    assert_true(dims[1] && dims[2] && dims[3] && n1 && stride_gt_k && dil_and_stride &&
                out_pad && depthwise && grouped && bias);
}

static convt_problem small(void)
{
    convt_problem p = convt_problem_default(2);
    p.n = 2, p.cin = 4, p.cout = 6, p.groups = 2, p.bias = true;
    p.in[0] = 5, p.in[1] = 6, p.k[0] = 3, p.k[1] = 2, p.stride[0] = 2, p.stride[1] = 3;
    p.pad[0] = 1, p.dil[1] = 2, p.out_pad[0] = 1;
    return p;
}

static void validator_catches_planted_errors(void **state)
{
    (void)state;
    convt_problem p = small();
    data d;
    make(&d, &p, 7);
    int64_t n = convt_y_elems(&p);
    convt_tolerance tol = convt_tolerance_default(CONVT_TIER_FP32);
    convt_error_stats st;
    float *good = malloc(4 * (size_t)n);
    for (int64_t i = 0; i < n; i++)
        good[i] = (float)d.ref[i];
    convt_compare_host(good, d.ref, d.mag, n, &tol, &st);
    assert_true(convt_error_passes(&st, &tol)); /* rounding alone passes */

    memcpy(d.y, good, 4 * (size_t)n);
    d.y[n - 1] = NAN; /* last element never written */
    convt_compare_host(d.y, d.ref, d.mag, n, &tol, &st);
    assert_false(convt_error_passes(&st, &tol));
    assert_int_equal(st.nonfinite, 1);
    assert_int_equal(st.worst_index, n - 1);

    memcpy(d.y, good, 4 * (size_t)n);
    d.y[17] += 1e-3f * (float)(d.mag[17] + 1); /* one element off by 0.1% of its terms */
    convt_compare_host(d.y, d.ref, d.mag, n, &tol, &st);
    assert_false(convt_error_passes(&st, &tol));
    assert_int_equal(st.bad, 1);
    assert_int_equal(st.worst_index, 17);

    for (int64_t i = 0; i < n; i++) /* everything shifted by one place */
        d.y[i] = good[(i + 1) % n];
    convt_compare_host(d.y, d.ref, d.mag, n, &tol, &st);
    assert_false(convt_error_passes(&st, &tol));
    assert_true(convt_normwise_error(&st) > 0.1);

    for (int64_t i = 0; i < n; i++) /* zeros instead of an output */
        d.y[i] = 0;
    convt_compare_host(d.y, d.ref, d.mag, n, &tol, &st);
    assert_false(convt_error_passes(&st, &tol));

    /* TF32-sized noise passes the tf32 tier and fails fp32. */
    for (int64_t i = 0; i < n; i++)
        d.y[i] = (float)(d.ref[i] + 2e-4 * d.mag[i] * ((i % 3) - 1));
    convt_tolerance tf = convt_tolerance_default(CONVT_TIER_TF32);
    convt_compare_host(d.y, d.ref, d.mag, n, &tf, &st);
    assert_true(convt_error_passes(&st, &tf));
    convt_compare_host(d.y, d.ref, d.mag, n, &tol, &st);
    assert_false(convt_error_passes(&st, &tol));
    free(good);
    drop(&d);
}

static void cpu_variants_are_deterministic(void **state)
{
    (void)state;
    convt_problem p = small();
    data d;
    make(&d, &p, 9);
    int64_t n = convt_y_elems(&p);
    float *first = malloc(4 * (size_t)n);
    char msg[512];
    for (const convt_variant *const *v = convt_variants; *v; v++) {
        if ((*v)->backend != CONVT_BACKEND_CPU)
            continue;
        assert_true((*v)->deterministic);
        assert_true(run_and_check(*v, &d, msg, sizeof msg));
        memcpy(first, d.y, 4 * (size_t)n);
        assert_true(run_and_check(*v, &d, msg, sizeof msg));
        assert_memory_equal(first, d.y, 4 * (size_t)n);
    }
    free(first);
    drop(&d);
}

static void point_reference_equals_full_reference(void **state)
{
    (void)state;
    convt_problem p = small();
    data d;
    make(&d, &p, 11);
    for (int64_t i = 0; i < convt_y_elems(&p); i += 7) {
        double v, m;
        convt_reference_point(&p, d.x, d.w, d.b, i, &v, &m);
        assert_true(v == d.ref[i] && m == d.mag[i]);
    }
    drop(&d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(random_shapes_cover_the_edges),
        cmocka_unit_test(cpu_variants_on_random_shapes),
        cmocka_unit_test(validator_catches_planted_errors),
        cmocka_unit_test(cpu_variants_are_deterministic),
        cmocka_unit_test(point_reference_equals_full_reference),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
