/* The stride phases folded into the output channels (src/lib/fold_phases.h)
 * against the float64 reference, over 400 random shapes that fold (1-3
 * dimensions, strides with 2 to 16 phases, powers of two or not, kernels
 * of 1 to 3 strides, whole or padded with zero taps to whole strides,
 * every pad and out_pad that folds, groups, bias): the folded problem's
 * reference, with W built by convt_fold_weight_index (zero where
 * convt_fold_tap_present says a tap is padding), mapped back by
 * convt_fold_output (plus the bias of the original channel), is the
 * original's reference, and the map hits every output exactly once. The
 * kernels' epilogue and weight image call these same functions; the
 * epilogue's lanes (convt_fold_lane_of) store each of a warp's rows and
 * columns once, as the phase and channel it is, a warp's store whole runs
 * along the innermost dimension, and the shift form of the power-of-two
 * kernels agrees with the division one.
 * convt_fold_check refuses what does not fold, naming why. The identity
 * fold of any problem (every stride, dilation and group count) maps each
 * weight to its own index. */
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

static uint64_t rng_state = 12345;
static int64_t pick(int64_t lo, int64_t hi) { return convt_next_in(&rng_state, lo, hi); }

/* A random problem that folds along its `inner` innermost dimensions
 * (every one for CONVT_FOLD_ALL): strides with at most 16 phases in all
 * there (1 along some dimensions; 3, 5, 6 as well as powers of two), k a
 * multiple of the stride, or (padded: half the time) any k from 1 to 3
 * strides that leaves at least CONVT_FOLD_MIN_PRESENT of the padded
 * kernel's taps w's own. A partial fold's outer dimensions, which it
 * leaves alone, take any stride, kernel, dilation, pad and out_pad. */
static convt_problem random_foldable(bool padded, int inner)
{
    for (;;) {
        convt_problem p = convt_problem_default((int)pick(inner == CONVT_FOLD_ALL ? 1 : inner + 1, 3));
        p.n = pick(1, 2);
        p.groups = pick(1, 3);
        p.cin = p.groups * pick(1, 3);
        p.cout = p.groups * pick(1, 3);
        p.bias = pick(0, 1);
        int64_t S = 1;
        double present = 1.0;
        for (int d = 0; d < p.dims; d++) {
            p.in[d] = pick(1, p.dims == 3 ? 4 : 9);
            if (!convt_fold_folds(&p, inner, d)) {
                p.stride[d] = pick(1, 3);
                p.k[d] = pick(1, 4);
                p.dil[d] = pick(1, 2);
                p.pad[d] = pick(0, p.dil[d] * (p.k[d] - 1));
                const int64_t most = (p.stride[d] > p.dil[d] ? p.stride[d] : p.dil[d]) - 1;
                p.out_pad[d] = pick(0, most);
                continue;
            }
            p.stride[d] = pick(1, p.dims == 1 ? 16 : p.dims == 2 ? 5 : 3);
            p.k[d] = padded ? pick(1, 3 * p.stride[d]) : p.stride[d] * pick(1, 3);
            const int64_t m = (p.k[d] + p.stride[d] - 1) / p.stride[d], extra = m * p.stride[d] - p.k[d];
            present *= (double)p.k[d] / (double)(m * p.stride[d]);
            p.pad[d] = pick(0, p.k[d] - 1);
            const int64_t reach = p.pad[d] + extra; /* the most out_pad the folded positions cover */
            p.out_pad[d] = pick(0, reach < p.stride[d] - 1 ? reach : p.stride[d] - 1);
            S *= p.stride[d];
        }
        char why[200];
        if (S < 2 || S > CONVT_FOLD_MAX_PHASES || present < CONVT_FOLD_MIN_PRESENT ||
            convt_problem_check(&p, why, sizeof why) || convt_out_spatial(&p) <= 0)
            continue;
        assert_null(convt_fold_check(&p, inner, why, sizeof why));
        return p;
    }
}

/* The folded epilogue's stores, as its lanes make them
 * (convt_fold_lane_of), over every warp of a group's fcout_g folded rows:
 * each (row, column) of a warp's 16 x 32 chunk stored exactly once, by a
 * lane of the row's phase, to the row's original channel; and each store
 * of the warp (a step k, an outer phase q) covers whole groups of s[2]
 * neighbouring outputs along the innermost dimension for step columns (a
 * column u's s[2] phases at u s[2] + r2), so that where s[2] is a power of
 * two a store is 32 neighbouring floats. Where S is a power of two, the
 * kernel's shift form (row r, channel co_w >> lgS, the phase split by
 * shifts) gives the same. */
static void check_epilogue_lanes(const convt_fold *f, int fcout_g)
{
    const int S = f->S;
    for (int r = 0; r < S; r++) {
        int ph[3];
        convt_fold_phase(f, r, ph);
        for (int d = 0; d < 3; d++)
            assert_true(ph[d] >= 0 && ph[d] < f->s[d]);
        assert_int_equal((ph[0] * f->s[1] + ph[1]) * f->s[2] + ph[2], r);
        if (convt_fold_pow2(f)) {
            int sh[3];
            convt_fold_phase_pow2(f, r, sh);
            assert_memory_equal(sh, ph, sizeof ph);
        }
    }
    for (int co_w = 0; co_w < fcout_g; co_w += 16) {
        const int rows_out = fcout_g - co_w < 16 ? fcout_g - co_w : 16;
        int hits[16][32];
        memset(hits, 0, sizeof hits);
        const convt_fold_lane l0 = convt_fold_lane_of(f, 0);
        assert_true(l0.P >= f->s[2] && 2 * f->s[2] > l0.P && l0.P * l0.step == 32);
        assert_int_equal(l0.outer * f->s[2], S);
        for (int k = 0; k < l0.P; k++)
            for (int q = 0; q < l0.outer; q++) {
                int inner[32 * CONVT_FOLD_MAX_PHASES]; /* the store's innermost outputs, u s[2] + r2 */
                memset(inner, 0, sizeof inner);
                for (int lane = 0; lane < 32; lane++) {
                    const convt_fold_lane l = convt_fold_lane_of(f, lane);
                    assert_int_equal(l.P, l0.P);
                    assert_int_equal(l.step, l0.step);
                    assert_int_equal(l.outer, l0.outer);
                    assert_int_equal(l.storing, l.r2 < f->s[2]);
                    if (!l.storing)
                        continue;
                    const int col = k * l.step + l.u, r = q * f->s[2] + l.r2;
                    inner[l.u * f->s[2] + l.r2]++;
                    const int row0 = convt_fold_row0(f, co_w, r);
                    assert_true(row0 >= 0 && row0 < S);
                    if (convt_fold_pow2(f)) {
                        assert_int_equal(row0, r);
                        assert_int_equal(convt_fold_channel(f, co_w + row0), co_w >> f->lgS);
                    }
                    for (int row = row0; row < rows_out; row += S) {
                        assert_int_equal((co_w + row) % S, r);
                        assert_int_equal(convt_fold_channel(f, co_w + row),
                                         convt_fold_channel(f, co_w + row0) + (row - row0) / S);
                        hits[row][col]++;
                    }
                }
                for (int i = 0; i < l0.step * f->s[2]; i++)
                    assert_int_equal(inner[i], 1);
            }
        for (int row = 0; row < rows_out; row++)
            for (int col = 0; col < 32; col++)
                assert_int_equal(hits[row][col], 1);
    }
}

/* convt_fold_run_in_y against every position of the run, on random
 * phases, positions (at y's edges too) and spans: true exactly where each
 * of them lies in y, and then each s[2] floats after the one before. */
static void check_runs(const convt_fold *f)
{
    for (int trial = 0; trial < 200; trial++) {
        int ph[3], t[3];
        convt_fold_phase(f, (int)pick(0, f->S - 1), ph);
        for (int d = 0; d < 3; d++)
            t[d] = (int)pick(-2, (f->out[d] + f->pad[d]) / f->s[d] + 2);
        const int span = (int)pick(0, 31);
        int64_t off = -1;
        const bool run = convt_fold_run_in_y(f, ph, t[0], t[1], t[2], span, &off);
        bool all = true;
        for (int k = 0; k <= span; k++) {
            int64_t o;
            const bool in = convt_fold_output(f, ph, t[0], t[1], t[2] + k, &o);
            all = all && in;
            if (run)
                assert_true(in && o == off + (int64_t)k * f->s[2]);
        }
        assert_int_equal(run, all);
    }
}

static void check_one(const convt_problem *p, int inner)
{
    const convt_problem fp = convt_fold_problem(p, inner);
    const convt_fold f = convt_fold_of(p, inner);
    char why[200];
    assert_null(convt_problem_check(&fp, why, sizeof why));
    assert_int_equal(fp.cout, p->cout * f.S);
    assert_int_equal(f.s[0] * f.s[1] * f.s[2], f.S);
    check_epilogue_lanes(&f, (int)(fp.cout / fp.groups));
    check_runs(&f);
    float *x = random_tensor(convt_x_elems(p), 1), *w = random_tensor(convt_w_elems(p), 2);
    float *b = random_tensor(convt_b_elems(p), 3);

    /* W from w, every element through the fold's map */
    const int64_t cin_g = p->cin / p->groups, fcout_g = fp.cout / fp.groups, mtaps = convt_taps(&fp);
    float *W = malloc(sizeof *W * (size_t)convt_w_elems(&fp));
    assert_non_null(W);
    for (int64_t ci = 0; ci < p->cin; ci++)
        for (int cf = 0; cf < fcout_g; cf++)
            for (int j = 0; j < mtaps; j++) {
                /* a zero tap of a kernel padded to whole strides, as the
                 * weight image's kernel finds it: its phase's bit of the
                 * tap's mask */
                const bool present = convt_fold_tap_present(&f, (int)(cf % f.S), j);
                assert_int_equal(present, (convt_fold_tap_phases(&f, j) >> (cf % f.S)) & 1);
                if (!present) {
                    assert_true(convt_fold_padded(&f));
                    W[(ci * fcout_g + cf) * mtaps + j] = 0.0f;
                    continue;
                }
                const int tb = convt_fold_tap_base(&f, j);
                const int64_t src = convt_fold_weight_index(&f, ci, cf, tb);
                assert_true(src >= 0 && src < convt_w_elems(p));
                /* the weight image's kernel sums an input-channel term, an
                 * output-channel term and the tap's place */
                const int64_t ci_step = convt_fold_weight_index(&f, 1, 0, 0) - convt_fold_weight_index(&f, 0, 0, 0);
                assert_int_equal(src, ci * ci_step + convt_fold_weight_index(&f, 0, cf, 0) + tb);
                W[(ci * fcout_g + cf) * mtaps + j] = w[src];
            }
    (void)cin_g;

    const int64_t ny = convt_y_elems(p), nY = convt_y_elems(&fp);
    double *ref = malloc(sizeof *ref * (size_t)ny), *Ref = malloc(sizeof *Ref * (size_t)nY);
    int *hits = calloc((size_t)ny, sizeof *hits);
    assert_non_null(ref);
    assert_non_null(Ref);
    assert_non_null(hits);
    convt_reference(p, x, w, b, ref, NULL);
    convt_reference(&fp, x, W, NULL, Ref, NULL);

    /* every folded output, mapped back */
    const convt_shape3 Fs = convt_problem_as_3d(&fp);
    int64_t i = 0;
    for (int64_t n = 0; n < fp.n; n++)
        for (int64_t co = 0; co < fp.cout; co++)
            for (int t0 = 0; t0 < Fs.out[0]; t0++)
                for (int t1 = 0; t1 < Fs.out[1]; t1++)
                    for (int t2 = 0; t2 < Fs.out[2]; t2++, i++) {
                        const int64_t g = co / fcout_g, cf = co % fcout_g;
                        const int64_t c = g * f.cout_g + cf / f.S; /* the original channel */
                        int ph[3];
                        convt_fold_phase(&f, (int)(cf % f.S), ph);
                        int64_t off;
                        if (!convt_fold_output(&f, ph, t0, t1, t2, &off))
                            continue;
                        assert_true(off >= 0 && off < f.out_plane);
                        const int64_t o = (n * p->cout + c) * f.out_plane + off;
                        hits[o]++;
                        const double want = ref[o], got = Ref[i] + (p->bias ? b[c] : 0.0);
                        if (fabs(want - got) > 1e-9 * (1.0 + fabs(want))) {
                            char key[160];
                            convt_problem_key(p, key, sizeof key);
                            fail_msg("%s: output %lld is %.12g, folded gives %.12g", key,
                                     (long long)o, want, got);
                        }
                    }
    assert_int_equal(i, nY);
    for (int64_t o = 0; o < ny; o++)
        if (hits[o] != 1) {
            char key[160];
            convt_problem_key(p, key, sizeof key);
            fail_msg("%s: output %lld hit %d times", key, (long long)o, hits[o]);
        }
    free(x), free(w), free(b), free(W), free(ref), free(Ref), free(hits);
}

static void folded_equals_reference(void **state)
{
    (void)state;
    int not_pow2 = 0, strides[17] = {0}, padded = 0;
    for (int s = 0; s < 400; s++) {
        const convt_problem p = random_foldable(s % 2, CONVT_FOLD_ALL);
        check_one(&p, CONVT_FOLD_ALL);
        const convt_fold f = convt_fold_of(&p, CONVT_FOLD_ALL);
        not_pow2 += !convt_fold_pow2(&f);
        strides[f.S]++;
        padded += convt_fold_padded(&f);
    }
    /* both forms of the epilogue, the odd strides among them, and kernels
     * padded to whole strides (most of the padded half: k may still be a
     * whole number of strides there) */
    assert_true(not_pow2 >= 80 && not_pow2 <= 320);
    assert_true(strides[3] > 0 && strides[5] > 0 && strides[6] > 0 && strides[9] > 0);
    assert_true(padded >= 100 && padded <= 200);
}

/* Partial folds (polyphase_wgmma_fold_inner_tf32): the innermost one or two
 * dimensions folded, the outer ones kept with any stride, dilation, pad
 * and out_pad, on 300 random shapes; the folded problem's reference,
 * mapped back, is the original's, every output hit once. The outer
 * dimensions' strides and dilations must have been exercised, and the
 * fold's map be the identity along them. */
static void partial_folds_equal_reference(void **state)
{
    (void)state;
    int strided_outer = 0, dilated_outer = 0, padded = 0, by_inner[3] = {0};
    for (int s = 0; s < 300; s++) {
        const int inner = 1 + s % 2;
        const convt_problem p = random_foldable(s % 4 < 2, inner);
        check_one(&p, inner);
        const convt_fold f = convt_fold_of(&p, inner);
        const convt_problem fp = convt_fold_problem(&p, inner);
        for (int d = 0; d < p.dims - inner; d++) {
            const int d3 = d + 3 - p.dims; /* convt_problem_as_3d's index */
            assert_int_equal(f.s[d3], 1);
            assert_int_equal(f.m[d3], p.k[d]);
            assert_int_equal(f.pad[d3], 0);
            assert_int_equal(fp.stride[d], p.stride[d]);
            assert_int_equal(fp.k[d], p.k[d]);
            strided_outer += p.stride[d] > 1;
            dilated_outer += p.dil[d] > 1;
        }
        padded += convt_fold_padded(&f);
        by_inner[inner]++;
    }
    assert_true(strided_outer >= 100 && dilated_outer >= 50 && padded >= 30);
    assert_int_equal(by_inner[1], 150);
    assert_int_equal(by_inner[2], 150);
}

/* The realistic layers that fold, as configs/realistic.json has them. */
static void realistic_layers_fold(void **state)
{
    (void)state;
    convt_problem p = convt_problem_default(1);
    p.n = 1, p.cin = 4, p.cout = 3, p.in[0] = 7, p.k[0] = 16, p.stride[0] = 8, p.pad[0] = 4;
    check_one(&p, CONVT_FOLD_ALL); /* vocoder: k 2 x stride 8 */
    p = convt_problem_default(2);
    p.n = 1, p.cin = 3, p.cout = 2, p.in[0] = 5, p.in[1] = 6, p.bias = true;
    p.k[0] = p.k[1] = p.stride[0] = p.stride[1] = 2;
    check_one(&p, CONVT_FOLD_ALL); /* UNet 2x2 */
    p = convt_problem_default(1);
    p.n = 2, p.cin = 3, p.cout = 5, p.in[0] = 9, p.k[0] = 10, p.stride[0] = 5, p.pad[0] = 3;
    check_one(&p, CONVT_FOLD_ALL); /* EnCodec / SoundStream: k 2 x stride 5 */
    p.cout = 7, p.k[0] = 12, p.stride[0] = 6, p.pad[0] = 3, p.out_pad[0] = 0, p.bias = true;
    check_one(&p, CONVT_FOLD_ALL); /* BigVGAN-like: k 2 x stride 6, 7 x 6 = 42 folded rows over three warps */
    p = convt_problem_default(2);
    p.n = 1, p.cin = 2, p.cout = 3, p.in[0] = 4, p.in[1] = 5, p.bias = true;
    p.k[0] = p.k[1] = p.stride[0] = p.stride[1] = 3, p.pad[0] = 1, p.pad[1] = 2, p.out_pad[1] = 1;
    check_one(&p, CONVT_FOLD_ALL); /* a 2-D stride-3 upsampler: 9 phases */
}

static void refuses_what_does_not_fold(void **state)
{
    (void)state;
    char why[200];
    convt_problem p = convt_problem_default(1);
    p.n = 1, p.cin = 2, p.cout = 2, p.in[0] = 8, p.k[0] = 16, p.stride[0] = 8, p.pad[0] = 4;
    assert_null(convt_fold_check(&p, CONVT_FOLD_ALL, why, sizeof why));
    p.k[0] = 15; /* padded with a zero tap to 16: folds */
    assert_null(convt_fold_check(&p, CONVT_FOLD_ALL, why, sizeof why));
    p.out_pad[0] = 5; /* pad 4 + the one zero tap reach it */
    assert_null(convt_fold_check(&p, CONVT_FOLD_ALL, why, sizeof why));
    p.out_pad[0] = 6; /* past them */
    assert_non_null(convt_fold_check(&p, CONVT_FOLD_ALL, why, sizeof why));
    assert_non_null(strstr(why, "out_pad[0] = 6 exceeds pad[0] + 1 = 5"));
    p.out_pad[0] = 0;
    p.k[0] = 16, p.dil[0] = 2;
    assert_non_null(convt_fold_check(&p, CONVT_FOLD_ALL, why, sizeof why));
    assert_non_null(strstr(why, "dil[0]"));
    p.dil[0] = 1, p.pad[0] = 0, p.out_pad[0] = 1;
    assert_non_null(convt_fold_check(&p, CONVT_FOLD_ALL, why, sizeof why));
    assert_non_null(strstr(why, "out_pad[0]"));
    p.out_pad[0] = 0, p.k[0] = 3, p.stride[0] = 1;
    assert_non_null(convt_fold_check(&p, CONVT_FOLD_ALL, why, sizeof why)); /* one phase: nothing to fold */
    assert_non_null(strstr(why, "nothing to fold"));
    p.k[0] = 32, p.stride[0] = 32;
    assert_non_null(convt_fold_check(&p, CONVT_FOLD_ALL, why, sizeof why));
    assert_non_null(strstr(why, "32 stride phases"));
    p.k[0] = 34, p.stride[0] = 17;
    assert_non_null(convt_fold_check(&p, CONVT_FOLD_ALL, why, sizeof why)); /* one past the most */
    assert_non_null(strstr(why, "17 stride phases"));
    p.k[0] = 6, p.stride[0] = 3;
    assert_null(convt_fold_check(&p, CONVT_FOLD_ALL, why, sizeof why)); /* 3 phases fold */
    p = convt_problem_default(2);
    p.n = 1, p.cin = 2, p.cout = 2, p.in[0] = p.in[1] = 4;
    p.k[0] = 10, p.stride[0] = 5, p.k[1] = 8, p.stride[1] = 4;
    assert_non_null(convt_fold_check(&p, CONVT_FOLD_ALL, why, sizeof why)); /* 5 x 4 = 20 phases */
    assert_non_null(strstr(why, "20 stride phases"));
    p.k[0] = 1, p.stride[0] = 3, p.k[1] = 1, p.stride[1] = 2; /* 1 tap of 6 */
    assert_non_null(convt_fold_check(&p, CONVT_FOLD_ALL, why, sizeof why));
    assert_non_null(strstr(why, "83% zero taps: folding takes at most 50%"));
    p.k[0] = 3, p.stride[0] = 2, p.k[1] = 3, p.stride[1] = 2; /* PyTorch's decoder layer: 9 of 16 */
    assert_null(convt_fold_check(&p, CONVT_FOLD_ALL, why, sizeof why));
    p = convt_problem_default(3); /* in 3-D, 27 of 64: measured to lose */
    p.n = 1, p.cin = 2, p.cout = 2, p.in[0] = p.in[1] = p.in[2] = 4;
    for (int d = 0; d < 3; d++)
        p.k[d] = 3, p.stride[d] = 2, p.pad[d] = 1, p.out_pad[d] = 1;
    assert_non_null(convt_fold_check(&p, CONVT_FOLD_ALL, why, sizeof why));
    assert_non_null(strstr(why, "58% zero taps"));
    /* folded along the innermost one or two dimensions alone: 3 of 4 and 9
     * of 16 taps w's; the outer ones may keep a dilation or an out_pad
     * the fold could not take */
    assert_null(convt_fold_check(&p, 1, why, sizeof why));
    assert_null(convt_fold_check(&p, 2, why, sizeof why));
    p.dil[0] = 2, p.out_pad[0] = 1;
    assert_null(convt_fold_check(&p, 2, why, sizeof why));
    assert_non_null(convt_fold_check(&p, 3, why, sizeof why));
    assert_non_null(strstr(why, "dil[0]"));
    p.stride[1] = p.stride[2] = 1, p.out_pad[1] = p.out_pad[2] = 0;
    assert_non_null(convt_fold_check(&p, 2, why, sizeof why));
    assert_non_null(strstr(why, "stride 1 along the 2 innermost dimensions"));
    assert_non_null(convt_fold_check(&p, 4, why, sizeof why));
    assert_non_null(strstr(why, "4 innermost dimensions folded"));
}

/* The identity fold, through the same two functions the weight image's
 * kernel calls, gives w's own index of every (channel, channel, tap), on
 * random problems of any stride, dilation and kernel. */
static void identity_fold_is_the_plain_index(void **state)
{
    (void)state;
    for (int s = 0; s < 300; s++) {
        convt_problem p = convt_problem_default((int)pick(1, 3));
        p.groups = pick(1, 3);
        p.cin = p.groups * pick(1, 4);
        p.cout = p.groups * pick(1, 5);
        for (int d = 0; d < p.dims; d++) {
            p.k[d] = pick(1, 5);
            p.stride[d] = pick(1, 4);
            p.dil[d] = pick(1, 3);
            p.in[d] = pick(1, 6);
        }
        const convt_fold f = convt_fold_identity(&p);
        assert_int_equal(f.S, 1);
        const int64_t cout_g = p.cout / p.groups, ktaps = convt_taps(&p);
        assert_int_equal(f.ktaps, ktaps);
        for (int64_t ci = 0; ci < p.cin; ci++)
            for (int co = 0; co < cout_g; co++)
                for (int t = 0; t < ktaps; t++) {
                    assert_int_equal(convt_fold_weight_index(&f, ci, co, convt_fold_tap_base(&f, t)),
                                     (ci * cout_g + co) * ktaps + t);
                    const int64_t ci_step =
                        convt_fold_weight_index(&f, 1, 0, 0) - convt_fold_weight_index(&f, 0, 0, 0);
                    assert_int_equal(ci * ci_step + convt_fold_weight_index(&f, 0, co, 0) + convt_fold_tap_base(&f, t),
                                     (ci * cout_g + co) * ktaps + t);
                }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(folded_equals_reference),
        cmocka_unit_test(partial_folds_equal_reference),
        cmocka_unit_test(realistic_layers_fold),
        cmocka_unit_test(refuses_what_does_not_fold),
        cmocka_unit_test(identity_fold_is_the_plain_index),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
