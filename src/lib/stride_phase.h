/* The stride-phase arithmetic of a transposed convolution, along one
 * spatial dimension, written once for the host (C11) and the device (CUDA),
 * beside the problem model (as CUTLASS keeps its strided-dgrad helpers beside
 * conv2d_problem_size.h). Every variant that does not test each (output,
 * tap) pair for divisibility uses these:
 *
 *   scatter form   o = i*stride - pad + k*dil           (convt_scatter_dst)
 *   gather form    i = (o + pad - k*dil) / stride, when that divides
 *                  exactly and lands in [0, in)         (convt_gather_src)
 *   phases         outputs o with the same residue ph = (o + pad) mod stride
 *                  are reached by the same taps: those with
 *                  k*dil = ph (mod stride), which are
 *                  step = stride / gcd(stride, dil) apart (convt_phase_step);
 *                  the first one is convt_first_reaching_tap. */
#ifndef CONVT_SRC_LIB_STRIDE_PHASE_H
#define CONVT_SRC_LIB_STRIDE_PHASE_H

#include <stdint.h>

#include "hostdevice.h"

/* floor(a / b) and ceil(a / b) for b > 0 and a of either sign (C division
 * truncates toward zero). */
CONVT_HD int64_t convt_floor_div(int64_t a, int64_t b)
{
    return a >= 0 ? a / b : -((-a + b - 1) / b);
}

CONVT_HD int64_t convt_ceil_div(int64_t a, int64_t b) { return -convt_floor_div(-a, b); }

CONVT_HD int64_t convt_gcd(int64_t p, int64_t q)
{
    while (q) {
        int64_t t = p % q;
        p = q;
        q = t;
    }
    return p;
}

/* The output position input i reaches through tap k (may be outside [0, out)). */
CONVT_HD int64_t convt_scatter_dst(int64_t i, int64_t k, int64_t stride, int64_t pad, int64_t dil)
{
    return i * stride - pad + k * dil;
}

/* The input position that output position o receives through tap k, or -1
 * when none. t is tested for >= 0 before the division, because C division
 * truncates toward zero and (-1)/2 == 0 would otherwise pass. */
CONVT_HD int64_t convt_gather_src(int64_t o, int64_t k, int64_t stride, int64_t pad, int64_t dil,
                                  int64_t in)
{
    int64_t t = o + pad - k * dil;
    if (t < 0 || t % stride != 0)
        return -1;
    int64_t i = t / stride;
    return i < in ? i : -1;
}

/* Distance between two taps that reach the same phase. */
CONVT_HD int64_t convt_phase_step(int64_t stride, int64_t dil)
{
    return stride / convt_gcd(stride, dil);
}

/* The most taps (of k_count) that reach one phase: ceil(k_count / step),
 * the phase whose first tap is tap 0 having the most. */
CONVT_HD int64_t convt_phase_taps_max(int64_t k_count, int64_t stride, int64_t dil)
{
    const int64_t step = convt_phase_step(stride, dil);
    return (k_count + step - 1) / step;
}

/* The first tap (of k_count) whose k*dil has o + pad's residue mod stride,
 * i.e. that reaches output o if its input is in range; k_count when none
 * does. Only the first `step` taps need looking at. */
CONVT_HD int64_t convt_first_reaching_tap(int64_t o, int64_t stride, int64_t pad, int64_t dil,
                                          int64_t k_count, int64_t step)
{
    for (int64_t k = 0; k < k_count && k < step; k++)
        if ((o + pad - k * dil) % stride == 0)
            return k;
    return k_count;
}

/* An output's taps along one dimension, walked in 32-bit arithmetic (col2im
 * visits them for every output it writes, where convt_gather_src over all
 * k costs a 64-bit division a tap): tap k reaches o exactly when
 * o + pad - k*dil = i*stride, so after the first such tap (some k < step)
 * they are every step-th (convt_phase_step), each reading
 * di = step*dil/stride inputs fewer. The walk: from convt_tap_walk_at,
 * k += step and i -= di while k < k_count and i >= 0 (i only falls); a tap
 * is read where i < in. With dil 1 the first tap is o + pad's residue.
 * The same (tap, input) pairs as convt_gather_src (tests/test_period_taps.c);
 * o + pad must fit an int. */
typedef struct convt_tap_walk {
    int k, i;
} convt_tap_walk;

/* The first tap of the walk of t = o + pad, given its quotient
 * q = t / stride (col2im divides by multiply-high). */
CONVT_HD convt_tap_walk convt_tap_walk_at(int t, int q, int stride, int dil, int k_count, int step)
{
    const int r = t - q * stride;
    convt_tap_walk w = {k_count, -1};
    if (dil == 1) {
        if (r < k_count)
            w.k = r, w.i = q;
        return w;
    }
    for (int k = 0; k < k_count && k < step; k++)
        if ((t - k * dil) % stride == 0) {
            w.k = k, w.i = (t - k * dil) / stride; /* negative: no tap reaches o */
            return w;
        }
    return w;
}

/* The taps of a walk that read an input in range, counted without stepping
 * through those that do not: the walk's j-th tap (k = w.k + j step,
 * i = w.i - j di) is read for lo <= j < hi (hi <= lo: none). The first tap
 * is below step, so k_per + (w.k < k_rem) taps stay below k_count, where
 * k_per = k_count / step and k_rem = k_count % step are the caller's, once:
 * no division where di is 1 (every undilated layer). Exactly the taps the
 * walk reads (tests/test_period_taps.c); col2im's loops run over it
 * (session 61). */
typedef struct convt_tap_span {
    int lo, hi;
} convt_tap_span;

CONVT_HD convt_tap_span convt_tap_walk_span(convt_tap_walk w, int di, int k_per, int k_rem, int in)
{
    convt_tap_span s = {0, 0};
    if (w.i < 0)
        return s; /* also no first tap: w.k = k_count */
    const int below_k = k_per + (w.k < k_rem), at_least_0 = (di == 1 ? w.i : w.i / di) + 1;
    s.hi = below_k < at_least_0 ? below_k : at_least_0;
    if (w.i >= in) { /* i must fall by w.i - in + 1 */
        const int over = w.i - in + 1;
        s.lo = di == 1 ? over : (over + di - 1) / di;
    }
    return s;
}

/* Whether tap k reaches phase ph (a residue in [0, stride)), and the
 * offset q - i between the phase's output index q (o = q*stride + ph - pad)
 * and the input index i it reads: k*dil - ph = off*stride. */
CONVT_HD int convt_tap_reaches_phase(int64_t k, int64_t ph, int64_t stride, int64_t dil,
                                     int64_t *off)
{
    int64_t kd = k * dil - ph;
    if (kd < 0 || kd % stride != 0)
        return 0;
    *off = kd / stride;
    return 1;
}

/* The period form, for kernels that compute every phase of a stretch of
 * outputs at once (direct_periods): period q holds the outputs o = q*stride
 * + ph - pad, ph in [0, stride), so that o's period is floor((o + pad) /
 * stride) and its phase the residue. Tap k reaches phase (k*dil) mod
 * stride of every period, and in period q it reads input q - floor(k*dil /
 * stride) (then o + pad - k*dil = (q - off) * stride exactly). */
CONVT_HD int64_t convt_period_of(int64_t o, int64_t stride, int64_t pad)
{
    return convt_floor_div(o + pad, stride);
}

CONVT_HD int64_t convt_tap_period_phase(int64_t k, int64_t stride, int64_t dil)
{
    return k * dil % stride;
}

CONVT_HD int64_t convt_tap_period_offset(int64_t k, int64_t stride, int64_t dil)
{
    return k * dil / stride;
}

/* The stretches of row_mma_tf32: `pgroups` groups of 8 consecutive periods,
 * every phase of each, in n-tiles of 8 periods of one phase. Tile J holds
 * phase J mod stride of period group J / stride (phases fastest, so that a
 * warp's consecutive tiles mix phases and a phase no tap reaches idles no
 * warp), or nothing (-1) past stride x pgroups tiles; its first period
 * (from the stretch's) is 8 x (J / stride). Period p's phase ph is element
 * p * stride + ph of the stretch's output tile, which holds the outputs
 * q_first * stride - pad + e; a tap of period offset off reads window
 * position p + off_max - off, the window starting at input q_first -
 * off_max (checked by tests/test_period_taps.c). */
CONVT_HD int convt_stretch_tile_phase(int tile, int stride, int pgroups)
{
    const int pg = tile / stride;
    return pg < pgroups ? tile - pg * stride : -1;
}

CONVT_HD int convt_stretch_tile_period(int tile, int stride) { return tile / stride * 8; }

CONVT_HD int convt_stretch_element(int period, int ph, int stride) { return period * stride + ph; }

CONVT_HD int convt_stretch_window_pos(int period, int off, int off_max)
{
    return period + off_max - off;
}

#endif
