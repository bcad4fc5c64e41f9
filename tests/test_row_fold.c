/* The row fold (src/lib/row_fold.h) against the float64 reference, on 300
 * random 2-D and 3-D shapes that row-fold (stride 1, dilation 1 and an
 * even input along dimension dims - 2; any kernel, pad, groups and bias
 * there; the other dimensions strides of 1, 2 or 4 and kernels that fold):
 * X' read through the kernels' map (convt_row_fold_channel, rows
 * CONVT_ROW_FOLD_PITCH apart) is x's row pairs, W' built through
 * convt_row_fold_weight_source is w shifted by the row's parity, and the
 * row-folded problem's reference on them is the original's, output for
 * output. convt_row_fold_check refuses what does not row-fold (more than
 * 32 output channels a group, or a folded kernel less than half w's taps
 * once W''s zero taps count, among it), naming why; kb78's and kb71's
 * layers row-fold into 64 output channels. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fold_phases.h"
#include "hostdevice.h"
#include "problem.h"
#include "reference.h"
#include "test_util.h"
#include "row_fold.h"

static uint64_t rng_state = 4242;
static int64_t pick(int64_t lo, int64_t hi) { return convt_next_in(&rng_state, lo, hi); }

/* A random problem that row-folds: along D stride 1, kernel 1 to 5, any
 * pad, an even input; along the others stride 1, 2 or 4 with a kernel of
 * 1 or 2 strides (the whole fold's dimensions: dilation 1). */
static convt_problem random_row_foldable(void)
{
    for (;;) {
        convt_problem p = convt_problem_default((int)pick(2, 3));
        p.n = pick(1, 2);
        p.groups = pick(1, 2);
        p.cin = p.groups * pick(1, 3);
        p.cout = p.groups * pick(1, 3);
        p.bias = pick(0, 1);
        const int D = p.dims - 2;
        for (int d = 0; d < p.dims; d++) {
            if (d == D) {
                p.in[d] = 2 * pick(1, p.dims == 3 ? 3 : 5);
                p.k[d] = pick(1, 5);
                p.pad[d] = pick(0, p.k[d] - 1);
                continue;
            }
            p.in[d] = pick(1, p.dims == 3 ? 4 : 7);
            const int64_t s = pick(0, 3);
            p.stride[d] = s == 3 ? 4 : s == 2 ? 2 : 1;
            p.k[d] = p.stride[d] * pick(1, 2);
            p.pad[d] = pick(0, p.k[d] - 1);
        }
        char why[200];
        if (convt_problem_check(&p, why, sizeof why) || convt_out_spatial(&p) <= 0 ||
            convt_row_fold_check(&p, why, sizeof why))
            continue;
        return p;
    }
}

static void check_one(const convt_problem *p)
{
    const convt_problem q = convt_row_fold_problem(p);
    const convt_row_fold_w m = convt_row_fold_w_of(p);
    char why[200];
    assert_null(convt_problem_check(&q, why, sizeof why));
    assert_null(convt_fold_check(&q, CONVT_FOLD_ALL, why, sizeof why));
    assert_int_equal(q.cin, 2 * p->cin);
    assert_int_equal(m.elems, convt_w_elems(&q));
    for (int d = 0; d < p->dims; d++)
        assert_int_equal(convt_out_size(&q, d), convt_out_size(p, d));

    float *x = random_tensor(convt_x_elems(p), 1), *w = random_tensor(convt_w_elems(p), 2);
    float *b = random_tensor(convt_b_elems(p), 3);
    float *X = malloc(sizeof *X * (size_t)convt_x_elems(&q)), *W = malloc(sizeof *W * (size_t)m.elems);
    assert_non_null(X);
    assert_non_null(W);
    assert_int_equal(convt_x_elems(&q), convt_x_elems(p));

    /* X' as the kernels read it: the channel's offset, then the row-folded
     * problem's row offset times the pitch; against x's row 2u + e */
    const convt_shape3 s = convt_problem_as_3d(p), t = convt_problem_as_3d(&q);
    const int64_t plane = s.in[0] * s.in[1] * s.in[2], plane2 = t.in[0] * t.in[1] * t.in[2];
    assert_int_equal(2 * plane2, plane);
    int64_t i = 0;
    for (int64_t n = 0; n < q.n; n++)
        for (int64_t ci2 = 0; ci2 < q.cin; ci2++) {
            /* four neighbouring channels of X', the kernels' kstride */
            assert_int_equal(convt_row_fold_channel(ci2 + 4, plane2, t.in[2]) - convt_row_fold_channel(ci2, plane2, t.in[2]),
                             4 * plane2);
            for (int64_t i0 = 0; i0 < t.in[0]; i0++)
                for (int64_t u = 0; u < t.in[1]; u++)
                    for (int64_t i2 = 0; i2 < t.in[2]; i2++, i++) {
                        const int64_t via_map = n * q.cin * plane2 + convt_row_fold_channel(ci2, plane2, t.in[2]) +
                                                CONVT_ROW_FOLD_PITCH * (i0 * t.in[1] + u) * t.in[2] + i2;
                        const int64_t direct = ((n * p->cin + ci2 / 2) * s.in[0] + i0) * s.in[1] * s.in[2] +
                                               (2 * u + ci2 % 2) * s.in[2] + i2;
                        assert_int_equal(via_map, direct);
                        X[i] = x[via_map];
                    }
        }
    assert_int_equal(i, convt_x_elems(&q));

    /* W' through the map, against w at the tap the parity shifts */
    const int64_t cout_g = p->cout / p->groups;
    int zeros = 0;
    for (int64_t j = 0; j < m.elems; j++) {
        const int64_t src = convt_row_fold_weight_source(&m, j);
        const int64_t t2 = j % t.k[2], t1 = j / t.k[2] % t.k[1], t0 = j / (t.k[2] * t.k[1]) % t.k[0];
        const int64_t c = j / (t.k[0] * t.k[1] * t.k[2]) % cout_g, ci2 = j / (t.k[0] * t.k[1] * t.k[2] * cout_g);
        const int64_t kd = t1 - ci2 % 2;
        if (kd < 0 || kd >= s.k[1]) {
            assert_int_equal(src, -1);
            W[j] = 0.0f;
            zeros++;
            continue;
        }
        assert_int_equal(src, (((ci2 / 2 * cout_g + c) * s.k[0] + t0) * s.k[1] + kd) * s.k[2] + t2);
        W[j] = w[src];
    }
    /* each (ci2, c, t0, t2) has one zero tap along D: the parity's end */
    assert_int_equal(zeros, m.elems / t.k[1]);

    const int64_t ny = convt_y_elems(p);
    assert_int_equal(convt_y_elems(&q), ny);
    double *ref = malloc(sizeof *ref * (size_t)ny), *Ref = malloc(sizeof *Ref * (size_t)ny);
    assert_non_null(ref);
    assert_non_null(Ref);
    convt_reference(p, x, w, b, ref, NULL);
    convt_reference(&q, X, W, b, Ref, NULL);
    for (int64_t o = 0; o < ny; o++)
        if (fabs(ref[o] - Ref[o]) > 1e-9 * (1.0 + fabs(ref[o]))) {
            char key[160];
            convt_problem_key(p, key, sizeof key);
            fail_msg("%s: output %lld is %.12g, row-folded gives %.12g", key, (long long)o, ref[o], Ref[o]);
        }
    free(x), free(w), free(b), free(X), free(W), free(ref), free(Ref);
}

static void row_folded_equals_reference(void **state)
{
    (void)state;
    int by_dims[4] = {0}, strided_other = 0, padded = 0, grouped = 0;
    for (int k = 0; k < 300; k++) {
        const convt_problem p = random_row_foldable();
        check_one(&p);
        by_dims[p.dims]++;
        const int D = p.dims - 2;
        padded += p.pad[D] > 0;
        grouped += p.groups > 1;
        for (int d = 0; d < p.dims; d++)
            strided_other += d != D && p.stride[d] > 1;
    }
    assert_true(by_dims[2] >= 100 && by_dims[3] >= 100);
    assert_true(strided_other >= 100 && padded >= 100 && grouped >= 100);
}

static convt_problem layer(int64_t cin, int64_t cout, int64_t h, int64_t w, int64_t kh, int64_t kw, int64_t ph,
                           int64_t pw)
{
    convt_problem p = convt_problem_default(2);
    p.n = 8, p.cin = cin, p.cout = cout, p.in[0] = h, p.in[1] = w;
    p.k[0] = kh, p.k[1] = kw, p.pad[0] = ph, p.pad[1] = pw;
    return p;
}

/* kb78 and kb71 (KernelBench): 32 channels, stride 1 */
static void kernelbench_layers_row_fold(void **state)
{
    (void)state;
    char why[200];
    const convt_problem kb78 = layer(32, 32, 512, 1024, 3, 7, 1, 3), kb71 = layer(32, 32, 512, 1024, 3, 3, 0, 0);
    assert_null(convt_row_fold_check(&kb78, why, sizeof why));
    assert_null(convt_row_fold_check(&kb71, why, sizeof why));
    const convt_problem q = convt_row_fold_problem(&kb78);
    assert_int_equal(q.cin, 64);
    assert_int_equal(q.in[0], 256);
    assert_int_equal(q.stride[0], 2);
    assert_int_equal(q.k[0], 4);
    const convt_problem f = convt_fold_problem(&q, CONVT_FOLD_ALL);
    assert_int_equal(f.cout, 64); /* wgmma's M, full */
    assert_int_equal(f.k[0], 2);
    assert_int_equal(f.k[1], 7);
    /* small copies of both, checked output for output */
    convt_problem small = kb78;
    small.n = 1, small.cin = small.cout = 4, small.in[0] = 6, small.in[1] = 9;
    check_one(&small);
    small = kb71;
    small.n = 1, small.cin = small.cout = 4, small.in[0] = 6, small.in[1] = 9;
    check_one(&small);
}

static void refuses_what_does_not_row_fold(void **state)
{
    (void)state;
    char why[200];
    convt_problem p = convt_problem_default(1);
    p.n = 1, p.cin = 2, p.cout = 2, p.in[0] = 8, p.k[0] = 3;
    assert_non_null(convt_row_fold_check(&p, why, sizeof why));
    assert_non_null(strstr(why, "a 1-D shape"));
    p = layer(2, 2, 8, 8, 3, 3, 1, 1);
    assert_null(convt_row_fold_check(&p, why, sizeof why));
    p.in[0] = 7;
    assert_non_null(convt_row_fold_check(&p, why, sizeof why));
    assert_non_null(strstr(why, "in[0] = 7 is odd"));
    p.in[0] = 8, p.stride[0] = 2;
    assert_non_null(convt_row_fold_check(&p, why, sizeof why));
    assert_non_null(strstr(why, "stride[0] = 2"));
    p.stride[0] = 1, p.dil[0] = 2;
    assert_non_null(convt_row_fold_check(&p, why, sizeof why));
    assert_non_null(strstr(why, "dil[0] = 2"));
    p.dil[0] = 1, p.stride[1] = 3, p.k[1] = 3; /* 2 x 3 phases */
    assert_non_null(convt_row_fold_check(&p, why, sizeof why));
    assert_non_null(strstr(why, "6 phases once the rows are folded"));
    p.stride[1] = 1, p.dil[1] = 2; /* the whole fold needs dilation 1 along the others */
    assert_non_null(convt_row_fold_check(&p, why, sizeof why));
    assert_non_null(strstr(why, "does not fold its phases: dil[1]"));
    p = layer(2, 2, 8, 8, 2, 3, 0, 1); /* k 2 along the rows: half of W' w's; k 3 stride 2: 3 of 4 */
    p.stride[1] = 2;
    assert_non_null(convt_row_fold_check(&p, why, sizeof why));
    assert_non_null(strstr(why, "the row-folded kernel would be 62% zero taps"));
    p.k[1] = 4; /* whole strides along the other dimension */
    assert_null(convt_row_fold_check(&p, why, sizeof why));
    p = layer(16, 33, 8, 8, 3, 3, 1, 1); /* past one 64-channel block once folded */
    assert_non_null(convt_row_fold_check(&p, why, sizeof why));
    assert_non_null(strstr(why, "33 output channels a group: the row fold is for 32 or fewer"));
    p.cout = 32;
    assert_null(convt_row_fold_check(&p, why, sizeof why));
    p.cout = 66, p.groups = 2, p.cin = 16; /* 33 a group */
    assert_non_null(convt_row_fold_check(&p, why, sizeof why));
    p = convt_problem_default(3);
    p.n = 1, p.cin = 2, p.cout = 2, p.in[0] = 3, p.in[1] = 4, p.in[2] = 5;
    p.k[0] = p.k[1] = p.k[2] = 3;
    assert_null(convt_row_fold_check(&p, why, sizeof why)); /* 3-D: the middle dimension */
    p.in[1] = 5;
    assert_non_null(convt_row_fold_check(&p, why, sizeof why));
    assert_non_null(strstr(why, "in[1] = 5 is odd"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(row_folded_equals_reference),
        cmocka_unit_test(kernelbench_layers_row_fold),
        cmocka_unit_test(refuses_what_does_not_row_fold),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
