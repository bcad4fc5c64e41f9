/* row_mma_tf32: transposed convolution on the tensor cores (mma.sync,
 * TF32), a block computing a stretch of one output row, every stride phase
 * of it, and writing it once through shared memory as whole rows: nothing
 * prefilled, no store of a fraction of a sector. For strided layers with
 * few taps per output, whose time is the output's write: kb81 (one tap of
 * 32 channels per reached output, 64% of the outputs reached by none) and
 * kb79 (3 taps of 32, half reached by none) took 1.18 and 1.41 ms in the
 * phase-by-phase GEMM kernels, which prefill the output and then store a
 * fifth or a half of each sector, and 0.75 and 2.67 in direct_periods,
 * whose FMAs on the CUDA cores are as many as the tensor cores' would be
 * (results/notes.md, "Session 19").
 *
 * Period q of the innermost dimension holds the outputs q * stride + ph -
 * pad, ph = 0 .. stride - 1; innermost tap k2 reaches phase (k2 * dil) mod
 * stride of every period and reads input q - floor(k2 * dil / stride)
 * there (src/lib/stride_phase.h, the period form). A block serves `periods`
 * consecutive periods of one output row (o0, o1) for bm output channels of
 * one group. Its GEMM: M = the channels; N = (period, phase) pairs in
 * n-tiles of 8 consecutive periods of one phase (phases fastest, so that
 * each warp's tiles mix phases: a phase no tap reaches costs its tiles
 * nothing); K = (outer tap reaching the row, input channel, innermost tap):
 * a tap multiplies only the n-tiles of its phase, so no zeros are
 * multiplied, and their B operands are consecutive inputs of a staged
 * window. For each (stretch, outer tap, chunk of ck input channels) the
 * block copies the weights (every innermost tap, from the TF32 image
 * poly_pack_weights makes) and the window of input the stretch reads into
 * shared memory by cp.async, one step ahead of the multiplies; where a
 * row's K is one step its weights stay across the block's stretches. At
 * the end of a stretch the accumulators go to a shared tile in output
 * order, and each warp stores whole rows of it, 32 consecutive floats an
 * instruction, with the bias; at stride 2 a lane's accumulators are 4
 * consecutive outputs of a row already, stored as a float4 from registers.
 *
 *   convt-bench --config configs/kernelbench-l1.json */
#include <stdint.h>
#include <stdlib.h>

#include "build_config.h"
#include "cuda_check.h"
#include "direct_grouped_taps.cuh"
#include "fastdiv.h"
#include "polyphase_common.cuh"
#include "stride_phase.h"
#include "variant.h"

enum {
    RM_WARPS = 4,
    RM_THREADS = RM_WARPS * 32,
    RM_MAX_K2 = 32, /* innermost taps, at most (their phases and offsets are arguments) */
    RM_MAX_CK = 32, /* input channels a staging, at most */
    /* the kernel's static shared memory (n_taps and the dynamic array's
     * alignment), counted against the limit */
    RM_STATIC_SMEM = 16,
};

struct rm_args {
    int64_t cin, cout, cin_g, cout_g;
    int64_t in_plane, out_plane;
    dg_dim d[3];
    int tap_ph[RM_MAX_K2], tap_off[RM_MAX_K2]; /* innermost tap k2's phase and period offset */
    int k2;                                    /* innermost taps */
    int k01;                                   /* outer taps: K0 x K1 */
    int off_max;                               /* the largest tap_off */
    int ck, n_cc;     /* input channels a step (a multiple of 8); chunks of ck a group */
    int co_pad;       /* output channels a group in the packed weights */
    int ws_ld, xw, os_ld; /* the staged weights', inputs' and outputs' row lengths (floats) */
    int ws_floats;    /* a weight buffer: k2 x ck x ws_ld */
    int xs_floats;    /* an input buffer: ck x xw */
    int xs_at, os_at, taps_at; /* where the inputs, outputs and tap list begin (floats) */
    int periods;      /* a stretch's periods: 8 x period groups */
    int pgroups;      /* n-tiles a phase */
    int q_lo;         /* the period of output 0 */
    int chunks, cpb;  /* stretches a row; a block's */
    convt_fastdiv by_parts;       /* blockIdx.x = row * parts + part */
    convt_fastdiv by_out1, by_out0; /* row = (n * out0 + o0) * out1 + o1 */
    convt_fastdiv by_coblocks_g;  /* blockIdx.y = g * coblocks + channel block */
};

/* Shared-memory rows whose length is 8 or 24 mod 32 floats: a fragment
 * load's lanes (gid, tig) read row tig (+ 4) at columns spread over 8
 * consecutive floats at most, so the four tig rows fall into four distinct
 * groups of 8 banks. */
static int64_t rm_conflict_free_ld(int64_t floats) { return (floats + 7) / 16 * 16 + 8; }

/* PAIRS: the innermost stride is 2 and a lane's outputs are aligned
 * (rm_geometry_of), so the accumulators are stored from registers (below)
 * rather than through the shared output tile. */
template <int MT, int NT, bool PAIRS>
__global__ void __launch_bounds__(RM_THREADS)
    row_mma_kernel(rm_args a, const float *__restrict__ x, const float *__restrict__ wp,
                   const float *__restrict__ b, float *__restrict__ y)
{
    constexpr int BM = 16 * MT;
    extern __shared__ __align__(16) float rm_smem[];
    unsigned *ws = (unsigned *)rm_smem;        /* one or two buffers of [k2][ck][ws_ld] */
    float *xs = rm_smem + a.xs_at;             /* two buffers of [ck][xw] */
    float *os = rm_smem + a.os_at;             /* [bm][os_ld]: the stretch's outputs */
    int *tap_k01 = (int *)(rm_smem + a.taps_at); /* the outer taps reaching the row */
    int *tap_row = tap_k01 + a.k01;            /* and the input row each reads */
    __shared__ int n_taps;
    const dg_dim d0 = a.d[0], d1 = a.d[1], d2 = a.d[2];
    /* the block's row, stretches and channels */
    const int row = (int)convt_fastdiv_div(a.by_parts, blockIdx.x);
    const int part = (int)blockIdx.x - row * (int)a.by_parts.d;
    const int r01 = (int)convt_fastdiv_div(a.by_out1, (uint32_t)row);
    const int o1 = row - r01 * d1.out;
    const int n = (int)convt_fastdiv_div(a.by_out0, (uint32_t)r01);
    const int o0 = r01 - n * d0.out;
    const int g = (int)convt_fastdiv_div(a.by_coblocks_g, blockIdx.y);
    const int m0 = ((int)blockIdx.y - g * (int)a.by_coblocks_g.d) * BM; /* in the group */
    const int m_valid = min(BM, (int)a.cout_g - m0);
    if (threadIdx.x == 0)
        n_taps = dg_row_outer_taps(d0, d1, d2, o0, o1, tap_k01, tap_row);
    __syncthreads();
    const int nt = n_taps;
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const int gid = lane >> 2, tig = lane & 3;
    const int cin_g = (int)a.cin_g, ck = a.ck, xw = a.xw, ws_ld = a.ws_ld, os_ld = a.os_ld;
    const int iters = nt * a.n_cc;
    const float *xg = x + ((int64_t)n * a.cin + (int64_t)g * cin_g) * a.in_plane;
    const float *wg = wp + (int64_t)g * a.k01 * a.k2 * cin_g * a.co_pad + m0;
    float *yrow = y + ((int64_t)n * a.cout + (int64_t)g * a.cout_g + m0) * a.out_plane +
                  ((int64_t)o0 * d1.out + o1) * d2.out;
    const int first = part * a.cpb, last = min(a.chunks, first + a.cpb);
    /* The block's steps, (stretch, outer tap, channel chunk), run through a
     * two-buffer pipeline: step s + 1's weights and input window are copied
     * by cp.async while step s multiplies (a load waits on DRAM longer than a
     * step multiplies: without it kb79 took 1.95 ms, with it 1.33, in the
     * version before the phase-sorted tiles). Where a row's K is one step,
     * its weights are copied once, into buffer 0. */
    const bool resident = iters == 1;
    const int steps = (last - first) * iters;
    auto stage = [&](int s) {
        const int chunk = first + s / iters, it = s - (s / iters) * iters;
        const int t = it / a.n_cc, c_first = (it - t * a.n_cc) * ck;
        const int buf = s & 1;
        if (!resident || s == 0) {
            /* ws[k2][c][m] = the packed weight (c_first + c, m0 + m, tap): a
             * warp a row, 16 bytes a lane (co_pad and m0 are multiples of 4;
             * the pack's padding is zero) */
            unsigned *wsb = ws + buf * a.ws_floats;
            for (int r = warp; r < a.k2 * ck; r += RM_WARPS) {
                const int k2 = r / ck, c = r - k2 * ck, cl = c_first + c;
                const float *wr = wg + ((int64_t)(tap_k01[t] * a.k2 + k2) * cin_g + cl) * a.co_pad;
                for (int m = 4 * lane; m < BM; m += 128)
                    cp_async16((float *)wsb + r * ws_ld + m, wr + m,
                               cl < cin_g && m0 + m < a.co_pad);
            }
        }
        /* xs[c][j] = input (c_first + c, the tap's row, ib + j), zero
         * outside: a warp a channel, lanes along j */
        const int ib = a.q_lo + chunk * a.periods - a.off_max;
        float *xsb = xs + buf * a.xs_floats;
        for (int c = warp; c < ck; c += RM_WARPS) {
            const int cl = c_first + c;
            const float *xr = xg + (int64_t)cl * a.in_plane + tap_row[t];
            for (int j = lane; j < xw; j += 32) {
                const int i = ib + j;
                cp_async4(xsb + c * xw + j, xr + i, cl < cin_g && (unsigned)i < (unsigned)d2.in);
            }
        }
        cp_async_commit();
    };
    if (steps > 0)
        stage(0);
    /* this warp's n-tiles: tile J = warp * NT + j is period group J / stride,
     * phase J mod stride (tiles past stride x pgroups are idle); its lane
     * gid's column is period tile_p + gid (src/lib/stride_phase.h) */
    int tile_ph[NT], tile_p[NT];
#pragma unroll
    for (int j = 0; j < NT; j++) {
        tile_ph[j] = convt_stretch_tile_phase(warp * NT + j, d2.stride, a.pgroups);
        tile_p[j] = convt_stretch_tile_period(warp * NT + j, d2.stride);
    }
    float acc[MT][NT][4];
    for (int chunk = first; chunk < last; chunk++) {
        zero_tile<MT, NT>(acc);
        for (int it = 0; it < iters; it++) {
            const int s = (chunk - first) * iters + it;
            if (s + 1 < steps)
                stage(s + 1);
            cp_async_wait(s + 1 < steps ? 1 : 0);
            __syncthreads(); /* step s's copies, every thread's, have landed */
            const unsigned *wsb = ws + (resident ? 0 : (s & 1) * a.ws_floats);
            const float *xsb = xs + (s & 1) * a.xs_floats;
            for (int k2 = 0; k2 < a.k2; k2++) {
                const int ph = a.tap_ph[k2], off = a.tap_off[k2];
                const unsigned *wk = wsb + k2 * ck * ws_ld + gid;
                for (int c8 = 0; c8 < ck; c8 += 8) {
                    unsigned af[MT][4];
#pragma unroll
                    for (int i = 0; i < MT; i++) {
                        const unsigned *w0 = wk + (c8 + tig) * ws_ld + 16 * i;
                        af[i][0] = w0[0];
                        af[i][1] = w0[8];
                        af[i][2] = w0[4 * ws_ld];
                        af[i][3] = w0[4 * ws_ld + 8];
                    }
#pragma unroll
                    for (int j = 0; j < NT; j++) {
                        if (tile_ph[j] != ph) /* the same for the whole warp */
                            continue;
                        /* the input, rounded to TF32 here (cp.async copies bits) */
                        const float *x0 = xsb + (c8 + tig) * xw +
                                          convt_stretch_window_pos(tile_p[j] + gid, off,
                                                                   a.off_max);
                        const unsigned bf[2] = {tf32_round(x0[0]), tf32_round(x0[4 * xw])};
#pragma unroll
                        for (int i = 0; i < MT; i++)
                            mma_tf32(acc[i][j], af[i], bf);
                    }
                }
            }
            __syncthreads(); /* buffer s & 1 is free for step s + 2 */
        }
        const int o_first = (a.q_lo + chunk * a.periods) * d2.stride - d2.pad;
        if constexpr (PAIRS) {
            /* Stride 2: tiles j and j + 1 (j even; NT is) are phases 0 and 1
             * of one period group, so a lane holds 4 consecutive outputs of
             * rows gid and gid + 8 (periods 2 tig and 2 tig + 1, both
             * phases): one float4 where aligned, 4 lanes 64 consecutive
             * bytes, whole sectors from registers with no shared tile (which
             * took 33 of kb79's 77 KiB a block, and a third of its
             * instructions). */
#pragma unroll
            for (int j = 0; j < NT; j += 2) {
                const int o = o_first + convt_stretch_element(tile_p[j] + 2 * tig, 0, 2);
#pragma unroll
                for (int i = 0; i < MT; i++)
#pragma unroll
                    for (int h = 0; h < 2; h++) {
                        const int m = 16 * i + 8 * h + gid;
                        if (tile_ph[j] < 0 || m >= m_valid)
                            continue;
                        const float bias = b ? b[(int64_t)g * a.cout_g + m0 + m] : 0.0f;
                        float *yr = yrow + (int64_t)m * a.out_plane + o;
                        const float v0 = acc[i][j][2 * h] + bias, v1 = acc[i][j + 1][2 * h] + bias,
                                    v2 = acc[i][j][2 * h + 1] + bias,
                                    v3 = acc[i][j + 1][2 * h + 1] + bias;
                        if (o >= 0 && o + 3 < d2.out && ((uintptr_t)yr & 15u) == 0) {
                            *reinterpret_cast<float4 *>(yr) = make_float4(v0, v1, v2, v3);
                        } else {
                            if (o >= 0 && o < d2.out)
                                yr[0] = v0;
                            if (o + 1 >= 0 && o + 1 < d2.out)
                                yr[1] = v1;
                            if (o + 2 >= 0 && o + 2 < d2.out)
                                yr[2] = v2;
                            if (o + 3 >= 0 && o + 3 < d2.out)
                                yr[3] = v3;
                        }
                    }
            }
        } else {
            /* the accumulators into the shared tile in output order: column
             * (period p, phase ph) at p * stride + ph */
#pragma unroll
            for (int j = 0; j < NT; j++) {
                if (tile_ph[j] < 0)
                    continue;
                const int e = convt_stretch_element(tile_p[j] + 2 * tig, tile_ph[j], d2.stride);
#pragma unroll
                for (int i = 0; i < MT; i++)
#pragma unroll
                    for (int h = 0; h < 2; h++) {
                        float *o = os + (16 * i + 8 * h + gid) * os_ld + e;
                        o[0] = acc[i][j][2 * h];
                        o[d2.stride] = acc[i][j][2 * h + 1];
                    }
            }
            __syncthreads();
            /* whole rows, with the bias: a warp a channel, 32 consecutive
             * outputs a store; bounds tested only in a row's first and last
             * stretches (Nsight Compute on kb79 with them tested everywhere:
             * the kernel issue-bound at 62% of slots, its most sampled
             * instructions this loop's) */
            const int span = a.periods * d2.stride;
            const bool inside = o_first >= 0 && o_first + span <= d2.out;
            for (int m = warp; m < m_valid; m += RM_WARPS) {
                const float bias = b ? b[(int64_t)g * a.cout_g + m0 + m] : 0.0f;
                const float *src = os + m * os_ld;
                float *yr = yrow + (int64_t)m * a.out_plane;
                if (inside) {
                    float *dst = yr + o_first;
#pragma unroll 4
                    for (int e = lane; e < span; e += 32)
                        dst[e] = src[e] + bias;
                } else {
                    for (int e = lane; e < span; e += 32) {
                        const int o = o_first + e;
                        if (o >= 0 && o < d2.out)
                            yr[o] = src[e] + bias;
                    }
                }
            }
            __syncthreads(); /* the tile is free for the next stretch */
        }
    }
}

extern "C" const convt_variant convt_variant_row_mma_tf32;

/* A launch's geometry: the stretch's periods (bn / 8 n-tiles, as many
 * whole groups of 8 periods of every phase as fit), the periods of a row
 * (q_lo .. : outputs 0 .. out2 - 1), stretches a row and a block's; the
 * outer taps reaching a row at most; a step's channels; the shared
 * buffers' row lengths and places. */
typedef struct rm_geometry {
    int64_t pgroups, periods, q_lo, chunks, cpb, parts, rows, coblocks, reach, off_max, ck, n_cc,
        ws_ld, xw, os_ld, ws_floats, xs_floats, ws_bufs, xs_at, os_at, taps_at;
    bool pairs;
    size_t smem;
} rm_geometry;

static rm_geometry rm_geometry_of(const convt_problem *p, const convt_shape3 &s, int64_t bm,
                                  int64_t bn, int sm_count)
{
    rm_geometry gm;
    const int64_t cin_g = p->cin / p->groups, cout_g = p->cout / p->groups;
    gm.pgroups = bn / 8 / s.stride[2]; /* 0: the stride is too wide for bn (refused) */
    gm.periods = 8 * gm.pgroups;
    gm.q_lo = convt_period_of(0, s.stride[2], s.pad[2]);
    const int64_t row_periods = convt_period_of(s.out[2] - 1, s.stride[2], s.pad[2]) - gm.q_lo + 1;
    gm.chunks = gm.periods ? (row_periods + gm.periods - 1) / gm.periods : 0;
    gm.rows = p->n * s.out[0] * s.out[1];
    gm.coblocks = p->groups * ((cout_g + bm - 1) / bm);
    gm.reach = convt_phase_taps_max(s.k[0], s.stride[0], s.dil[0]) *
               convt_phase_taps_max(s.k[1], s.stride[1], s.dil[1]);
    gm.off_max = convt_tap_period_offset(s.k[2] - 1, s.stride[2], s.dil[2]);
    gm.ck = cin_g < RM_MAX_CK ? (cin_g + 7) / 8 * 8 : (int64_t)RM_MAX_CK;
    gm.n_cc = (cin_g + gm.ck - 1) / gm.ck;
    gm.ws_ld = rm_conflict_free_ld(bm);
    gm.xw = rm_conflict_free_ld(gm.periods + gm.off_max); /* the window: periods and reach */
    /* the output tile's rows odd: a lane's stores (rows gid, columns 2 tig x
     * stride) spread over the banks */
    const int64_t span = gm.periods * s.stride[2];
    gm.os_ld = span | 1;
    gm.ws_floats = s.k[2] * gm.ck * gm.ws_ld;
    gm.xs_floats = gm.ck * gm.xw;
    /* Where a row's K is one step, the weights need one buffer, and a block
     * keeps them over several stretches: as many as leave about 16 blocks an
     * SM in all. */
    const bool resident = gm.reach * gm.n_cc == 1;
    gm.ws_bufs = resident ? 1 : 2;
    const int64_t stretches = gm.rows * gm.coblocks * gm.chunks;
    const int64_t want = 16 * (int64_t)(sm_count > 0 ? sm_count : 1);
    gm.cpb = resident && stretches > want ? stretches / want : 1;
    if (gm.cpb > gm.chunks)
        gm.cpb = gm.chunks;
    gm.parts = gm.cpb ? (gm.chunks + gm.cpb - 1) / gm.cpb : 0;
    gm.xs_at = gm.ws_bufs * gm.ws_floats;
    gm.os_at = gm.xs_at + 2 * gm.xs_floats;
    /* At stride 2, stored from registers (no output tile) where a lane's 4
     * outputs are 16-byte aligned: rows a multiple of 4 floats, and
     * stretches starting at a multiple of 4 (they start at 16 periods'
     * steps from output 2 q_lo - pad). Unaligned, its 4 scalar stores fill
     * a sector a quarter at a time: kb79 (pad 1, rows of 262145) took 1.16
     * ms that way against 1.04 through the tile, kb77 (rows of 65) 1.95
     * against 2.81 (results/notes.md, "Session 19"). */
    gm.pairs = s.stride[2] == 2 && s.out[2] % 4 == 0 && (2 * gm.q_lo - s.pad[2]) % 4 == 0;
    gm.taps_at = gm.os_at + (gm.pairs ? 0 : bm * gm.os_ld);
    gm.smem = sizeof(float) * (size_t)(gm.taps_at + 2 * s.k[0] * s.k[1]);
    return gm;
}

struct rm_knobs {
    int64_t bm, bn;
};

static rm_knobs rm_knobs_of(const convt_launch *l)
{
    const convt_variant *v = &convt_variant_row_mma_tf32;
    return {convt_launch_get(v, l, "bm"), convt_launch_get(v, l, "bn")};
}

static bool rm_supports(const convt_problem *p, const convt_launch *l, const convt_context *ctx,
                        char *why, size_t why_len)
{
    const rm_knobs k = rm_knobs_of(l);
    static const int64_t bms[] = {16, 32, 64}, bns[] = {64, 128, 256};
    if (!dg_knob_compiled("bm", k.bm, bms, 3, why, why_len) ||
        !dg_knob_compiled("bn", k.bn, bns, 3, why, why_len))
        return false;
    if (k.bm * k.bn > 64 * 128) {
        snprintf(why, why_len, "bm x bn = %lld x %lld outputs a block would need %lld "
                 "accumulators a thread (64 at most)",
                 (long long)k.bm, (long long)k.bn, (long long)(k.bm * k.bn / RM_THREADS));
        return false;
    }
    const convt_shape3 s = convt_problem_as_3d(p);
    if (s.k[2] > RM_MAX_K2) {
        snprintf(why, why_len, "the innermost dimension has %lld taps; the kernel takes their "
                 "phases as arguments, for up to %d",
                 (long long)s.k[2], (int)RM_MAX_K2);
        return false;
    }
    if (s.stride[2] * 8 > k.bn) {
        snprintf(why, why_len, "bn = %lld holds %lld n-tiles of 8 periods of one phase; the "
                 "innermost stride %lld needs one for each of its phases",
                 (long long)k.bn, (long long)(k.bn / 8), (long long)s.stride[2]);
        return false;
    }
    const rm_geometry gm = rm_geometry_of(p, s, k.bm, k.bn, ctx->dev->sm_count);
    if (gm.coblocks > 65535) {
        snprintf(why, why_len, "puts %lld channel blocks on the grid's y axis (limit 65535)",
                 (long long)gm.coblocks);
        return false;
    }
    if (gm.smem + RM_STATIC_SMEM > ctx->dev->smem_per_block_optin) {
        snprintf(why, why_len, "needs %.1f KiB of shared memory (the weights of %lld input "
                 "channels, %lld innermost taps and %lld output channels, the input window of "
                 "%lld periods and the output tile of %lld), the device allows %.1f KiB",
                 (gm.smem + RM_STATIC_SMEM) / 1024.0, (long long)gm.ck, (long long)s.k[2],
                 (long long)k.bm, (long long)(gm.periods + gm.off_max),
                 (long long)(gm.periods * s.stride[2]),
                 ctx->dev->smem_per_block_optin / 1024.0);
        return false;
    }
    /* 32-bit indices: extents, the grid's x, an input row's offset in its
     * plane, the stretches' ends */
    const int64_t widest = dg_widest_extent(s);
    const int64_t blocks_x = gm.rows * gm.parts;
    const int64_t in_plane = s.in[0] * s.in[1] * s.in[2];
    const int64_t o_end = (gm.q_lo + gm.chunks * gm.periods + 1) * s.stride[2] + s.pad[2];
    const int64_t w_floats = poly_packed_weight_floats(p);
    if (widest > INT32_MAX / 4 || blocks_x > INT32_MAX || in_plane > INT32_MAX ||
        o_end > INT32_MAX || gm.rows > INT32_MAX || w_floats > INT32_MAX) {
        snprintf(why, why_len, "needs %lld blocks on the grid's x, inputs up to %lld in a "
                 "plane, outputs up to %lld along a row (a dimension of %lld) and %lld packed "
                 "weights, beyond the kernel's 32-bit indices",
                 (long long)blocks_x, (long long)in_plane, (long long)o_end, (long long)widest,
                 (long long)w_floats);
        return false;
    }
    return true;
}

static size_t rm_workspace(const convt_problem *p, const convt_launch *l)
{
    (void)l;
    return sizeof(float) * (size_t)poly_packed_weight_floats(p);
}

typedef void (*rm_kernel_fn)(rm_args, const float *, const float *, const float *, float *);

/* (bm, bn) with bm x bn <= 64 x 128 (rm_supports); PAIRS for stride 2 */
template <bool PAIRS>
static rm_kernel_fn rm_kernel_of(int64_t bm, int64_t bn)
{
    if (bm == 16)
        return bn == 64    ? row_mma_kernel<1, 2, PAIRS>
               : bn == 128 ? row_mma_kernel<1, 4, PAIRS>
                           : row_mma_kernel<1, 8, PAIRS>;
    if (bm == 32)
        return bn == 64    ? row_mma_kernel<2, 2, PAIRS>
               : bn == 128 ? row_mma_kernel<2, 4, PAIRS>
                           : row_mma_kernel<2, 8, PAIRS>;
    return bn == 64 ? row_mma_kernel<4, 2, PAIRS> : row_mma_kernel<4, 4, PAIRS>;
}

typedef dg_prepared_state<rm_args, rm_kernel_fn> rm_state;

static int rm_prepare(const convt_problem *p, const convt_launch *l, const convt_tensors *t,
                      const convt_context *ctx, void **state, size_t *workspace, convt_err *e)
{
    (void)t, (void)workspace;
    const rm_knobs k = rm_knobs_of(l);
    rm_state *st = (rm_state *)calloc(1, sizeof *st);
    if (!st)
        return convt_fail(e, "out of host memory");
    const convt_shape3 s = convt_problem_as_3d(p);
    rm_args &a = st->args;
    dg_set_common(a, p, s);
    a.out_plane = s.out[0] * s.out[1] * s.out[2];
    for (int kk = 0; kk < s.k[2]; kk++) {
        a.tap_ph[kk] = (int)convt_tap_period_phase(kk, s.stride[2], s.dil[2]);
        a.tap_off[kk] = (int)convt_tap_period_offset(kk, s.stride[2], s.dil[2]);
    }
    const rm_geometry gm = rm_geometry_of(p, s, k.bm, k.bn, ctx->dev->sm_count);
    a.k2 = (int)s.k[2];
    a.k01 = (int)(s.k[0] * s.k[1]);
    a.off_max = (int)gm.off_max;
    a.ck = (int)gm.ck;
    a.n_cc = (int)gm.n_cc;
    a.co_pad = (int)poly_packed_co_pad(p);
    a.ws_ld = (int)gm.ws_ld;
    a.xw = (int)gm.xw;
    a.os_ld = (int)gm.os_ld;
    a.ws_floats = (int)gm.ws_floats;
    a.xs_floats = (int)gm.xs_floats;
    a.xs_at = (int)gm.xs_at;
    a.os_at = (int)gm.os_at;
    a.taps_at = (int)gm.taps_at;
    a.periods = (int)gm.periods;
    a.pgroups = (int)gm.pgroups;
    a.q_lo = (int)gm.q_lo;
    a.chunks = (int)gm.chunks;
    a.cpb = (int)gm.cpb;
    a.by_parts = convt_fastdiv_make((uint32_t)gm.parts);
    a.by_out1 = convt_fastdiv_make((uint32_t)s.out[1]);
    a.by_out0 = convt_fastdiv_make((uint32_t)s.out[0]);
    a.by_coblocks_g = convt_fastdiv_make((uint32_t)(gm.coblocks / p->groups));
    st->smem = gm.smem;
    st->grid = dim3((unsigned)(gm.rows * gm.parts), (unsigned)gm.coblocks);
    st->block = RM_THREADS;
    st->kernel = gm.pairs ? rm_kernel_of<true>(k.bm, k.bn) : rm_kernel_of<false>(k.bm, k.bn);
    snprintf(st->detail, sizeof st->detail,
             "periods=%lld chunks=%lld cpb=%lld rows=%lld taps<=%lld ck=%lld cin_chunks=%lld%s smem=%zu",
             (long long)gm.periods, (long long)gm.chunks, (long long)gm.cpb, (long long)gm.rows,
             (long long)gm.reach, (long long)gm.ck, (long long)gm.n_cc,
             gm.pairs ? " pairs" : "", gm.smem);
    return dg_hand_over(st, ctx, state, e);
}

/* Per launch: the weights repacked to TF32 (they are data), then the rows. */
static int rm_launch(const convt_problem *p, const convt_launch *l, const convt_tensors *t,
                     void *workspace, void *state, const convt_context *ctx, convt_err *e)
{
    const rm_state *st = (const rm_state *)state;
    if (poly_pack_weights(p, t->w, (float *)workspace, true, (cudaStream_t)ctx->stream, e))
        return -1;
    (void)l;
    if (st->grid.x == 0)
        return 0;
    st->kernel<<<st->grid, st->block, st->smem, (cudaStream_t)ctx->stream>>>(
        st->args, t->x, (const float *)workspace, t->b, t->y);
    CUDA_TRY_LAUNCH(e);
    return 0;
}

extern "C" const convt_variant convt_variant_row_mma_tf32 = {
    .name = "row_mma_tf32",
    .summary = "TF32 mma.sync, a block computing a stretch of one output row, every stride "
               "phase of it, for a block of output channels (each tap multiplying only its "
               "phase's tiles), written once through shared memory as whole rows, nothing "
               "prefilled; for strided layers whose time is the output's write",
    .backend = CONVT_BACKEND_CUDA,
    .tier = CONVT_TIER_TF32,
    .deterministic = true,
    .n_knobs = 2,
    .knobs = {{.name = "bm",
               .help = "output channels a block (16, 32 or 64; a group's are padded up to a "
                       "multiple): the input is staged cout_g / bm times",
               .n_defaults = 2,
               .defaults = {32, 64}},
              {.name = "bn",
               .help = "outputs of a row a block computes at a time (64, 128 or 256; bm x bn "
                       "at most 64 x 128): 8-period tiles of each phase, so at least 8 x "
                       "the innermost stride; 64 suits short rows",
               .n_defaults = 2,
               .defaults = {64, 128}}},
    .supports = rm_supports,
    .workspace_size = rm_workspace,
    .prepare = rm_prepare,
    .launch = rm_launch,
    .release = dg_free_state,
    .describe = dg_describe_detail<rm_state>,
};
