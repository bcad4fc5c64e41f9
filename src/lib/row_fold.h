/* A stride-1 dimension folded in pairs into the channels on both sides
 * (polyphase_wgmma_rowfold_tf32): the answer to wgmma's M of 64 where a
 * layer has 32 output channels or fewer and stride 1, so that half of
 * every product and of every tensor-core cycle is padding (kb78, kb71,
 * kb70's 24; results/notes.md, session 40).
 *
 * Along dimension D = dims - 2 of p (the rows of a 2-D shape, the middle
 * dimension of a 3-D one; index 1 of convt_problem_as_3d), with stride 1,
 * dilation 1 and an even input extent, input row 2u + e (e = 0 or 1) is
 * row u of input channel 2 ci + e of a tensor X' of half the rows:
 *
 *   X'[n][2 ci + e][..u..]  =  x[n][ci][..2u + e..]
 *
 * and an output row o = i + kd - pad = 2u + (e + kd) - pad of p is the one
 * a stride-2 layer reading X' gives with a kernel one tap longer:
 *
 *   W'[2 ci + e][c][..kd'..]  =  w[ci][c][..kd' - e..]   (zero where kd' - e
 *                                                          is outside [0, k))
 *
 * whose output has p's extent: (in/2 - 1) 2 - 2 pad + (k + 1) + out_pad =
 * in - 1 + k - 2 pad + out_pad. That stride-2 problem (the row-folded
 * problem) then folds its phases into the output channels as any other
 * (fold_phases.h): 2 x the output channels, 2 x the input channels, half
 * the positions, kernel ceil((k + 1) / 2) along D. At k 3 that is 2 / 3 of
 * the staged input and of the padded products where 32 channels filled
 * half of M, and 4 / 3 of the products where the channels filled it.
 *
 * X' is never written: the kernels read x through the map below (the
 * channel's plane and parity row, and rows CONVT_ROW_FOLD_PITCH apart).
 * W' is written each launch from w (row_fold_weights in
 * kernels/cuda_polyphase_igemm.cu, through convt_row_fold_weight_source),
 * and the weight image is made from it as from any w. The host (C11) and
 * the kernels share what is here; tests/test_row_fold.c checks it against
 * the float64 reference. */
#ifndef CONVT_SRC_LIB_ROW_FOLD_H
#define CONVT_SRC_LIB_ROW_FOLD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hostdevice.h"
#include "problem.h"

#ifdef __cplusplus
extern "C" {
#endif

/* X' row u of the row-folded problem is x's row 2u (+ its parity, in the
 * channel's offset): a row offset of the row-folded problem's input,
 * (i0 * in[1] + i1) * in[2] in convt_problem_as_3d's terms, times this is
 * x's. */
#define CONVT_ROW_FOLD_PITCH 2

/* The most output channels a group that the row fold takes: its gain is
 * wgmma's M filled where the channels left it half empty, and above 32 the
 * 2 x channels need a second 64-channel block, so the padding is what it
 * was and the row-folded kernel's extra products (4/3 at k 3) remain. On
 * the H100 (results/notes.md, session 40) it lost every KernelBench layer
 * of 48 to 128 channels (kb61 0.74x, kb65 0.68x, kb69 0.69x, kb68 0.85x,
 * kb57 0.90x the fastest other kernel) and won or tied every one of 32 or
 * fewer (kb78 1.26x, kb70 1.20x, kb71 and kb58 1.01x). */
#define CONVT_ROW_FOLD_MAX_COUT_G 32

/* NULL when p row-folds: 2 or 3 dimensions; along D stride 1, dilation 1
 * and an even input extent; at most CONVT_ROW_FOLD_MAX_COUT_G output
 * channels a group; the row-folded problem folds its phases
 * (convt_fold_check, every dimension) into S phases, a power of two (the
 * kernels compiled); and at least CONVT_FOLD_MIN_PRESENT of the folded
 * kernel's taps are w's, W''s zero taps counted; otherwise a sentence in
 * buf. */
const char *convt_row_fold_check(const convt_problem *p, char *buf, size_t len);

/* The row-folded problem: along D stride 2, kernel k + 1 and half the
 * input; twice the input channels; the rest as p has them. p must pass
 * convt_row_fold_check. */
convt_problem convt_row_fold_problem(const convt_problem *p);

/* W' from w: the original problem's kernel (convt_problem_as_3d's, D at
 * index 1), its output channels per group, and W''s element count. */
typedef struct convt_row_fold_w {
    int k[3];
    int cout_g;
    int64_t elems; /* convt_w_elems of the row-folded problem */
} convt_row_fold_w;

convt_row_fold_w convt_row_fold_w_of(const convt_problem *p);

/* The element of w that W''s element i is (W' in PyTorch's layout,
 * [2 cin][cout_g][k0][k1 + 1][k2]), or -1 where W' holds zero there. */
CONVT_HD int64_t convt_row_fold_weight_source(const convt_row_fold_w *m, int64_t i)
{
    const int k1f = m->k[1] + 1; /* W''s kernel along D */
    const int t2 = (int)(i % m->k[2]);
    int64_t r = i / m->k[2];
    const int t1f = (int)(r % k1f);
    r /= k1f;
    const int t0 = (int)(r % m->k[0]);
    r /= m->k[0];
    const int64_t c = r % m->cout_g, ci2 = r / m->cout_g;
    const int t1 = t1f - (int)(ci2 & 1); /* kd = kd' - e */
    if (t1 < 0 || t1 >= m->k[1])
        return -1;
    return ((((ci2 >> 1) * m->cout_g + c) * m->k[0] + t0) * m->k[1] + t1) * m->k[2] + t2;
}

/* Where X''s input channel ci2 (counted over all groups) starts in x, in
 * floats: x's channel ci2 / 2, at its row ci2 % 2. plane2 is the row-folded
 * problem's input plane (half x's), row the innermost extent. Four
 * neighbouring channels of X' (an even first) are x's two channels, each
 * 2 plane2 floats from the last: the kernels' step of 4 channels, 4
 * plane2, holds. */
CONVT_HD int64_t convt_row_fold_channel(int64_t ci2, int64_t plane2, int64_t row)
{
    return (ci2 >> 1) * (2 * plane2) + (ci2 & 1) * row;
}

#ifdef __cplusplus
}
#endif
#endif
