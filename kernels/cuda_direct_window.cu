/* direct_window: transposed convolution in float32 FMAs, each thread's
 * outputs summed from a register window of staged inputs. For layers with
 * few output channels per group (depthwise, grouped), where a tensor-core
 * GEMM's tile wastes its rows and direct_grouped_staged's one shared load
 * per tap and output was the limit (dw1d_k31 at 0.83x cuDNN, dw2d_k7 at 10%
 * of the copy floor: results/notes.md, "Session 16"). With many output
 * channels per group a block stages the group's input again for every
 * COUTS of them, and the GEMM kernels win (kb79, kb81: "Session 17").
 *
 * A block serves a tile of neighbouring output lines (along the
 * second-innermost dimension; one o0, one stride phase ph along the
 * innermost; direct_grouped's tap walk, kernels/direct_grouped_taps.cuh)
 * and COUTS (1, 4 or 8) output channels of one group (a group's last
 * block fewer, the rest zero-weight: 3 RGB channels in one block of 4). A
 * thread computes R = 4 consecutive outputs q .. q + 3 of its line's phase
 * for each of its channels, PASSES times over (further lines of the tile, or, where a plane
 * has a single line, further stretches of it). Along the innermost
 * dimension the phase's taps m = 0 .. M-1 read inputs q + c2f - m (di = 1:
 * the kernel refuses a dilation that the stride does not absorb, unless a
 * phase has a single tap), so the R
 * outputs' taps read R + M - 1 consecutive staged floats: the thread loads
 * them as float4 (a warp's loads 16 bytes apart, no bank conflict where a
 * line has 8 threads or more; fewer put a warp on several lines) into
 * registers once, and each float serves up to R taps of COUTS channels. The
 * taps are taken in chunks of T (compiled; T = M for M <= 8, else 4 or 8
 * with zero-weight taps in front to fill the last chunk), so that every
 * window index is a constant: a chunk loads ceil((R + T - 1) / 4) float4 of
 * input and T x COUTS weights (float4 across channels or taps) for R x T x
 * COUTS FMAs (direct_grouped_staged: a load per FMA).
 *
 * The block stages its phase's weights reversed and padded (tap m = m_pad -
 * 1 - t at window tap t, zero for t < m_pad - M) and then, stage by stage,
 * a chunk of the group's input channels of one input plane along the
 * outermost dimension: the rows the tile's lines read, staged element e of
 * a row being input in_first + e, in_first = q_first + c2f - (m_pad - 1),
 * so that output q_first + u * R + j at window tap t reads element u * R +
 * j + t and every thread's window starts on a float4 (this arithmetic:
 * src/lib/window_taps.h, checked by tests/test_window_taps.c). Two buffers: the next
 * stage's copies (4-byte cp.async, zeros outside the input, four floats to a
 * thread's turn) are in flight while this one is summed, and the first
 * stage's are issued before the weights' loads. float32 accumulation in a
 * fixed order: deterministic.
 *
 * direct_window_split (session 57) runs the same kernel with the block's
 * threads in csplit = 2 or 4 sets over one tile's outputs: set c sums the
 * staged channels c, c + csplit, ..., and at the end sets 1 and up leave
 * their sums in the free stage buffers for set 0 to add in the sets' order
 * (still deterministic) and store. For few output channels from many input
 * channels, where one thread per 4 outputs and COUTS channels leaves the
 * SMs a few warps each (a VAE's RGB output from 128 channels: 4 an SM).
 *
 *   convt-bench --config configs/depthwise.json */
#include <stdint.h>
#include <stdlib.h>

#include "build_config.h"
#include "cuda_check.h"
#include "direct_grouped_taps.cuh"
#include "fastdiv.h"
#include "line_tiles.h"
#include "polyphase_common.cuh"
#include "variant.h"
#include "window_taps.h"

enum {
    DW_R = CONVT_WINDOW_R, /* consecutive outputs a thread computes (src/lib/window_taps.h) */
    /* a stage's input rows at most this many KiB (two buffers): fewer
     * channels a stage beyond */
    DW_STAGE_KIB = 48,
};

struct dw_args {
    int64_t cin, cout, cin_g, cout_g;
    int64_t in_plane; /* input elements per channel */
    dg_dim d[3];
    convt_fastdiv by_segs, by_stride2, by_tiles1; /* blockIdx.x's digits (dg_tile_of) */
    convt_fastdiv by_coblocks, by_coblocks_g;     /* blockIdx.y = n * coblocks + cob; cob's group */
    convt_fastdiv by_units, by_rows, by_m_pad, by_k01; /* the staging loops' digits */
    int r_step, e_step; /* a block's step over the staged (row, float4) pairs: block / units,
                         * block % units */
    int tpl_log2;       /* threads per line: 1 << tpl_log2 */
    int csplit_log2;    /* the block's threads in 1 << csplit_log2 sets over the same outputs,
                         * set cs summing the stage's channels cs, cs + csplit, ... (0: one
                         * set; direct_window_split: 1 or 2) */
    int along_q;        /* 1: a thread's passes are further stretches of its line (one line a
                         * plane: 1-D layers); 0: further lines of the tile */
    int m_pad;          /* window taps along the innermost dimension: chunks x T */
    int pitch;          /* floats per staged row, a multiple of 4 */
    int rows;           /* staged rows per channel: the most any tile reads */
    int stage_ch;       /* input channels a stage */
    int buf_floats;     /* a stage's rows (stage_ch x rows x pitch): the second buffer's offset */
    int ws_floats;      /* the weights' floats in shared memory, a multiple of 4 */
};

/* The block's weights for the phase whose first innermost tap is k2f, as
 * the window reads them: ws[((cl * K0 + k0) * K1 + k1) * m_pad + t][c] (K0,
 * K1 the kernel's extents) = channel co0 + c's tap m = m_pad - 1 - t of the
 * phase (k2 = k2f + m * step), zero where m is past the phase's taps or c
 * past the block's nco channels (a group's last, partial block). A
 * zero-weight tap still multiplies a real input: an infinite input then
 * makes NaN of outputs that do not read it (README, "Known problems"). The
 * caller synchronises. */
template <int COUTS>
__device__ __forceinline__ void dw_stage_weights(float *ws, const float *w, const dw_args &a,
                                                 int g, int col0, int nco, int k2f)
{
    const dg_dim &d2 = a.d[2];
    const int k01 = (int)a.by_k01.d;
    const int taps = k01 * d2.k;
    const int m_phase = (d2.k - 1 - k2f) / d2.step + 1;
    const int total = (int)a.cin_g * k01 * a.m_pad * COUTS;
    for (int e = threadIdx.x; e < total; e += blockDim.x) {
        const int c = e % COUTS, et = e / COUTS;
        const int wrow = (int)convt_fastdiv_div(a.by_m_pad, (uint32_t)et);
        const int m = convt_window_tap(a.m_pad, et - wrow * a.m_pad);
        float v = 0.0f;
        if (m < m_phase && c < nco) {
            const int cl = (int)convt_fastdiv_div(a.by_k01, (uint32_t)wrow), k = wrow - cl * k01;
            v = w[(((int64_t)g * a.cin_g + cl) * a.cout_g + col0 + c) * taps + k * d2.k + k2f +
                  m * d2.step];
        }
        ws[e] = v;
    }
}

/* Stage (plane i0, channels c0 .. c0 + nch - 1 of the group): rows i1_lo
 * .. i1_lo + rows - 1 of each (zero past the input's last row), staged
 * elements 0 .. pitch - 1 of each row (input in_first + e; zero outside the
 * row), every thread four floats a turn. */
template <int BLOCK>
__device__ __forceinline__ void dw_stage_rows(float *xs, const float *xg, const dw_args &a, int i0,
                                              int c0, int nch, int i1_lo, int in_first)
{
    const dg_dim &d1 = a.d[1], &d2 = a.d[2];
    const int units = (int)a.by_units.d, rows_all = nch * a.rows;
    int ra = (int)convt_fastdiv_div(a.by_units, threadIdx.x);
    int e4 = threadIdx.x - ra * units;
    const int in_plane = (int)a.in_plane, plane_row0 = i0 * d1.in;
    for (; ra < rows_all;) {
        const int cl = (int)convt_fastdiv_div(a.by_rows, (uint32_t)ra);
        const int i1 = i1_lo + ra - cl * a.rows;
        const int i = in_first + 4 * e4;
        /* a 32-bit offset from the group's input (dw_supports_knobs:
         * twice cin_g x in_plane fits); outside the input it points anywhere, as
         * cp_async4 reads nothing there */
        const float *src = xg + ((c0 + cl) * in_plane + (plane_row0 + i1) * d2.in + i);
        float *dst = xs + ra * a.pitch + 4 * e4;
        const bool row_in = i1 < d1.in;
#pragma unroll
        for (int v = 0; v < 4; v++)
            cp_async4(dst + v, src + v, row_in && (unsigned)(i + v) < (unsigned)d2.in);
        e4 += a.e_step, ra += a.r_step;
        if (e4 >= units)
            e4 -= units, ra++;
    }
    cp_async_commit();
}

/* The R outputs' taps of one staged row for COUTS channels: chunks of T
 * window taps, the row's floats from xr (the thread's first), its weights
 * from wr (COUTS per window tap). */
template <int T, int COUTS>
__device__ __forceinline__ void dw_row(float (&acc)[COUTS][DW_R], const float *xr, const float *wr,
                                       int chunks)
{
    constexpr int R = DW_R;
    constexpr int WIN4 = CONVT_WINDOW_FLOATS(T) / 4; /* float4 loads of a chunk's window */
    for (int c = 0; c < chunks; c++, xr += T, wr += T * COUTS) {
        float xw[WIN4 * 4], wt[T * COUTS];
#pragma unroll
        for (int v = 0; v < WIN4; v++) {
            const float4 f = *reinterpret_cast<const float4 *>(xr + 4 * v);
            xw[4 * v] = f.x, xw[4 * v + 1] = f.y, xw[4 * v + 2] = f.z, xw[4 * v + 3] = f.w;
        }
        if constexpr ((T * COUTS) % 4 == 0) {
#pragma unroll
            for (int v = 0; v < T * COUTS / 4; v++) {
                const float4 f = *reinterpret_cast<const float4 *>(wr + 4 * v);
                wt[4 * v] = f.x, wt[4 * v + 1] = f.y, wt[4 * v + 2] = f.z, wt[4 * v + 3] = f.w;
            }
        } else {
#pragma unroll
            for (int t = 0; t < T * COUTS; t++)
                wt[t] = wr[t];
        }
#pragma unroll
        for (int t = 0; t < T; t++)
#pragma unroll
            for (int o = 0; o < COUTS; o++)
#pragma unroll
                for (int j = 0; j < R; j++)
                    acc[o][j] = fmaf(xw[j + t], wt[t * COUTS + o], acc[o][j]);
    }
}

/* Where thread ts of channel set cs > 0 leaves its accumulator (l, o, j)
 * for set 0 to add (direct_window_split): set-major, then accumulator,
 * thread-fastest, so that a warp's accesses hit 32 banks. dw_geometry_of's
 * part_floats counts the whole. */
template <int PASSES, int COUTS>
__device__ __forceinline__ int dw_part_at(int cs, int l, int o, int j, int ts, int set_threads)
{
    return ((((cs - 1) * PASSES + l) * COUTS + o) * DW_R + j) * set_threads + ts;
}

/* Resident threads an SM by the accumulators a thread holds (4 x passes x
 * couts): 4, 1536 (40 registers); 16, 1024 (64); 32 or 64, 512 (128); 128,
 * 256 (255). */
constexpr int dw_resident_threads(int accs)
{
    return accs <= 4 ? 1536 : accs <= 16 ? 1024 : accs <= 64 ? 512 : 256;
}

template <int BLOCK, int T, int PASSES, int COUTS>
__global__ void __launch_bounds__(BLOCK, dw_resident_threads(DW_R * PASSES * COUTS) / BLOCK)
    direct_window_kernel(dw_args a, const float *__restrict__ x, const float *__restrict__ w,
                         const float *__restrict__ b, float *__restrict__ y)
{
    constexpr int R = DW_R;
    extern __shared__ __align__(16) float dw_smem[];
    float *ws = dw_smem;
    float *xs = dw_smem + a.ws_floats;
    const dg_dim d0 = a.d[0], d1 = a.d[1], d2 = a.d[2];
    const int cin_g = (int)a.cin_g;
    const int n = (int)convt_fastdiv_div(a.by_coblocks, blockIdx.y);
    const int cob = (int)blockIdx.y - n * (int)a.by_coblocks.d;
    const int g = (int)convt_fastdiv_div(a.by_coblocks_g, (uint32_t)cob);
    const int col0 = (cob - g * (int)a.by_coblocks_g.d) * COUTS; /* first channel in the group */
    const int co0 = g * (int)a.cout_g + col0;
    /* the block's channels: COUTS, fewer in a group's last block where
     * COUTS does not divide cout_g (dg_coblocks_g) */
    const int nco = min(COUTS, (int)a.cout_g - col0);
    /* the tile: lines_pass lines a pass, PASSES passes apart by pass_lines
     * lines or pass_q positions */
    const int lines_pass = (BLOCK >> a.csplit_log2) >> a.tpl_log2;
    const int stretch = (a.along_q ? PASSES * R : R) << a.tpl_log2;
    const int pass_q = a.along_q ? R << a.tpl_log2 : 0;
    const int pass_lines = a.along_q ? 0 : lines_pass;
    const int tile_lines = a.along_q ? lines_pass : lines_pass * PASSES;
    const dg_tile tile = dg_tile_of(a.by_segs, a.by_stride2, a.by_tiles1, tile_lines);
    const int q_first = tile.seg * stretch; /* the stretch's first q */
    /* the phase's positions end before the stretch: the whole block leaves,
     * before any barrier */
    if (tile.ph + d2.stride * q_first >= d2.out)
        return;
    const int tid = threadIdx.x;
    /* the thread's set of input channels, and its place in the set's tile */
    const int csplit = 1 << a.csplit_log2, set_threads = BLOCK >> a.csplit_log2;
    const int cs = tid / set_threads, ts = tid - cs * set_threads;
    const int line = ts >> a.tpl_log2, u = ts & ((1 << a.tpl_log2) - 1);
    float acc[PASSES][COUTS][R];
    int k1f[PASSES], i1f[PASSES];
    bool line_reached[PASSES];
#pragma unroll
    for (int l = 0; l < PASSES; l++) {
#pragma unroll
        for (int o = 0; o < COUTS; o++) {
            const float bias = b && o < nco && cs == 0 ? b[co0 + o] : 0.0f;
#pragma unroll
            for (int j = 0; j < R; j++)
                acc[l][o][j] = bias;
        }
        const int o1 = tile.o1_first + line + l * pass_lines;
        line_reached[l] = o1 < d1.out && dg_first_tap(d1, o1, k1f[l], i1f[l]);
    }
    int k0f, i0f, k2f, c2f;
    const bool reached = dg_first_tap(d0, tile.o0, k0f, i0f) && dg_first_tap(d2, tile.ph, k2f, c2f);
    if (reached) {
        const int in_first = convt_window_in_first(q_first, c2f, a.m_pad);
        int i1_lo, i1_hi;
        convt_tile_rows(tile.o1_first, tile_lines, d1.out, d1.pad, d1.k, d1.dil, d1.stride, d1.in,
                        &i1_lo, &i1_hi);
        /* the input planes along the outermost dimension that the tile's
         * taps read: k0 = k0f + p * step, i0 = i0f - p * di for p = p0 ..
         * p0 + np - 1 (consecutive: i0 falls with p); none where no row is */
        int p0 = 0, np = 0;
        for (int k0 = k0f, i0 = i0f, pl = 0; k0 < d0.k && i0 >= 0; k0 += d0.step, i0 -= d0.di, pl++)
            if (i0 < d0.in && i1_hi >= i1_lo)
                p0 = np == 0 ? pl : p0, np++;
        const int chunks = a.m_pad / T;
        /* each pass's walk over the taps along the second-innermost
         * dimension, the same for every channel and stage: its first
         * staged row (x_first, from the thread's window in a channel's
         * rows) and weights (w_first, in a channel's), and how many taps
         * read a row of the input (taps past its last row skipped here,
         * once); tap t then reads x_first - t x_step, w_first + t x w_step */
        const int x_step = d1.di * a.pitch, w_step = d1.step * a.m_pad * COUTS;
        int x_first[PASSES], w_first[PASSES], row_taps[PASSES];
#pragma unroll
        for (int l = 0; l < PASSES; l++) {
            int k1, i1;
            row_taps[l] = dg_taps_in_range(d1, line_reached[l] ? k1f[l] : d1.k,
                                           line_reached[l] ? i1f[l] : i1_lo, k1, i1);
            x_first[l] = (i1 - i1_lo) * a.pitch + u * R + l * pass_q;
            w_first[l] = k1 * a.m_pad * COUTS;
        }
        const float *xg = x + ((int64_t)n * a.cin + (int64_t)g * a.cin_g) * a.in_plane;
        /* the stages: (plane, chunk of stage_ch channels), channels fastest */
        const int stages = np * ((cin_g + a.stage_ch - 1) / a.stage_ch);
        int pl = 0, c0 = 0;         /* this stage's */
        int next_pl = 0, next_c0 = 0; /* the next stage's */
        if (stages > 0) {
            /* the first stage's copies in flight before the weights' loads,
             * so that their latencies overlap */
            dw_stage_rows<BLOCK>(xs, xg, a, i0f - p0 * d0.di, 0, min(a.stage_ch, cin_g), i1_lo,
                                 in_first);
            dw_stage_weights<COUTS>(ws, w, a, g, col0, nco, k2f);
        }
        for (int st = 0; st < stages; st++) {
            /* the next stage copied into the other buffer (free since the
             * barrier that ended stage st - 1) while this one is summed */
            next_c0 = c0 + a.stage_ch, next_pl = pl;
            if (next_c0 >= cin_g)
                next_c0 = 0, next_pl++;
            if (st + 1 < stages) {
                dw_stage_rows<BLOCK>(xs + ((st + 1) & 1) * a.buf_floats, xg, a,
                                     i0f - (p0 + next_pl) * d0.di, next_c0,
                                     min(a.stage_ch, cin_g - next_c0), i1_lo, in_first);
                cp_async_wait(1);
            } else {
                cp_async_wait(0);
            }
            __syncthreads(); /* stage st (and the weights) are in */
            const int k0 = k0f + (p0 + pl) * d0.step;
            const float *buf = xs + (st & 1) * a.buf_floats;
            const int nch = min(a.stage_ch, cin_g - c0);
            for (int cl = cs; cl < nch; cl += csplit) {
                const float *wc = ws + ((c0 + cl) * d0.k + k0) * d1.k * a.m_pad * COUTS;
                const float *xc = buf + cl * a.rows * a.pitch;
#pragma unroll
                for (int l = 0; l < PASSES; l++) {
                    const float *xr = xc + x_first[l], *wr = wc + w_first[l];
                    for (int t = 0; t < row_taps[l]; t++, xr -= x_step, wr += w_step)
                        dw_row<T, COUTS>(acc[l], xr, wr, chunks);
                }
            }
            __syncthreads(); /* stage st's buffer is free for stage st + 2 */
            pl = next_pl, c0 = next_c0;
        }
    }
    if (csplit > 1) {
        /* the sets' sums into set 0's, in the order of the sets (the
         * buffers are free: the last stage ended in a barrier, or none
         * ran), thread-fastest so that a warp's stores hit 32 banks */
        if (cs > 0) {
#pragma unroll
            for (int l = 0; l < PASSES; l++)
#pragma unroll
                for (int o = 0; o < COUTS; o++)
#pragma unroll
                    for (int j = 0; j < R; j++)
                        xs[dw_part_at<PASSES, COUTS>(cs, l, o, j, ts, set_threads)] = acc[l][o][j];
        }
        __syncthreads();
        if (cs > 0)
            return;
        for (int c = 1; c < csplit; c++) {
#pragma unroll
            for (int l = 0; l < PASSES; l++)
#pragma unroll
                for (int o = 0; o < COUTS; o++)
#pragma unroll
                    for (int j = 0; j < R; j++)
                        acc[l][o][j] += xs[dw_part_at<PASSES, COUTS>(c, l, o, j, ts, set_threads)];
        }
    }
#pragma unroll
    for (int l = 0; l < PASSES; l++) {
        const int o1 = tile.o1_first + line + l * pass_lines;
        if (o1 >= d1.out)
            continue;
        const int q = q_first + l * pass_q + u * R;
#pragma unroll
        for (int o = 0; o < COUTS; o++) {
            if (o >= nco)
                break;
            float *yrow = y + ((((int64_t)n * a.cout + co0 + o) * d0.out + tile.o0) * d1.out + o1) *
                                  (int64_t)d2.out;
            if (d2.stride == 1 && q + R <= d2.out && ((uintptr_t)(yrow + q) & 15) == 0) {
                *reinterpret_cast<float4 *>(yrow + q) =
                    make_float4(acc[l][o][0], acc[l][o][1], acc[l][o][2], acc[l][o][3]);
                continue;
            }
#pragma unroll
            for (int j = 0; j < R; j++) {
                const int o2 = tile.ph + d2.stride * (q + j);
                if (o2 < d2.out)
                    yrow[o2] = acc[l][o][j];
            }
        }
    }
}

extern "C" const convt_variant convt_variant_direct_window, convt_variant_direct_window_split;

/* A launch's tiles and window: tpl threads per line (the smallest power of
 * two whose R x passes-fold (along_q) or R-fold covers a phase's positions
 * along the innermost dimension, at most the block); lines_pass = block /
 * tpl lines a pass and tile_lines a tile; segs stretches per line, tiles1
 * tiles along the second-innermost dimension; the chunk T and the padded
 * taps m_pad; the staged row (the stretch's windows, whole float4s) and the
 * most rows a tile reads; the channels a stage (as many as fit in
 * DW_STAGE_KIB) and one or two stage buffers; the shared memory. */
typedef struct dw_geometry {
    int64_t tpl, tpl_log2, along_q, lines_pass, tile_lines, stretch, segs, tiles1, rows, pitch;
    int64_t t, m_pad, stage_ch, ws_floats, buf_floats, nbuf, csplit_log2, part_floats;
    int64_t coblocks_g, coblocks; /* channel blocks a group and in all (the grid's y: n x these) */
    size_t smem;
} dw_geometry;

static dw_geometry dw_geometry_of(const convt_problem *p, const convt_shape3 &s, int64_t block,
                                  int64_t passes, int64_t couts, int64_t csplit)
{
    dw_geometry gm;
    gm.csplit_log2 = csplit == 4 ? 2 : csplit == 2 ? 1 : 0;
    const int64_t set_threads = block / csplit; /* threads over one tile's outputs */
    gm.along_q = s.out[1] == 1; /* one line a plane: the passes go along it */
    const int64_t q2 = (s.out[2] + s.stride[2] - 1) / s.stride[2];
    const int64_t per_thread = DW_R * (gm.along_q ? passes : 1);
    const int64_t need = (q2 + per_thread - 1) / per_thread;
    gm.tpl = 1, gm.tpl_log2 = 0;
    while (gm.tpl < need && gm.tpl < set_threads)
        gm.tpl *= 2, gm.tpl_log2++;
    gm.lines_pass = set_threads / gm.tpl;
    gm.tile_lines = gm.along_q ? gm.lines_pass : gm.lines_pass * passes;
    gm.stretch = gm.tpl * per_thread;
    gm.segs = (q2 + gm.stretch - 1) / gm.stretch;
    gm.tiles1 = (s.out[1] + gm.tile_lines - 1) / gm.tile_lines;
    gm.rows = convt_tile_rows_max(gm.tile_lines, s.k[1], s.dil[1], s.stride[1], s.in[1]);
    /* the chunk for the most taps a phase has along the innermost dimension */
    convt_window_chunk(convt_phase_taps_max(s.k[2], s.stride[2], s.dil[2]), &gm.t, &gm.m_pad);
    gm.pitch = convt_window_pitch(gm.stretch, gm.m_pad, gm.t);
    const int64_t cin_g = p->cin / p->groups;
    const int64_t per_channel = gm.rows * gm.pitch;
    gm.stage_ch = DW_STAGE_KIB * 1024 / (int64_t)sizeof(float) / per_channel;
    gm.stage_ch = gm.stage_ch < 1 ? 1 : gm.stage_ch > cin_g ? cin_g : gm.stage_ch;
    gm.ws_floats = (cin_g * s.k[0] * s.k[1] * gm.m_pad * couts + 3) / 4 * 4;
    gm.buf_floats = gm.stage_ch * per_channel;
    /* a second buffer where a tile takes more than one stage: several
     * planes, or several chunks of channels */
    const int64_t planes = convt_phase_taps_max(s.k[0], s.stride[0], s.dil[0]);
    gm.nbuf = (planes > 1 && s.in[0] > 1) || gm.stage_ch < cin_g ? 2 : 1;
    /* the channel sets' partial sums (dw_part_at) reuse the stage buffers */
    gm.part_floats = (csplit - 1) * DW_R * passes * couts * set_threads;
    const int64_t bufs = gm.nbuf * gm.buf_floats;
    gm.smem = sizeof(float) * (size_t)(gm.ws_floats + (bufs > gm.part_floats ? bufs : gm.part_floats));
    gm.coblocks_g = dg_coblocks_g(p->cout / p->groups, couts);
    gm.coblocks = p->groups * gm.coblocks_g;
    return gm;
}

struct dw_knobs {
    int64_t block, passes, couts, csplit;
};

/* A launch's knobs; a variant without csplit (direct_window) runs one set
 * of threads. */
static dw_knobs dw_knobs_of(const convt_variant *v, const convt_launch *l)
{
    return {convt_launch_get(v, l, "block"), convt_launch_get(v, l, "passes"),
            convt_launch_get(v, l, "couts"),
            convt_knob_index(v, "csplit") >= 0 ? convt_launch_get(v, l, "csplit") : 1};
}

static bool dw_supports_knobs(const convt_problem *p, const dw_knobs &k, const convt_context *ctx,
                              char *why, size_t why_len)
{
    static const int64_t blocks[] = {64, 128, 256}, passes[] = {1, 4}, couts[] = {1, 4, 8};
    static const int64_t csplits[] = {1, 2, 4};
    if (!dg_knob_compiled("block", k.block, blocks, 3, why, why_len) ||
        !dg_knob_compiled("passes", k.passes, passes, 2, why, why_len) ||
        !dg_knob_compiled("couts", k.couts, couts, 3, why, why_len) ||
        !dg_knob_compiled("csplit", k.csplit, csplits, 3, why, why_len) ||
        !dg_couts_fit_group(p, k.couts, couts, 3, why, why_len))
        return false;
    const convt_shape3 s = convt_problem_as_3d(p);
    /* a phase's taps along the innermost dimension must read neighbouring
     * inputs, unless it has only one (kb81: stride 5, dilation 2, 3 taps) */
    const int64_t di2 = s.dil[2] / convt_gcd(s.stride[2], s.dil[2]);
    const int64_t step2 = convt_phase_step(s.stride[2], s.dil[2]);
    if (di2 != 1 && s.k[2] > step2) {
        snprintf(why, why_len, "the innermost dimension's taps of a phase read inputs %lld apart "
                 "(dilation %lld, stride %lld); the window needs neighbours "
                 "(direct_grouped_staged takes any dilation)",
                 (long long)di2, (long long)s.dil[2], (long long)s.stride[2]);
        return false;
    }
    const int64_t cin_g = p->cin / p->groups;
    const dw_geometry gm = dw_geometry_of(p, s, k.block, k.passes, k.couts, k.csplit);
    /* every channel set sums a channel of every stage */
    if (gm.stage_ch < k.csplit) {
        snprintf(why, why_len, "csplit = %lld sets of input channels need as many channels a "
                 "stage; this shape stages %lld (%lld a group)", (long long)k.csplit,
                 (long long)gm.stage_ch, (long long)cin_g);
        return false;
    }
    /* the grid's y: a block per image and COUTS output channels */
    if (p->n * gm.coblocks > 65535) {
        snprintf(why, why_len, "puts n x groups x ceil(cout_g / couts) = %lld blocks on the grid's "
                 "y axis (limit 65535)", (long long)(p->n * gm.coblocks));
        return false;
    }
    if (gm.smem > ctx->dev->smem_per_block_optin) {
        snprintf(why, why_len, "needs %.1f KiB of shared memory (the weights of %lld channels and "
                 "%lld buffers of %lld channels x %lld input rows of %lld floats), the device "
                 "allows %.1f KiB", gm.smem / 1024.0, (long long)cin_g, (long long)gm.nbuf,
                 (long long)gm.stage_ch, (long long)gm.rows, (long long)gm.pitch,
                 ctx->dev->smem_per_block_optin / 1024.0);
        return false;
    }
    /* 32-bit indices: a dimension's positions, pads and reach; the line's
     * positions ph + stride * q up to the last stretch's end and its staged
     * inputs; the grid's x; the staged floats and weights; the weights'
     * staging index; the staged rows' offsets in a group's input (with room
     * for the rows past its end that a tile's copies compute and skip) */
    const int64_t widest = dg_widest_extent(s);
    const int64_t blocks_x = dg_tile_blocks(s, gm.tiles1, gm.segs);
    const int64_t q_end = s.stride[2] * gm.segs * gm.stretch + gm.m_pad;
    if (widest > INT32_MAX / 4 || q_end + widest > INT32_MAX || blocks_x > INT32_MAX ||
        gm.nbuf * gm.buf_floats + gm.ws_floats > INT32_MAX || cin_g * p->cout > INT32_MAX ||
        2 * cin_g * s.in[0] * s.in[1] * s.in[2] > INT32_MAX) {
        snprintf(why, why_len, "needs %lld blocks per (n, co) row and positions up to %lld along "
                 "the innermost dimension (a dimension of %lld), beyond the kernel's 32-bit "
                 "indices", (long long)blocks_x, (long long)q_end, (long long)widest);
        return false;
    }
    return true;
}

typedef void (*dw_kernel_fn)(dw_args, const float *, const float *, const float *, float *);

template <int BLOCK, int PASSES, int COUTS>
static dw_kernel_fn dw_kernel_of_chunk(int t)
{
    switch (t) {
    case 1: return direct_window_kernel<BLOCK, 1, PASSES, COUTS>;
    case 2: return direct_window_kernel<BLOCK, 2, PASSES, COUTS>;
    case 3: return direct_window_kernel<BLOCK, 3, PASSES, COUTS>;
    case 4: return direct_window_kernel<BLOCK, 4, PASSES, COUTS>;
    case 5: return direct_window_kernel<BLOCK, 5, PASSES, COUTS>;
    case 6: return direct_window_kernel<BLOCK, 6, PASSES, COUTS>;
    case 7: return direct_window_kernel<BLOCK, 7, PASSES, COUTS>;
    default: return direct_window_kernel<BLOCK, 8, PASSES, COUTS>;
    }
}

/* passes is 1 or 4, couts 1, 4 or 8 (dw_supports) */
template <int BLOCK, int PASSES>
static dw_kernel_fn dw_kernel_of_passes(int couts, int t)
{
    return couts == 8   ? dw_kernel_of_chunk<BLOCK, PASSES, 8>(t)
           : couts == 4 ? dw_kernel_of_chunk<BLOCK, PASSES, 4>(t)
                        : dw_kernel_of_chunk<BLOCK, PASSES, 1>(t);
}

template <int BLOCK>
static dw_kernel_fn dw_kernel_of_block(int passes, int couts, int t)
{
    return passes == 4 ? dw_kernel_of_passes<BLOCK, 4>(couts, t)
                       : dw_kernel_of_passes<BLOCK, 1>(couts, t);
}

static dw_kernel_fn dw_kernel_for(int block, int passes, int couts, int t)
{
    return block == 64    ? dw_kernel_of_block<64>(passes, couts, t)
           : block == 128 ? dw_kernel_of_block<128>(passes, couts, t)
                          : dw_kernel_of_block<256>(passes, couts, t);
}

/* Everything a launch needs, made once in prepare. */
typedef dg_prepared_state<dw_args, dw_kernel_fn> dw_state;

static int dw_prepare_variant(const convt_variant *v, const convt_problem *p,
                              const convt_launch *l, const convt_context *ctx, void **state,
                              convt_err *e)
{
    const dw_knobs k = dw_knobs_of(v, l);
    dw_state *st = (dw_state *)calloc(1, sizeof *st);
    if (!st)
        return convt_fail(e, "out of host memory");
    const convt_shape3 s = convt_problem_as_3d(p);
    dw_args &a = st->args;
    dg_set_common(a, p, s);
    const dw_geometry gm = dw_geometry_of(p, s, k.block, k.passes, k.couts, k.csplit);
    const unsigned blocks_x = dg_set_tile_digits(a, s, gm.tiles1, gm.segs);
    a.by_coblocks = convt_fastdiv_make((uint32_t)gm.coblocks);
    a.by_coblocks_g = convt_fastdiv_make((uint32_t)gm.coblocks_g);
    const int64_t units = gm.pitch / 4;
    a.by_units = convt_fastdiv_make((uint32_t)units);
    a.by_rows = convt_fastdiv_make((uint32_t)gm.rows);
    a.by_m_pad = convt_fastdiv_make((uint32_t)gm.m_pad);
    a.by_k01 = convt_fastdiv_make((uint32_t)(s.k[0] * s.k[1]));
    a.r_step = (int)(k.block / units);
    a.e_step = (int)(k.block % units);
    a.tpl_log2 = (int)gm.tpl_log2;
    a.csplit_log2 = (int)gm.csplit_log2;
    a.along_q = (int)gm.along_q;
    a.m_pad = (int)gm.m_pad;
    a.pitch = (int)gm.pitch;
    a.rows = (int)gm.rows;
    a.stage_ch = (int)gm.stage_ch;
    a.buf_floats = (int)gm.buf_floats;
    a.ws_floats = (int)gm.ws_floats;
    st->smem = gm.smem;
    st->grid = dim3(blocks_x, (unsigned)(p->n * gm.coblocks));
    st->block = (int)k.block;
    st->kernel = dw_kernel_for((int)k.block, (int)k.passes, (int)k.couts, (int)gm.t);
    snprintf(st->detail, sizeof st->detail,
             "tpl=%lld lines=%lld stretch=%lld T=%lld m_pad=%lld stage_ch=%lld buffers=%lld "
             "smem=%zu%s",
             (long long)gm.tpl, (long long)gm.tile_lines, (long long)gm.stretch, (long long)gm.t,
             (long long)gm.m_pad, (long long)gm.stage_ch, (long long)gm.nbuf, gm.smem,
             gm.csplit_log2 ? (gm.csplit_log2 == 1 ? " sets=2" : " sets=4") : "");
    return dg_hand_over(st, ctx, state, e);
}

static bool dw_supports(const convt_problem *p, const convt_launch *l, const convt_context *ctx,
                        char *why, size_t why_len)
{
    return dw_supports_knobs(p, dw_knobs_of(&convt_variant_direct_window, l), ctx, why, why_len);
}

static bool dws_supports(const convt_problem *p, const convt_launch *l, const convt_context *ctx,
                         char *why, size_t why_len)
{
    return dw_supports_knobs(p, dw_knobs_of(&convt_variant_direct_window_split, l), ctx, why,
                             why_len);
}

static int dw_prepare(const convt_problem *p, const convt_launch *l, const convt_tensors *t,
                      const convt_context *ctx, void **state, size_t *workspace, convt_err *e)
{
    (void)t, (void)workspace;
    return dw_prepare_variant(&convt_variant_direct_window, p, l, ctx, state, e);
}

static int dws_prepare(const convt_problem *p, const convt_launch *l, const convt_tensors *t,
                       const convt_context *ctx, void **state, size_t *workspace, convt_err *e)
{
    (void)t, (void)workspace;
    return dw_prepare_variant(&convt_variant_direct_window_split, p, l, ctx, state, e);
}

/* The knobs both variants share. */
#define DW_KNOB_BLOCK                                                                             \
    {.name = "block",                                                                             \
     .help = "threads per block (64, 128 or 256): with 4 outputs a thread and pass, the outputs " \
             "a block computes (a stretch of one line, or several short lines; a set's, with "  \
             "csplit)",                                                                           \
     .n_defaults = 3,                                                                             \
     .defaults = {64, 128, 256}}
#define DW_KNOB_PASSES                                                                            \
    {.name = "passes",                                                                            \
     .help = "groups of 4 outputs a thread computes (1 or 4): further lines of the block's "     \
             "tile, or, where a plane has one line (1-D layers), further stretches of it; more " \
             "passes spread a block's set-up over more outputs",                                 \
     .n_defaults = 2,                                                                             \
     .defaults = {1, 4}}
#define DW_KNOB_COUTS                                                                             \
    {.name = "couts",                                                                             \
     .help = "output channels a thread computes (1, 4 or 8): each staged input float then "     \
             "serves as many channels' taps, and a group's input is staged ceil(cout_g / "      \
             "couts) times; where couts does not divide cout_g, a group's last block computes " \
             "zero-weight channels it does not store (refused where a smaller couts takes as "  \
             "many blocks)",                                                                      \
     .n_defaults = 3,                                                                             \
     .defaults = {1, 4, 8}}

extern "C" const convt_variant convt_variant_direct_window = {
    .name = "direct_window",
    .summary = "float32 FMAs from a register window: 4 consecutive outputs of one stride phase a "
               "thread (for 1, 4 or 8 output channels), their taps' inputs staged once per block "
               "and loaded once per thread; for layers with few output channels per group "
               "(depthwise, grouped); along the innermost dimension a dilation only where the "
               "stride absorbs it or a phase has one tap",
    .backend = CONVT_BACKEND_CUDA,
    .tier = CONVT_TIER_FP32,
    .deterministic = true,
    .n_knobs = 3,
    .knobs = {DW_KNOB_BLOCK, DW_KNOB_PASSES, DW_KNOB_COUTS},
    .supports = dw_supports,
    .workspace_size = NULL,
    .prepare = dw_prepare,
    .launch = dg_launch_prepared<dw_state>,
    .release = dg_free_state,
    .describe = dg_describe_detail<dw_state>,
};

extern "C" const convt_variant convt_variant_direct_window_split = {
    .name = "direct_window_split",
    .summary = "direct_window with the block's threads in 2 or 4 sets over the same outputs, "
               "each summing every csplit-th staged input channel, their sums added in shared "
               "memory in a fixed order: for few output channels and many input channels (an "
               "RGB output from 64 or 128 channels), where direct_window's threads, one per 4 "
               "outputs, are too few to fill the SMs",
    .backend = CONVT_BACKEND_CUDA,
    .tier = CONVT_TIER_FP32,
    .deterministic = true,
    .n_knobs = 4,
    .knobs = {DW_KNOB_BLOCK, DW_KNOB_PASSES, DW_KNOB_COUTS,
              {.name = "csplit",
               .help = "sets of the block's threads over the same outputs (2 or 4), set c "
                       "summing the staged channels c, c + csplit, ...: csplit times the "
                       "threads of direct_window on the same outputs, each block's tile csplit "
                       "times smaller (refused where a stage holds fewer channels than sets)",
               .n_defaults = 2,
               .defaults = {2, 4}}},
    .supports = dws_supports,
    .workspace_size = NULL,
    .prepare = dws_prepare,
    .launch = dg_launch_prepared<dw_state>,
    .release = dg_free_state,
    .describe = dg_describe_detail<dw_state>,
};
