/* Overlap-save tiles of a stride-1 transposed convolution, for the FFT
 * variant (kernels/cuda_fft_overlap_save.cu): the plan is made on the host,
 * the index maps below are used by the kernels and by the CPU model in
 * tests/test_fft_tiles.c, which checks them against the gather definition.
 *
 * At stride 1, output o of one spatial dimension is the full linear
 * convolution at t = o + pad:
 *     y[o] = sum_k x[o + pad - k*dil] * w[k],
 * whose dilated kernel spans reach = dil*(k-1) + 1 points. A tile of FFT
 * length len makes step = len - reach + 1 consecutive outputs: its segment
 * holds inputs from s0 = j*step + pad - (reach - 1) on, and the circular
 * convolution of that segment with the dilated kernel (taps at 0, dil, ...)
 * equals the linear one at every point m >= reach - 1, which is output
 * o = j*step + m - (reach - 1). Points m < reach - 1 wrap and are thrown
 * away (that is the "save" of overlap-save). Inputs outside [0, in) are
 * zeros of the segment. Outputs no tap reaches (output_padding's tail, and
 * gaps between dilated taps wider than the input) have no contribution at
 * all: the kernels write them as the bias alone, never an FFT's round-off,
 * which the validation's tolerance (relative to the terms' magnitudes,
 * zero there) would not allow. */
#ifndef CONVT_SRC_LIB_FFT_TILES_H
#define CONVT_SRC_LIB_FFT_TILES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hostdevice.h"
#include "problem.h"
#include "stride_phase.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The tiles, per dimension of the 3-D view (convt_problem_as_3d: the
 * leading dimensions a 1-D or 2-D problem does not have are extent 1,
 * len 1). The FFT's rank is the problem's own number of dimensions. */
typedef struct convt_fft_tiles {
    int rank;
    int64_t len[3];     /* FFT length: a 2,3,5,7-smooth number >= reach */
    int64_t reach[3];   /* dil * (k - 1) + 1 */
    int64_t step[3];    /* outputs a tile makes: len - reach + 1 */
    int64_t count[3];   /* tiles: ceil(out / step) */
    int64_t tiles;      /* count[0] * count[1] * count[2] */
    int64_t points;     /* len[0] * len[1] * len[2]: real points of a tile */
    int64_t spectrum;   /* complex points of a tile's half spectrum (last len / 2 + 1) */
} convt_fft_tiles;

/* The most FFT points a tile may have (the kernels index a tile's points
 * in 32 bits, and the planner's products stay small). */
#define CONVT_FFT_MAX_POINTS ((int64_t)1 << 24)

/* The smallest 2,3,5,7-smooth number >= n (n >= 1): lengths cuFFT
 * transforms with its fast radices. */
int64_t convt_fft_smooth_at_least(int64_t n);

/* Chooses each dimension's FFT length for problem p (stride 1) with at
 * most max_points real points a tile, minimising the modelled bytes:
 * (n * (cin + cout) * tiles + cin * cout / groups) * points, the spectra of
 * the inputs, outputs and weights. false with a reason in why when the
 * dilated kernel alone needs more than max_points, or max_points is
 * outside 1 .. CONVT_FFT_MAX_POINTS. */
bool convt_fft_tiles_plan(const convt_problem *p, int64_t max_points, convt_fft_tiles *t,
                          char *why, size_t why_len);

/* The input index of point m of tile j's segment (may be outside [0, in)). */
CONVT_HD int64_t convt_fft_segment_input(int64_t j, int64_t m, int64_t step, int64_t pad,
                                         int64_t reach)
{
    return j * step + pad - (reach - 1) + m;
}

/* The tile j and its point m that hold output o. */
CONVT_HD void convt_fft_point_of_output(int64_t o, int64_t step, int64_t reach, int64_t *j,
                                        int64_t *m)
{
    *j = o / step;
    *m = o - *j * step + reach - 1;
}

/* True when no tap reaches output o along this dimension: no k < k_count
 * with 0 <= o + pad - k * dil < in. Past the full convolution's last point
 * (output_padding's tail), and, where dil > in, between the taps' reaches
 * (tap k reaches t = o + pad in [k * dil, k * dil + in - 1]: with dil <= in
 * those intervals touch, and only the tail is empty; no division then). */
CONVT_HD bool convt_fft_output_empty(int64_t o, int64_t pad, int64_t in, int64_t k_count,
                                     int64_t dil)
{
    const int64_t t = o + pad;
    if (t > in - 1 + (k_count - 1) * dil)
        return true;
    if (dil <= in)
        return false;
    return t % dil >= in; /* t < k_count * dil here: tap t / dil is a tap */
}

/* The tap at point m of the dilated kernel's image (m = k * dil with
 * k < k_count), or -1 where the image is zero. */
CONVT_HD int64_t convt_fft_tap_at(int64_t m, int64_t dil, int64_t k_count)
{
    return m % dil == 0 && m / dil < k_count ? m / dil : -1;
}

#ifdef __cplusplus
}
#endif
#endif /* CONVT_SRC_LIB_FFT_TILES_H */
