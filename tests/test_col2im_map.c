/* col2im's map from a thread to its outputs and columns
 * (src/lib/col2im_map.h: the code im2col_gemm's kernel runs), run on the
 * CPU thread by thread over random problems of every parameter (1-D to
 * 3-D, strides, dilations, padding, output padding, groups, bias), both
 * column layouts (a GEMM an image: [nl][g][m][i]; merged: [g][m][nl][i])
 * and 1, 2 and 4 outputs a thread, against the scatter definition: every
 * input i and tap k add column (co taps + k, i) to output
 * o = i stride - pad + k dil where that is in range. The columns hold small
 * integers, so the sums are exact and must be equal; outputs start as NaN,
 * so one no thread writes shows. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "col2im_map.h"
#include "shape_random.h"
#include "test_util.h"

/* y (count outputs, [nl][co][o]) by the definition, from cols laid out with
 * image_stride and row_stride. */
static void scatter_reference(const convt_problem *p, int64_t images, int64_t image_stride,
                              int64_t row_stride, const float *cols, const float *b, float *y)
{
    const convt_shape3 s = convt_problem_as_3d(p);
    const int64_t taps = convt_taps(p), out_image = s.out[0] * s.out[1] * s.out[2];
    for (int64_t nl = 0; nl < images; nl++)
        for (int64_t co = 0; co < p->cout; co++) {
            float *yo = y + (nl * p->cout + co) * out_image;
            for (int64_t o = 0; o < out_image; o++)
                yo[o] = b ? b[co] : 0.0f;
            for (int64_t k0 = 0; k0 < s.k[0]; k0++)
                for (int64_t k1 = 0; k1 < s.k[1]; k1++)
                    for (int64_t k2 = 0; k2 < s.k[2]; k2++)
                        for (int64_t i0 = 0; i0 < s.in[0]; i0++)
                            for (int64_t i1 = 0; i1 < s.in[1]; i1++)
                                for (int64_t i2 = 0; i2 < s.in[2]; i2++) {
                                    const int64_t o0 = i0 * s.stride[0] - s.pad[0] + k0 * s.dil[0],
                                                  o1 = i1 * s.stride[1] - s.pad[1] + k1 * s.dil[1],
                                                  o2 = i2 * s.stride[2] - s.pad[2] + k2 * s.dil[2];
                                    if (o0 < 0 || o0 >= s.out[0] || o1 < 0 || o1 >= s.out[1] ||
                                        o2 < 0 || o2 >= s.out[2])
                                        continue;
                                    const int64_t k = (k0 * s.k[1] + k1) * s.k[2] + k2;
                                    const int64_t i = (i0 * s.in[1] + i1) * s.in[2] + i2;
                                    yo[(o0 * s.out[1] + o1) * s.out[2] + o2] +=
                                        cols[nl * image_stride + (co * taps + k) * row_stride + i];
                                }
        }
}

/* Whether some output of dimension d no tap reaches (a row of bias only
 * where d is an outer dimension). */
static int has_unreached(const convt_shape3 *s, int d)
{
    for (int64_t o = 0; o < s->out[d]; o++) {
        int reached = 0;
        for (int64_t k = 0; k < s->k[d] && !reached; k++) {
            const int64_t t = o + s->pad[d] - k * s->dil[d];
            reached = t >= 0 && t % s->stride[d] == 0 && t / s->stride[d] < s->in[d];
        }
        if (!reached)
            return 1;
    }
    return 0;
}

static void col2im_threads_sum_the_definition(void **state)
{
    (void)state;
    const convt_random_spec spec = {.dims_mask = 7, .max_output_elems = 20000, .max_channels = 6};
    int checked = 0, partial_rows = 0, empty_outer = 0;
    for (uint64_t t = 0; t < 3000; t++) {
        const convt_problem p = convt_random_problem(62, t, &spec);
        const int64_t P = convt_in_spatial(&p), taps = convt_taps(&p);
        const int64_t M = p.cout / p.groups * taps, count = convt_y_elems(&p);
        const int64_t ncols = p.n * p.groups * M * P;
        float *cols = malloc((size_t)ncols * sizeof *cols), *b = NULL;
        float *want = malloc((size_t)count * sizeof *want), *y = malloc((size_t)count * sizeof *y);
        assert_non_null(cols);
        assert_non_null(want);
        assert_non_null(y);
        for (int64_t e = 0; e < ncols; e++)
            cols[e] = (float)((e * 7 + 3) % 13 - 6);
        if (p.bias) {
            b = malloc((size_t)p.cout * sizeof *b);
            assert_non_null(b);
            for (int64_t c = 0; c < p.cout; c++)
                b[c] = (float)(c % 5 - 2);
        }
        const convt_shape3 s = convt_problem_as_3d(&p);
        for (int merged = 0; merged < 2; merged++) {
            const int64_t image_stride = merged ? P : p.groups * M * P;
            const int64_t row_stride = merged ? p.n * P : P;
            scatter_reference(&p, p.n, image_stride, row_stride, cols, b, want);
            for (int outs = 1; outs <= 4; outs *= 2) {
                const convt_col2im_args a =
                    convt_col2im_args_of(&p, count, image_stride, row_stride, outs);
                assert_int_equal(a.threads, count / s.out[2] * ((s.out[2] + outs - 1) / outs));
                for (int64_t e = 0; e < count; e++)
                    y[e] = NAN;
                for (uint32_t idx = 0; idx < a.threads; idx++)
                    convt_col2im_thread(&a, idx, outs, cols, b, y);
                for (int64_t e = 0; e < count; e++)
                    if (!(y[e] == want[e]))
                        fail_msg("problem %llu (%lld-D, out %lld x %lld x %lld, stride %lld %lld "
                                 "%lld, dil %lld %lld %lld, pad %lld %lld %lld), %s columns, "
                                 "%d a thread: output %lld is %g, the definition %g",
                                 (unsigned long long)t, (long long)p.dims, (long long)s.out[0],
                                 (long long)s.out[1], (long long)s.out[2], (long long)s.stride[0],
                                 (long long)s.stride[1], (long long)s.stride[2],
                                 (long long)s.dil[0], (long long)s.dil[1], (long long)s.dil[2],
                                 (long long)s.pad[0], (long long)s.pad[1], (long long)s.pad[2],
                                 merged ? "merged" : "per-image", outs, (long long)e, y[e],
                                 want[e]);
                checked++;
                partial_rows += s.out[2] % outs != 0;
            }
        }
        empty_outer += has_unreached(&s, 0) || has_unreached(&s, 1);
        free(cols);
        free(b);
        free(want);
        free(y);
    }
    printf("col2im map: %d (problem, layout, outs) checked, %d with a row's last thread short, "
           "%d problems with outer rows no tap reaches\n", checked, partial_rows, empty_outer);
    /* the draws reached the cases the map handles apart */
    assert_true(partial_rows >= 100 && empty_outer >= 10);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(col2im_threads_sum_the_definition),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
