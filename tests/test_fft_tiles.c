/* The overlap-save tiles of fft_overlap_save (src/lib/fft_tiles.h), against
 * the gather definition (convt_reference) on random stride-1 problems over
 * every other parameter (1-3 dimensions, padding, dilation, output_padding,
 * groups, bias):
 * - the planner's lengths are 2,3,5,7-smooth, no shorter than the dilated
 *   kernel, within the point budget, and its tiles cover every output;
 * - the kernels' computation, modelled on the host with the FFT replaced by
 *   the circular convolution it computes (exact on small integers), gives
 *   every output exactly: each tile's segment (convt_fft_segment_input),
 *   the dilated kernel's image (convt_fft_tap_at), the circular sum of
 *   length len, and the output read back from its tile's point
 *   (convt_fft_point_of_output), bias added, with the outputs no tap
 *   reaches (convt_fft_output_empty) the bias alone;
 * - the same model with the segment or the read-back point planted one
 *   off, or the dilated image's taps one place out, is caught;
 * - convt_fft_output_empty holds exactly where no tap reaches an output. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "fft_tiles.h"
#include "hostdevice.h"
#include "reference.h"
#include "shape_random.h"
#include "stride_phase.h"

enum planted { CORRECT, SEGMENT_ONE_OFF, POINT_ONE_OFF, TAP_ONE_OFF };

static bool smooth(int64_t n)
{
    static const int primes[] = {2, 3, 5, 7};
    for (int i = 0; i < 4; i++)
        while (n % primes[i] == 0)
            n /= primes[i];
    return n == 1;
}

static void smooth_lengths_are_the_next_smooth_number(void **state)
{
    (void)state;
    for (int64_t n = 1; n <= 5000; n++) {
        int64_t s = convt_fft_smooth_at_least(n);
        assert_true(s >= n && smooth(s));
        for (int64_t c = n; c < s; c++)
            assert_false(smooth(c));
    }
}

/* A random valid stride-1 problem (the generator's strides set to 1 and its
 * output_padding kept below the dilation, as PyTorch requires). */
static convt_problem draw(uint64_t i)
{
    const convt_random_spec spec = {.dims_mask = 7, .max_output_elems = 1500, .max_channels = 6};
    for (;; i += 1000003) {
        convt_problem p = convt_random_problem(4242, i, &spec);
        for (int d = 0; d < p.dims; d++) {
            p.stride[d] = 1;
            p.out_pad[d] = p.dil[d] > 1 ? p.out_pad[d] % p.dil[d] : 0;
        }
        char why[256];
        if (!convt_problem_check(&p, why, sizeof why) && convt_y_elems(&p) <= 4000)
            return p;
    }
}

static float small_int(uint64_t seed, int64_t i)
{
    return (float)(int)convt_uniform(seed, (uint64_t)i, -3.0f, 4.0f);
}

/* The kernels' five steps on the host, with a circular convolution of
 * length len in place of R2C, product and C2R. */
static void model(const convt_problem *p, const convt_fft_tiles *t, const float *x,
                  const float *w, const float *b, double *y, enum planted bug)
{
    const convt_shape3 s = convt_problem_as_3d(p);
    const int64_t cin_g = p->cin / p->groups, cout_g = p->cout / p->groups;
    const int64_t taps = s.k[0] * s.k[1] * s.k[2], in_plane = s.in[0] * s.in[1] * s.in[2];
    const int64_t out_plane = s.out[0] * s.out[1] * s.out[2];
    double *seg = calloc((size_t)t->points, sizeof *seg);
    double *img = calloc((size_t)t->points, sizeof *img);
    double *acc = calloc((size_t)t->points, sizeof *acc);
    for (int64_t n = 0; n < p->n; n++)
        for (int64_t co = 0; co < p->cout; co++) {
            const int64_t g = co / cout_g, col = co % cout_g;
            for (int64_t tile = 0; tile < t->tiles; tile++) {
                const int64_t j[3] = {tile / (t->count[1] * t->count[2]),
                                      tile / t->count[2] % t->count[1], tile % t->count[2]};
                memset(acc, 0, (size_t)t->points * sizeof *acc);
                for (int64_t c = 0; c < cin_g; c++) {
                    const int64_t ci = g * cin_g + c;
                    for (int64_t pt = 0; pt < t->points; pt++) {
                        const int64_t m[3] = {pt / (t->len[1] * t->len[2]),
                                              pt / t->len[2] % t->len[1], pt % t->len[2]};
                        bool inside = true;
                        int64_t i[3], k[3];
                        for (int d = 0; d < 3; d++) {
                            i[d] = convt_fft_segment_input(j[d], m[d], t->step[d], s.pad[d],
                                                           t->reach[d]) +
                                   (bug == SEGMENT_ONE_OFF && d == 2);
                            inside = inside && i[d] >= 0 && i[d] < s.in[d];
                            k[d] = convt_fft_tap_at(m[d] - (bug == TAP_ONE_OFF && d == 2),
                                                    s.dil[d], s.k[d]);
                        }
                        seg[pt] = inside ? x[(n * p->cin + ci) * in_plane +
                                             (i[0] * s.in[1] + i[1]) * s.in[2] + i[2]]
                                         : 0.0;
                        img[pt] = k[0] >= 0 && k[1] >= 0 && k[2] >= 0
                                      ? w[(ci * cout_g + col) * taps +
                                          (k[0] * s.k[1] + k[1]) * s.k[2] + k[2]]
                                      : 0.0;
                    }
                    /* the circular convolution the FFT computes */
                    for (int64_t pt = 0; pt < t->points; pt++) {
                        const int64_t m[3] = {pt / (t->len[1] * t->len[2]),
                                              pt / t->len[2] % t->len[1], pt % t->len[2]};
                        for (int64_t q = 0; q < t->points; q++) {
                            if (img[q] == 0.0)
                                continue;
                            const int64_t u[3] = {q / (t->len[1] * t->len[2]),
                                                  q / t->len[2] % t->len[1], q % t->len[2]};
                            int64_t v[3];
                            for (int d = 0; d < 3; d++)
                                v[d] = ((m[d] - u[d]) % t->len[d] + t->len[d]) % t->len[d];
                            acc[pt] += seg[(v[0] * t->len[1] + v[1]) * t->len[2] + v[2]] * img[q];
                        }
                    }
                }
                /* read back this tile's outputs */
                for (int64_t o = 0; o < out_plane; o++) {
                    const int64_t od[3] = {o / (s.out[1] * s.out[2]), o / s.out[2] % s.out[1],
                                           o % s.out[2]};
                    int64_t jj[3], m[3];
                    bool empty = false, mine = true;
                    for (int d = 0; d < 3; d++) {
                        convt_fft_point_of_output(od[d], t->step[d], t->reach[d], &jj[d], &m[d]);
                        m[d] += bug == POINT_ONE_OFF && d == 2;
                        mine = mine && jj[d] == j[d];
                        empty = empty || convt_fft_output_empty(od[d], s.pad[d], s.in[d],
                                                                s.k[d], s.dil[d]);
                    }
                    if (!mine)
                        continue;
                    double v = b ? b[co] : 0.0;
                    if (!empty && m[2] < t->len[2])
                        v += acc[(m[0] * t->len[1] + m[1]) * t->len[2] + m[2]];
                    y[(n * p->cout + co) * out_plane + o] = v;
                }
            }
        }
    free(seg);
    free(img);
    free(acc);
}

/* Runs the model on `count` random problems; returns how many differed
 * from the definition anywhere. */
static int model_mismatches(int count, enum planted bug, int *multi_tile)
{
    int wrong = 0;
    for (int c = 0; c < count; c++) {
        convt_problem p = draw((uint64_t)c);
        const int64_t budgets[] = {8, 16, 64, 512, 4096};
        convt_fft_tiles t;
        char why[256];
        int64_t budget = budgets[c % 5];
        while (!convt_fft_tiles_plan(&p, budget, &t, why, sizeof why))
            budget *= 2;
        if (bug == CORRECT) {
            const convt_shape3 s = convt_problem_as_3d(&p);
            assert_true(t.points <= budget);
            assert_int_equal(t.rank, p.dims);
            for (int d = 0; d < 3; d++) {
                assert_true(smooth(t.len[d]) && t.len[d] >= t.reach[d]);
                assert_int_equal(t.reach[d], s.dil[d] * (s.k[d] - 1) + 1);
                assert_true(t.count[d] * t.step[d] >= s.out[d]);
                assert_true((t.count[d] - 1) * t.step[d] < s.out[d]);
            }
            *multi_tile += t.tiles > 1;
        }
        const int64_t xn = convt_x_elems(&p), wn = convt_w_elems(&p), yn = convt_y_elems(&p);
        float *x = malloc((size_t)xn * sizeof *x), *w = malloc((size_t)wn * sizeof *w);
        float *b = p.bias ? malloc((size_t)p.cout * sizeof *b) : NULL;
        for (int64_t i = 0; i < xn; i++)
            x[i] = small_int(1, i);
        for (int64_t i = 0; i < wn; i++)
            w[i] = small_int(2, i);
        for (int64_t i = 0; b && i < p.cout; i++)
            b[i] = small_int(3, i);
        double *ref = malloc((size_t)yn * sizeof *ref), *y = malloc((size_t)yn * sizeof *y);
        for (int64_t i = 0; i < yn; i++)
            y[i] = NAN; /* an output the model never writes fails the comparison */
        convt_reference(&p, x, w, b, ref, NULL);
        model(&p, &t, x, w, b, y, bug);
        int64_t i = 0;
        while (i < yn && y[i] == ref[i])
            i++;
        wrong += i < yn;
        free(x), free(w), free(b), free(ref), free(y);
    }
    return wrong;
}

static void tiles_compute_every_output_by_definition(void **state)
{
    (void)state;
    int multi = 0;
    assert_int_equal(model_mismatches(300, CORRECT, &multi), 0);
    assert_true(multi > 100); /* the budgets cut most problems into several tiles */
}

static void planted_index_bugs_are_caught(void **state)
{
    (void)state;
    int unused = 0;
    assert_true(model_mismatches(60, SEGMENT_ONE_OFF, &unused) > 30);
    assert_true(model_mismatches(60, POINT_ONE_OFF, &unused) > 30);
    assert_true(model_mismatches(60, TAP_ONE_OFF, &unused) > 30);
}

static void empty_outputs_are_those_no_tap_reaches(void **state)
{
    (void)state;
    uint64_t rng = 77;
    int empties = 0;
    for (int c = 0; c < 20000; c++) {
        const int64_t in = convt_next_in(&rng, 1, 12), k = convt_next_in(&rng, 1, 6),
                      dil = convt_next_in(&rng, 1, 4);
        const int64_t reach = dil * (k - 1) + 1, pad = convt_next_in(&rng, 0, reach - 1);
        const int64_t out = in - 1 - 2 * pad + reach - 1 + convt_next_in(&rng, 0, dil - 1) + 1;
        for (int64_t o = 0; o < out; o++) {
            bool reached = false;
            for (int64_t kk = 0; kk < k; kk++)
                reached = reached || convt_gather_src(o, kk, 1, pad, dil, in) >= 0;
            assert_int_equal(convt_fft_output_empty(o, pad, in, k, dil), !reached);
            empties += !reached;
        }
    }
    assert_true(empties > 100);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(smooth_lengths_are_the_next_smooth_number),
        cmocka_unit_test(tiles_compute_every_output_by_definition),
        cmocka_unit_test(planted_index_bugs_are_caught),
        cmocka_unit_test(empty_outputs_are_those_no_tap_reaches),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
