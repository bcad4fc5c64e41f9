/* col2im's map from a thread to the outputs it sums and the columns it
 * reads (im2col_gemm, kernels/cuda_im2col_gemm.cu), written once for the
 * GPU kernel and for the CPU test that checks it against the gather
 * definition (tests/test_col2im_map.c): a thread's index arithmetic is
 * the part of col2im no float64 reference can localise when it is wrong.
 *
 * cols element (image nl of the chunk, output channel co, tap k, input
 * position i) is at nl * image_stride + (co * taps + k) * row_stride + i:
 * per-image GEMMs give [nl][g][m][i] (image_stride groups * M * P,
 * row_stride P), merged ones [g][m][nl][i] (P, images * P). Tap k is
 * (k0 K1 + k1) K2 + k2 and position i (i0 L1 + i1) L2 + i2, so a
 * dimension's tap and input move the element by fixed distances.
 *
 * A thread sums `outs` consecutive outputs of an output row (the same
 * image, channel and outer positions): the index split and the outer two
 * dimensions' taps are worked out once for them, and each output adds only
 * its innermost dimension's walk. Each dimension's taps that reach an
 * output and read an input in range (its stride phase's: convt_tap_walk_at,
 * then convt_tap_walk_span) are counted first, so that the loops only read
 * and add, a pointer step a tap. Session 61 measured a thread an output at
 * about 370 instructions an output on SimpleBaseline (2 x 2 taps), most of
 * them the index split and the three dimensions' set-up, not the taps;
 * session 62, 4 outputs a thread at 0.63x the instructions and 0.83x the
 * time. The split is by multiply-high divisions (64-bit divisions had cost
 * more than the reads: session 60). */
#ifndef CONVT_SRC_COL2IM_MAP_H
#define CONVT_SRC_COL2IM_MAP_H

#include <stdint.h>

#include "problem.h"
#include "fastdiv.h"
#include "hostdevice.h"
#include "stride_phase.h"

/* restrict in both languages; the unroll pragma in the device pass only
 * (the host compiler warns of it) */
#ifdef __CUDACC__
#define CONVT_COL2IM_RESTRICT __restrict__
#else
#define CONVT_COL2IM_RESTRICT restrict
#endif
#ifdef __CUDA_ARCH__
#define CONVT_COL2IM_UNROLL _Pragma("unroll")
#else
#define CONVT_COL2IM_UNROLL
#endif

typedef struct convt_col2im_dim {
    int pad, stride, dil, k, in, step, di; /* the tap walk (convt_tap_walk_at) */
    int k_per, k_rem;                      /* k / step, k % step (convt_tap_walk_span) */
    convt_fastdiv out_div, stride_div;     /* the output index's split; o + pad's quotient */
    int64_t tap_dist, in_dist;             /* a tap's and an input's distance in the columns */
    int64_t walk_dist;                     /* the walk's next tap: step taps on, di inputs back */
} convt_col2im_dim;

typedef struct convt_col2im_args {
    int64_t taps, image_stride, row_stride;
    uint32_t threads;        /* rows x segs: a thread a segment of an output row */
    convt_col2im_dim dim[3];
    convt_fastdiv seg_div;   /* a row's segments: ceil(out[2] / outs) */
    convt_fastdiv cout_div;  /* a chunk's output index split (count < 2^31) */
} convt_col2im_args;

/* The arguments for count outputs (a chunk's: images x cout x outputs an
 * image, below 2^31) with the columns laid out as above, outs (1, 2 or 4)
 * outputs a thread. */
static inline convt_col2im_args convt_col2im_args_of(const convt_problem *p, int64_t count,
                                                     int64_t image_stride, int64_t row_stride,
                                                     int outs)
{
    convt_col2im_args a;
    const convt_shape3 s = convt_problem_as_3d(p);
    a.taps = convt_taps(p);
    a.image_stride = image_stride;
    a.row_stride = row_stride;
    a.cout_div = convt_fastdiv_make((uint32_t)p->cout);
    const int64_t segs = (s.out[2] + outs - 1) / outs;
    a.seg_div = convt_fastdiv_make((uint32_t)segs);
    a.threads = (uint32_t)(count / s.out[2] * segs);
    int64_t tap_dist = row_stride, in_dist = 1;
    for (int d = 2; d >= 0; d--) {
        convt_col2im_dim *m = &a.dim[d];
        m->pad = (int)s.pad[d], m->stride = (int)s.stride[d], m->dil = (int)s.dil[d];
        m->k = (int)s.k[d], m->in = (int)s.in[d];
        m->step = (int)convt_phase_step(s.stride[d], s.dil[d]);
        m->di = m->step * m->dil / m->stride;
        m->k_per = m->k / m->step, m->k_rem = m->k % m->step;
        m->out_div = convt_fastdiv_make((uint32_t)s.out[d]);
        m->stride_div = convt_fastdiv_make((uint32_t)m->stride);
        m->tap_dist = tap_dist, m->in_dist = in_dist;
        m->walk_dist = m->step * tap_dist - m->di * in_dist;
        tap_dist *= s.k[d], in_dist *= s.in[d];
    }
    return a;
}

/* Dimension m's taps that reach output o and read an input in range, and
 * where the first of them sits in the columns, relative to the row's base. */
CONVT_HD convt_tap_span convt_col2im_taps(const convt_col2im_dim *m, int o, int64_t *offset)
{
    const int t = o + m->pad;
    const int q = (int)convt_fastdiv_div(m->stride_div, (uint32_t)t);
    const convt_tap_walk w = convt_tap_walk_at(t, q, m->stride, m->dil, m->k, m->step);
    const convt_tap_span span = convt_tap_walk_span(w, m->di, m->k_per, m->k_rem, m->in);
    *offset = (int64_t)(w.k + span.lo * m->step) * m->tap_dist +
              (int64_t)(w.i - span.lo * m->di) * m->in_dist;
    return span;
}

/* Thread idx (below a->threads) of a launch at outs outputs a thread (the
 * kernel's template argument, a constant once inlined): sums its outputs'
 * taps from cols, with the bias b (NULL: none), into y, the chunk's first
 * image. */
CONVT_HD void convt_col2im_thread(const convt_col2im_args *a, uint32_t idx, int outs,
                                  const float *CONVT_COL2IM_RESTRICT cols,
                                  const float *CONVT_COL2IM_RESTRICT b,
                                  float *CONVT_COL2IM_RESTRICT y)
{
    const uint32_t row = convt_fastdiv_div(a->seg_div, idx); /* (nl, co, o0, o1) */
    const int o2_first = (int)(idx - row * a->seg_div.d) * outs;
    const int out2 = (int)a->dim[2].out_div.d;
    int o[2];
    uint32_t r = row;
    for (int d = 1; d >= 0; d--) {
        const uint32_t q = convt_fastdiv_div(a->dim[d].out_div, r);
        o[d] = (int)(r - q * a->dim[d].out_div.d);
        r = q;
    }
    const uint32_t nl = convt_fastdiv_div(a->cout_div, r); /* image within the chunk */
    const int co = (int)(r - nl * a->cout_div.d);
    const float bias = b ? b[co] : 0.0f;
    float *out = y + (int64_t)row * out2;
    const int o2_end = o2_first + outs < out2 ? o2_first + outs : out2;
    int64_t off0, off1;
    const convt_tap_span span0 = convt_col2im_taps(&a->dim[0], o[0], &off0);
    const convt_tap_span span1 = convt_col2im_taps(&a->dim[1], o[1], &off1);
    if (span0.hi <= span0.lo || span1.hi <= span1.lo) { /* no tap of an outer dimension reads */
        for (int o2 = o2_first; o2 < o2_end; o2++)
            out[o2] = bias;
        return;
    }
    const float *base = cols + nl * a->image_stride + co * a->taps * a->row_stride + off0 + off1;
    CONVT_COL2IM_UNROLL
    for (int j = 0; j < outs; j++) {
        const int o2 = o2_first + j;
        if (o2 >= o2_end)
            break;
        int64_t off2;
        const convt_tap_span span2 = convt_col2im_taps(&a->dim[2], o2, &off2);
        float acc = bias;
        if (span2.lo < span2.hi) {
            const float *p0 = base + off2;
            for (int j0 = span0.lo; j0 < span0.hi; j0++, p0 += a->dim[0].walk_dist) {
                const float *p1 = p0;
                for (int j1 = span1.lo; j1 < span1.hi; j1++, p1 += a->dim[1].walk_dist) {
                    const float *p2 = p1;
                    for (int j2 = span2.lo; j2 < span2.hi; j2++, p2 += a->dim[2].walk_dist)
                        acc += *p2;
                }
            }
        }
        out[o2] = acc;
    }
}

#endif
