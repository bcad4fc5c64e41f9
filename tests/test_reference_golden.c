/* The float64 reference against PyTorch: tests/golden holds, per case, the
 * inputs and PyTorch's float64 conv_transpose output (make_golden.py). Every
 * parameter appears alone and combined. The CPU variants are checked on the
 * same data at the float32 tolerance. */
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
#include "reference.h"
#include "test_util.h"
#include "validate.h"
#include "variant.h"

static void read_dims(const cJSON *c, const char *key, int dims, int64_t *out)
{
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(c, key);
    assert_int_equal(cJSON_GetArraySize(a), dims);
    for (int i = 0; i < dims; i++)
        out[i] = (int64_t)cJSON_GetArrayItem(a, i)->valuedouble;
}

static convt_problem case_problem(const cJSON *c)
{
    int dims = (int)cJSON_GetObjectItemCaseSensitive(c, "dims")->valuedouble;
    convt_problem p = convt_problem_default(dims);
    snprintf(p.name, sizeof p.name, "%s", cJSON_GetObjectItemCaseSensitive(c, "name")->valuestring);
    p.n = (int64_t)cJSON_GetObjectItemCaseSensitive(c, "n")->valuedouble;
    p.cin = (int64_t)cJSON_GetObjectItemCaseSensitive(c, "cin")->valuedouble;
    p.cout = (int64_t)cJSON_GetObjectItemCaseSensitive(c, "cout")->valuedouble;
    p.groups = (int64_t)cJSON_GetObjectItemCaseSensitive(c, "groups")->valuedouble;
    p.bias = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(c, "bias"));
    read_dims(c, "in", dims, p.in);
    read_dims(c, "k", dims, p.k);
    read_dims(c, "stride", dims, p.stride);
    read_dims(c, "pad", dims, p.pad);
    read_dims(c, "out_pad", dims, p.out_pad);
    read_dims(c, "dil", dims, p.dil);
    return p;
}

static void *load(const char *name, const char *suffix, convt_npy_type want, int64_t count)
{
    char rel[256], path[1024];
    snprintf(rel, sizeof rel, "tests/golden/%s.%s.npy", name, suffix);
    source_path(rel, path, sizeof path);
    convt_npy_type type;
    void *data;
    int ndim;
    int64_t shape[8];
    convt_err e;
    if (convt_npy_read(path, &type, &data, &ndim, shape, &e))
        fail_msg("%s", e.msg);
    assert_int_equal(type, want);
    int64_t n = 1;
    for (int i = 0; i < ndim; i++)
        n *= shape[i];
    assert_int_equal(n, count);
    return data;
}

static int golden_cases_checked;

static void check_case(const cJSON *c)
{
    convt_problem p = case_problem(c);
    char why[256];
    assert_null(convt_problem_check(&p, why, sizeof why));
    /* The output shape agrees with PyTorch's. */
    const cJSON *out = cJSON_GetObjectItemCaseSensitive(c, "output");
    assert_int_equal(cJSON_GetArrayItem(out, 1)->valuedouble, p.cout);
    for (int d = 0; d < p.dims; d++)
        assert_int_equal((int64_t)cJSON_GetArrayItem(out, 2 + d)->valuedouble,
                         convt_out_size(&p, d));
    int64_t ny = convt_y_elems(&p);
    float *x = load(p.name, "x", CONVT_NPY_F32, convt_x_elems(&p));
    float *w = load(p.name, "w", CONVT_NPY_F32, convt_w_elems(&p));
    float *b = p.bias ? load(p.name, "b", CONVT_NPY_F32, p.cout) : NULL;
    double *golden = load(p.name, "y", CONVT_NPY_F64, ny);
    double *ref = malloc(8 * (size_t)ny), *mag = malloc(8 * (size_t)ny);
    convt_reference(&p, x, w, b, ref, mag);
    for (int64_t i = 0; i < ny; i++) {
        /* Both sum the same float64 products; only the order differs. */
        if (fabs(ref[i] - golden[i]) > 1e-12 * (mag[i] + 1e-30))
            fail_msg("%s: reference[%lld] = %.17g, PyTorch %.17g", p.name, (long long)i, ref[i],
                     golden[i]);
    }
    /* The CPU variants against the same golden output. */
    convt_tolerance tol = convt_tolerance_default(CONVT_TIER_FP32);
    float *y = malloc(4 * (size_t)ny);
    convt_device_info dev = {.backend = CONVT_BACKEND_CPU, .cpu_threads = 2};
    convt_context ctx = {.dev = &dev};
    for (const convt_variant *const *v = convt_variants; *v; v++) {
        if ((*v)->backend != CONVT_BACKEND_CPU)
            continue;
        for (int64_t i = 0; i < ny; i++)
            y[i] = NAN;
        convt_tensors t = {x, w, b, y};
        convt_launch l = convt_launch_first_default(*v);
        convt_err e;
        assert_int_equal((*v)->launch(&p, &l, &t, NULL, NULL, &ctx, &e), 0);
        convt_error_stats st;
        convt_compare_host(y, golden, mag, ny, &tol, &st);
        if (!convt_error_passes(&st, &tol)) {
            char msg[512];
            convt_error_describe(&st, &tol, msg, sizeof msg);
            fail_msg("%s on %s: %s", (*v)->name, p.name, msg);
        }
    }
    golden_cases_checked++;
    free(x), free(w), free(b), free(golden), free(ref), free(mag), free(y);
}

static void reference_matches_pytorch(void **state)
{
    (void)state;
    char path[1024];
    source_path("tests/golden/cases.json", path, sizeof path);
    cJSON *doc = read_json(path);
    assert_non_null(doc);
    const cJSON *cases = cJSON_GetObjectItemCaseSensitive(doc, "cases");
    for (const cJSON *c = cases->child; c; c = c->next)
        check_case(c);
    assert_true(golden_cases_checked >= 25);
    cJSON_Delete(doc);
}

static void golden_cases_cover_every_parameter(void **state)
{
    (void)state;
    char path[1024];
    source_path("tests/golden/cases.json", path, sizeof path);
    cJSON *doc = read_json(path);
    bool dims[4] = {0}, stride = 0, pad = 0, out_pad = 0, dil = 0, groups = 0, depthwise = 0,
         bias = 0, n1 = 0, stride_gt_k = 0;
    for (const cJSON *c = cJSON_GetObjectItemCaseSensitive(doc, "cases")->child; c; c = c->next) {
        convt_problem p = case_problem(c);
        dims[p.dims] = true;
        for (int d = 0; d < p.dims; d++) {
            stride |= p.stride[d] > 1;
            pad |= p.pad[d] > 0;
            out_pad |= p.out_pad[d] > 0;
            dil |= p.dil[d] > 1;
            stride_gt_k |= p.stride[d] > p.k[d];
        }
        groups |= p.groups > 1 && p.groups < p.cin;
        depthwise |= p.groups == p.cin;
        bias |= p.bias;
        n1 |= p.n == 1;
    }
    assert_true(dims[1] && dims[2] && dims[3]);
    assert_true(stride && pad && out_pad && dil && groups && depthwise && bias && n1 &&
                stride_gt_k);
    cJSON_Delete(doc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(golden_cases_cover_every_parameter),
        cmocka_unit_test(reference_matches_pytorch),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
