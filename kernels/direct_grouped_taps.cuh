/* What the direct (float32 FMA) variants share: direct_grouped,
 * direct_grouped_staged, direct_window and direct_periods. The tap walk:
 * for an output line (o0, o1, and a stride phase ph along the innermost
 * dimension), the taps that reach it along each dimension and the inputs
 * they read, found without a division per tap; the staged kernels' tile
 * decode; and their host code (dimensions, knob refusals, the prepared
 * state, its launch and release). One place for this index arithmetic and
 * this code; every direct kernel's file includes it. */
#ifndef CONVT_KERNELS_DIRECT_GROUPED_TAPS_CUH
#define CONVT_KERNELS_DIRECT_GROUPED_TAPS_CUH

#include <stdio.h>
#include <stdlib.h>

#include "cuda_check.h"
#include "fastdiv.h"
#include "hostdevice.h"
#include "problem.h"
#include "smem_limit.cuh"
#include "stride_phase.h"
#include "variant.h"

enum { DG_MAX_CIN_G = 16 /* input channels per group, at most */ };

/* One spatial dimension's tap walk: the taps that reach a phase are k, k +
 * step, ..., and the inputs they read i, i - di, ... */
struct dg_dim {
    int k, stride, pad, dil, step, di;
    int dil_mod, dil_div; /* dil = dil_div * stride + dil_mod */
    int in, out;
    convt_fastdiv by_stride;
};

/* The first tap along d that reaches output position o (o + pad >= 0), and
 * the input position it reads, which may be negative (then so are the
 * others': i falls as k rises); false when no tap reaches o's phase. k*dil
 * is walked as dil_div * k + (its residue mod stride), so that no division
 * runs inside the loop: the first k whose residue is (o + pad)'s reads
 * (o + pad - k*dil) / stride = q - (k*dil - r) / stride. */
__device__ __forceinline__ bool dg_first_tap(const dg_dim &d, int o, int &k, int &i)
{
    const int t = o + d.pad;
    const int q = (int)convt_fastdiv_div(d.by_stride, (uint32_t)t);
    const int r = t - q * d.stride;
    int kd = 0, m = 0; /* k*dil = m * stride + kd */
    for (k = 0; k < d.k && k < d.step; k++) {
        if (kd == r) {
            i = q - m;
            return true;
        }
        kd += d.dil_mod;
        m += d.dil_div;
        if (kd >= d.stride)
            kd -= d.stride, m++;
    }
    return false;
}

/* The input offset of the last tap that reaches a phase whose first tap kf
 * reads offset cf: the first tap reads the highest inputs, the last the
 * lowest, di apart. */
__device__ __forceinline__ int dg_last_offset(const dg_dim &d, int kf, int cf)
{
    return cf - (d.k - 1 - kf) / d.step * d.di;
}

/* Of the taps along d from (kf, i_f) on (each reading i di lower), the ones
 * whose input is in range: the first one's tap and input into (k, i), and
 * their count. They are consecutive: those past the input's end come
 * first, those before its start last. */
__device__ __forceinline__ int dg_taps_in_range(const dg_dim &d, int kf, int i_f, int &k, int &i)
{
    for (k = kf, i = i_f; k < d.k && i >= d.in; k += d.step, i -= d.di) {
    }
    int n = 0;
    for (int kn = k, in = i; kn < d.k && in >= 0; kn += d.step, in -= d.di)
        n++;
    return n;
}

/* A line's (o0, o1, phase ph along the innermost dimension) first reaching
 * tap along each dimension and the input it reads; the same for every
 * chunk of the line. */
struct dg_line {
    bool reached; /* some tap reaches the line along every dimension */
    int k0f, i0f, k1f, i1f, k2f, c2f;
    int c2_last; /* the last reaching innermost tap's input offset */
};

__device__ __forceinline__ dg_line dg_line_of(const dg_dim &d0, const dg_dim &d1,
                                              const dg_dim &d2, int o0, int o1, int ph)
{
    dg_line l;
    l.reached = dg_first_tap(d0, o0, l.k0f, l.i0f) && dg_first_tap(d1, o1, l.k1f, l.i1f) &&
                dg_first_tap(d2, ph, l.k2f, l.c2f);
    l.c2_last = l.reached ? dg_last_offset(d2, l.k2f, l.c2f) : 0;
    return l;
}

/* The outer taps (k0, k1) that reach output row (o0, o1) with their inputs
 * in range, as k0 * K1 + k1 into tap_k01[] and the input row each reads,
 * (i0 * in1 + i1) * in2, into tap_row[]; their count. For the kernels whose
 * block serves one output row (direct_periods, row_mma_tf32): one thread
 * walks them into shared memory. */
__device__ __forceinline__ int dg_row_outer_taps(const dg_dim &d0, const dg_dim &d1,
                                                 const dg_dim &d2, int o0, int o1, int *tap_k01,
                                                 int *tap_row)
{
    int nt = 0, k0, i0, k1f, i1f;
    if (dg_first_tap(d0, o0, k0, i0) && dg_first_tap(d1, o1, k1f, i1f))
        for (; k0 < d0.k && i0 >= 0; k0 += d0.step, i0 -= d0.di) {
            if (i0 >= d0.in)
                continue;
            for (int k1 = k1f, i1 = i1f; k1 < d1.k && i1 >= 0; k1 += d1.step, i1 -= d1.di)
                if (i1 < d1.in) {
                    tap_k01[nt] = k0 * d1.k + k1;
                    tap_row[nt] = (i0 * d1.in + i1) * d2.in;
                    nt++;
                }
        }
    return nt;
}

/* The tile of output lines a block of the staged kernels serves (direct_grouped_staged,
 * direct_window): blockIdx.x = ((o0 * tiles1 + t1) * stride2 + ph) * segs + seg,
 * lines t1 * lines .. + lines - 1 along the second-innermost dimension, stretch seg
 * along the innermost (phase ph); blockIdx.y, the image and output channels, is each
 * kernel's own. */
struct dg_tile {
    int o0, o1_first, ph, seg;
};

__device__ __forceinline__ dg_tile dg_tile_of(convt_fastdiv by_segs, convt_fastdiv by_stride2,
                                              convt_fastdiv by_tiles1, int lines)
{
    const int r = blockIdx.x;
    const int r1 = (int)convt_fastdiv_div(by_segs, (uint32_t)r);
    const int r2 = (int)convt_fastdiv_div(by_stride2, (uint32_t)r1);
    dg_tile t;
    t.seg = r - r1 * (int)by_segs.d;
    t.ph = r1 - r2 * (int)by_stride2.d;
    t.o0 = (int)convt_fastdiv_div(by_tiles1, (uint32_t)r2);
    t.o1_first = (r2 - t.o0 * (int)by_tiles1.d) * lines;
    return t;
}

/* The block's weights of output channel col of group g, w[ci of the
 * group][col][taps], into ws[cl][tap]; the caller synchronises. */
__device__ __forceinline__ void dg_stage_weights(float *ws, const float *w, int64_t g, int64_t col,
                                                 int cin_g, int64_t cout_g, int taps)
{
    for (int e = threadIdx.x; e < cin_g * taps; e += blockDim.x) {
        const int cl = e / taps, k = e - cl * taps;
        ws[e] = w[((g * cin_g + cl) * cout_g + col) * taps + k];
    }
}

static inline dg_dim dg_make_dim(const convt_shape3 &s, int d)
{
    dg_dim x;
    x.k = (int)s.k[d], x.stride = (int)s.stride[d], x.pad = (int)s.pad[d], x.dil = (int)s.dil[d];
    x.step = (int)convt_phase_step(s.stride[d], s.dil[d]);
    x.di = (int)(s.dil[d] / convt_gcd(s.stride[d], s.dil[d]));
    x.dil_mod = (int)(s.dil[d] % s.stride[d]), x.dil_div = (int)(s.dil[d] / s.stride[d]);
    x.in = (int)s.in[d], x.out = (int)s.out[d];
    x.by_stride = convt_fastdiv_make((uint32_t)s.stride[d]);
    return x;
}

/* The widest of every dimension's extent, end of padded output, kernel
 * reach and stride: the kernels index along a dimension in 32 bits, and
 * their supports() refuse what would wrap. */
static inline int64_t dg_widest_extent(const convt_shape3 &s)
{
    int64_t widest = 0;
    for (int d = 0; d < 3; d++) {
        const int64_t v[] = {s.in[d], s.out[d] + s.pad[d], s.k[d] * s.dil[d], s.stride[d]};
        for (int i = 0; i < 4; i++)
            widest = v[i] > widest ? v[i] : widest;
    }
    return widest;
}

/* The blocks along the grid's x that dg_tile_of decodes: out0 x tiles1 x
 * stride2 x segs. */
static inline int64_t dg_tile_blocks(const convt_shape3 &s, int64_t tiles1, int64_t segs)
{
    return s.out[0] * tiles1 * s.stride[2] * segs;
}

/* dg_tile_of's digits into a staged kernel's arguments; the grid's x
 * (the caller's supports() bounded it by dg_tile_blocks). */
template <class Args>
static inline unsigned dg_set_tile_digits(Args &a, const convt_shape3 &s, int64_t tiles1,
                                          int64_t segs)
{
    a.by_segs = convt_fastdiv_make((uint32_t)segs);
    a.by_stride2 = convt_fastdiv_make((uint32_t)s.stride[2]);
    a.by_tiles1 = convt_fastdiv_make((uint32_t)tiles1);
    return (unsigned)dg_tile_blocks(s, tiles1, segs);
}

/* The launch of a direct kernel from the state its prepare made (kernel,
 * grid, block, shared memory, arguments), for each variant's state type. */
template <class State>
static int dg_launch_prepared(const convt_problem *p, const convt_launch *l,
                              const convt_tensors *t, void *workspace, void *state,
                              const convt_context *ctx, convt_err *e)
{
    (void)p, (void)l, (void)workspace;
    const State *st = (const State *)state;
    st->kernel<<<st->grid, st->block, st->smem, (cudaStream_t)ctx->stream>>>(st->args, t->x, t->w,
                                                                             t->b, t->y);
    CUDA_TRY_LAUNCH(e);
    return 0;
}

/* Whether a knob's value is one of the n values its kernels are compiled
 * for (n >= 2); if not, the reason, "NAME = V must be A, B or C (compiled)". */
static inline bool dg_knob_compiled(const char *name, int64_t v, const int64_t *compiled, int n,
                                    char *why, size_t why_len)
{
    for (int i = 0; i < n; i++)
        if (v == compiled[i])
            return true;
    int at = snprintf(why, why_len, "%s = %lld must be", name, (long long)v);
    for (int i = 0; i < n && at >= 0 && (size_t)at < why_len; i++)
        at += snprintf(why + at, why_len - (size_t)at, "%s %lld",
                       i == 0 ? "" : i == n - 1 ? " or" : ",", (long long)compiled[i]);
    if (at >= 0 && (size_t)at < why_len)
        snprintf(why + at, why_len - (size_t)at, " (compiled)");
    return false;
}

/* Whether `couts` output channels a thread divide a group's; if not, the
 * reason. */
static inline bool dg_couts_divide_group(const convt_problem *p, int64_t couts, char *why,
                                         size_t why_len)
{
    const int64_t cout_g = p->cout / p->groups;
    if (cout_g % couts == 0)
        return true;
    snprintf(why, why_len, "couts = %lld does not divide the %lld output channels of a group",
             (long long)couts, (long long)cout_g);
    return false;
}

/* The blocks of `couts` output channels that a group's cout_g take: the
 * last one partial where couts does not divide cout_g (its missing
 * channels' weights zero and their outputs not stored: direct_window). */
static inline int64_t dg_coblocks_g(int64_t cout_g, int64_t couts)
{
    return (cout_g + couts - 1) / couts;
}

/* Whether `couts` output channels a thread (one of the n compiled values,
 * ascending) is worth its zero-weight channels on this group: refused where
 * the next smaller compiled value takes as many blocks of the group's
 * channels, so the same input staging for fewer wasted FMAs (couts 8 on 3
 * channels: couts 4's one block); if so, the reason. */
static inline bool dg_couts_fit_group(const convt_problem *p, int64_t couts,
                                      const int64_t *compiled, int n, char *why, size_t why_len)
{
    const int64_t cout_g = p->cout / p->groups;
    int64_t smaller = 0;
    for (int i = 0; i < n; i++)
        if (compiled[i] < couts)
            smaller = compiled[i];
    if (smaller == 0 || dg_coblocks_g(cout_g, smaller) > dg_coblocks_g(cout_g, couts))
        return true;
    snprintf(why, why_len, "couts = %lld takes as many blocks of a group's %lld output channels "
             "(%lld) as couts = %lld, with more zero-weight channels",
             (long long)couts, (long long)cout_g, (long long)dg_coblocks_g(cout_g, couts),
             (long long)smaller);
    return false;
}

/* What a direct kernel's prepare makes once and each launch uses: the
 * arguments, the kernel compiled for the launch's knobs, the grid, block
 * and dynamic shared memory, and the resolved geometry for each record's
 * detail (left empty by the variants without a describe). */
template <class Args, class Kernel>
struct dg_prepared_state {
    Args args;
    Kernel kernel;
    dim3 grid;
    int block;
    size_t smem;
    char detail[160];
};

/* The end of a direct kernel's prepare: the function's dynamic
 * shared-memory limit raised once to all the device allows
 * (kernels/smem_limit.cuh: a later prepare of the same function for a
 * smaller tile must not lower it under this launch's need), then the state
 * handed over; on failure it is freed and the failure is in e. */
template <class State>
static int dg_hand_over(State *st, const convt_context *ctx, void **state, convt_err *e)
{
    if (convt_raise_smem_for((const void *)st->kernel, st->smem, ctx->dev, e)) {
        free(st);
        return -1;
    }
    *state = st;
    return 0;
}

/* A direct variant's release: its state is one calloc'd block. */
static inline void dg_free_state(void *state) { free(state); }

/* The resolved geometry a prepare wrote into its state's detail, into each
 * record's detail. */
template <class State>
static void dg_describe_detail(const void *state, char *buf, size_t len)
{
    snprintf(buf, len, "%s", ((const State *)state)->detail);
}

/* The fields the direct kernels' arguments share (channels, the group's, the
 * input plane, and each dimension's tap walk), set on the host. */
template <class Args>
static inline void dg_set_common(Args &a, const convt_problem *p, const convt_shape3 &s)
{
    a.cin = p->cin;
    a.cout = p->cout;
    a.cin_g = p->cin / p->groups;
    a.cout_g = p->cout / p->groups;
    a.in_plane = s.in[0] * s.in[1] * s.in[2];
    for (int d = 0; d < 3; d++)
        a.d[d] = dg_make_dim(s, d);
}

#endif /* CONVT_KERNELS_DIRECT_GROUPED_TAPS_CUH */
