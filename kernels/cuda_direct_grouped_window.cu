/* direct_grouped_window: direct_grouped_staged's tiles (neighbouring output
 * lines of one stride phase, their input rows staged once in shared memory)
 * with a register window along the innermost dimension. direct_grouped_staged
 * loads one float from shared memory for every tap of every output (its
 * thread's outputs are a line's threads apart, so no load serves two); on
 * long kernels that is the limit: dw1d_k31 (31 taps) ran at 0.83x cuDNN and
 * dw2d_k7 at 10% of the copy floor (results/notes.md, "Session 16").
 *
 * Here a thread computes R = 4 consecutive outputs q .. q + 3 of its line's
 * phase. Along the innermost dimension the phase's taps m = 0 .. M-1 read
 * inputs q + c2f - m (di = 1: the kernel refuses a dilation that the stride
 * does not absorb), so the R outputs' taps read R + M - 1 consecutive staged
 * floats: the thread loads them as float4 (a warp's 32 loads at 16 bytes
 * apart, one wavefront per 8 lanes, no bank conflict) into registers once,
 * and each float serves up to R taps. The taps are taken in chunks of T
 * (compiled; T = M for M <= 8, else 4 or 8 with zero-weight taps in front
 * to fill the last chunk), so that every window index is a constant:
 * loads per chunk ceil((R + T - 1) / 4) float4 and T weights, R x T FMAs
 * (direct_grouped_staged: R x T loads and FMAs).
 *
 * The block stages each phase's weights reversed and padded (ws[row][t] is
 * tap m = m_pad - 1 - t, t < m_pad - M zero), and for each input plane along
 * the outermost dimension every channel of the group's rows at once (one
 * barrier pair a plane, where direct_grouped_staged takes one a channel;
 * the next plane copied into a second buffer while this one is summed, and
 * the first plane's copies issued before the weights' loads):
 * staged element e of a row is input in_first + e, in_first = q_first + c2f
 * - (m_pad - 1), so that output q_first + u * R + j at window tap t reads
 * element u * R + j + t, and every thread's window starts on a float4. The
 * rows' floats are copied by 4-byte cp.async (zeros outside the row) four to
 * a thread's turn. float32 accumulation in a fixed order: deterministic.
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

enum {
    DGW_R = 4,        /* consecutive outputs a thread computes: one float4 */
    DGW_MAX_T = 8,    /* the widest tap chunk compiled */
};

struct dgw_args {
    int64_t cin, cout, cin_g, cout_g;
    int64_t in_plane; /* input elements per channel */
    dg_dim d[3];
    convt_fastdiv by_segs, by_stride2, by_tiles1; /* blockIdx.x's digits (dg_tile_of) */
    convt_fastdiv by_cout, by_cout_g;             /* blockIdx.y = n * cout + co, and co's group */
    convt_fastdiv by_units, by_rows, by_m_pad, by_k01; /* the staging loops' digits */
    int r_step, e_step; /* a block's step over the staged (row, float4) pairs: block / units, block % units */
    int tpl_log2;       /* threads per line: 1 << tpl_log2 */
    int along_q;        /* 1: a thread's passes are further stretches of its line (one line a
                         * plane: 1-D layers); 0: further lines of the tile */
    int m_pad;          /* window taps along the innermost dimension: chunks x T */
    int pitch;          /* floats per staged row, a multiple of 4 */
    int rows;           /* staged rows per channel: the most any tile reads */
    int buf_floats;     /* one plane's staged rows (channels x rows x pitch): the second buffer's offset */
    int ws_floats;      /* the weights' floats in shared memory, a multiple of 4 */
};

/* The weights of output channel col of group g for the phase whose first
 * innermost tap is k2f, as the window reads them: ws[(cl * k0 + k0) * k1 +
 * k1][t] = tap m = m_pad - 1 - t of the phase (k2 = k2f + m * step), zero
 * where m is past the phase's taps. The caller synchronises. */
__device__ __forceinline__ void dgw_stage_weights(float *ws, const float *w, const dgw_args &a,
                                                  int g, int col, int k2f)
{
    const dg_dim &d2 = a.d[2];
    const int k01 = (int)a.by_k01.d;
    const int taps = k01 * d2.k;
    const int m_phase = (d2.k - 1 - k2f) / d2.step + 1;
    const int total = (int)a.cin_g * k01 * a.m_pad;
    for (int e = threadIdx.x; e < total; e += blockDim.x) {
        const int wrow = (int)convt_fastdiv_div(a.by_m_pad, (uint32_t)e);
        const int m = a.m_pad - 1 - (e - wrow * a.m_pad);
        float v = 0.0f;
        if (m < m_phase) {
            const int cl = (int)convt_fastdiv_div(a.by_k01, (uint32_t)wrow), k = wrow - cl * k01;
            v = w[(((int64_t)g * a.cin_g + cl) * a.cout_g + col) * taps + k * d2.k + k2f + m * d2.step];
        }
        ws[e] = v;
    }
}

/* One input plane (i0) of the group's channels: rows i1_lo .. i1_lo + rows -
 * 1 of each (zero past the input's last row), staged elements 0 .. pitch - 1
 * of each row (input in_first + e; zero outside the row), every thread four
 * floats a turn. */
template <int BLOCK>
__device__ __forceinline__ void dgw_stage_rows(float *xs, const float *xg, const dgw_args &a,
                                               int i0, int i1_lo, int in_first)
{
    const dg_dim &d1 = a.d[1], &d2 = a.d[2];
    const int units = (int)a.by_units.d, rows_all = (int)a.cin_g * a.rows;
    int ra = (int)convt_fastdiv_div(a.by_units, threadIdx.x);
    int e4 = threadIdx.x - ra * units;
    for (; ra < rows_all;) {
        const int cl = (int)convt_fastdiv_div(a.by_rows, (uint32_t)ra);
        const int i1 = i1_lo + ra - cl * a.rows;
        const int i = in_first + 4 * e4;
        const float *src = xg + cl * a.in_plane + ((int64_t)i0 * d1.in + i1) * d2.in;
        float *dst = xs + ra * a.pitch + 4 * e4;
        const bool row_in = i1 < d1.in;
#pragma unroll
        for (int v = 0; v < 4; v++) {
            const bool inside = row_in && (unsigned)(i + v) < (unsigned)d2.in;
            cp_async4(dst + v, inside ? src + i + v : xg, inside);
        }
        e4 += a.e_step, ra += a.r_step;
        if (e4 >= units)
            e4 -= units, ra++;
    }
    cp_async_commit();
}

/* The R outputs' taps of one staged row: chunks of T window taps, the
 * row's floats from xr (the thread's first), its weights from wr. */
template <int T>
__device__ __forceinline__ void dgw_row(float (&acc)[DGW_R], const float *xr, const float *wr,
                                        int chunks)
{
    constexpr int R = DGW_R;
    constexpr int WIN4 = (R + T - 1 + 3) / 4; /* float4 loads of a chunk's window */
    for (int c = 0; c < chunks; c++, xr += T, wr += T) {
        float xw[WIN4 * 4], wt[T];
#pragma unroll
        for (int v = 0; v < WIN4; v++) {
            const float4 f = *reinterpret_cast<const float4 *>(xr + 4 * v);
            xw[4 * v] = f.x, xw[4 * v + 1] = f.y, xw[4 * v + 2] = f.z, xw[4 * v + 3] = f.w;
        }
        if constexpr (T % 4 == 0) {
#pragma unroll
            for (int v = 0; v < T / 4; v++) {
                const float4 f = *reinterpret_cast<const float4 *>(wr + 4 * v);
                wt[4 * v] = f.x, wt[4 * v + 1] = f.y, wt[4 * v + 2] = f.z, wt[4 * v + 3] = f.w;
            }
        } else {
#pragma unroll
            for (int t = 0; t < T; t++)
                wt[t] = wr[t];
        }
#pragma unroll
        for (int t = 0; t < T; t++)
#pragma unroll
            for (int j = 0; j < R; j++)
                acc[j] = fmaf(xw[j + t], wt[t], acc[j]);
    }
}

/* With one pass, 1536 resident threads an SM (40 registers); with PASSES
 * accumulators, 1024 (64). */
template <int BLOCK, int T, int PASSES>
__global__ void __launch_bounds__(BLOCK, (PASSES == 1 ? 1536 : 1024) / BLOCK)
    direct_grouped_window_kernel(dgw_args a, const float *__restrict__ x,
                                 const float *__restrict__ w, const float *__restrict__ b,
                                 float *__restrict__ y)
{
    constexpr int R = DGW_R;
    extern __shared__ __align__(16) float dgw_smem[];
    float *ws = dgw_smem;
    float *xs = dgw_smem + a.ws_floats;
    const dg_dim d0 = a.d[0], d1 = a.d[1], d2 = a.d[2];
    const int cin_g = (int)a.cin_g;
    const int n = (int)convt_fastdiv_div(a.by_cout, blockIdx.y);
    const int co = (int)blockIdx.y - n * (int)a.cout;
    const int g = (int)convt_fastdiv_div(a.by_cout_g, (uint32_t)co);
    const int col = co - g * (int)a.cout_g;
    /* the tile: lines_pass lines a pass, PASSES passes apart by pass_lines
     * lines or pass_q positions */
    const int lines_pass = BLOCK >> a.tpl_log2;
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
    const int line = tid >> a.tpl_log2, u = tid & ((1 << a.tpl_log2) - 1);
    const float bias = b ? b[co] : 0.0f;
    float acc[PASSES][R];
    int k1f[PASSES], i1f[PASSES];
    bool line_reached[PASSES];
#pragma unroll
    for (int l = 0; l < PASSES; l++) {
#pragma unroll
        for (int j = 0; j < R; j++)
            acc[l][j] = bias;
        const int o1 = tile.o1_first + line + l * pass_lines;
        line_reached[l] = o1 < d1.out && dg_first_tap(d1, o1, k1f[l], i1f[l]);
    }
    int k0f, i0f, k2f, c2f;
    const bool reached = dg_first_tap(d0, tile.o0, k0f, i0f) && dg_first_tap(d2, tile.ph, k2f, c2f);
    if (reached) {
        const int in_first = q_first + c2f - (a.m_pad - 1);
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
        const float *xg = x + ((int64_t)n * a.cin + (int64_t)g * a.cin_g) * a.in_plane;
        if (np > 0) {
            /* the first plane's copies in flight before the weights' loads,
             * so that their latencies overlap */
            dgw_stage_rows<BLOCK>(xs, xg, a, i0f - p0 * d0.di, i1_lo, in_first);
            dgw_stage_weights(ws, w, a, g, col, k2f);
        }
        for (int pl = 0; pl < np; pl++) {
            /* plane pl + 1 copied into the other buffer (free since the
             * barrier that ended plane pl - 1) while plane pl is summed */
            if (pl + 1 < np) {
                dgw_stage_rows<BLOCK>(xs + ((pl + 1) & 1) * a.buf_floats, xg, a,
                                      i0f - (p0 + pl + 1) * d0.di, i1_lo, in_first);
                cp_async_wait(1);
            } else {
                cp_async_wait(0);
            }
            __syncthreads(); /* plane pl (and the weights) are in */
            const int k0 = k0f + (p0 + pl) * d0.step;
            const float *buf = xs + (pl & 1) * a.buf_floats;
            for (int cl = 0; cl < cin_g; cl++) {
                const float *wc = ws + (cl * d0.k + k0) * d1.k * a.m_pad;
#pragma unroll
                for (int l = 0; l < PASSES; l++) {
                    if (!line_reached[l])
                        continue;
                    const float *xl = buf + cl * a.rows * a.pitch + u * R + l * pass_q;
                    for (int k1 = k1f[l], i1 = i1f[l]; k1 < d1.k && i1 >= 0;
                         k1 += d1.step, i1 -= d1.di) {
                        if (i1 >= d1.in)
                            continue;
                        dgw_row<T>(acc[l], xl + (i1 - i1_lo) * a.pitch, wc + k1 * a.m_pad, chunks);
                    }
                }
            }
            __syncthreads(); /* plane pl's buffer is free for plane pl + 2 */
        }
    }
#pragma unroll
    for (int l = 0; l < PASSES; l++) {
        const int o1 = tile.o1_first + line + l * pass_lines;
        if (o1 >= d1.out)
            continue;
        float *yrow =
            y + ((((int64_t)n * a.cout + co) * d0.out + tile.o0) * d1.out + o1) * (int64_t)d2.out;
        const int q = q_first + l * pass_q + u * R;
        if (d2.stride == 1 && q + R <= d2.out && ((uintptr_t)(yrow + q) & 15) == 0) {
            *reinterpret_cast<float4 *>(yrow + q) =
                make_float4(acc[l][0], acc[l][1], acc[l][2], acc[l][3]);
            continue;
        }
#pragma unroll
        for (int j = 0; j < R; j++) {
            const int o2 = tile.ph + d2.stride * (q + j);
            if (o2 < d2.out)
                yrow[o2] = acc[l][j];
        }
    }
}

extern "C" const convt_variant convt_variant_direct_grouped_window;

/* A launch's tiles and window: tpl threads per line (the smallest power of
 * two whose R x passes-fold (along_q) or R-fold covers a phase's positions
 * along the innermost dimension, at most the block); lines_pass = block /
 * tpl lines a pass and tile_lines a tile; segs stretches per line, tiles1
 * tiles along the second-innermost dimension; the chunk T and the padded
 * taps m_pad; the staged row (the stretch's windows, whole float4s) and the
 * most rows a tile reads; one or two plane buffers; the shared memory. */
typedef struct dgw_geometry {
    int64_t tpl, tpl_log2, along_q, lines_pass, tile_lines, stretch, segs, tiles1, rows, pitch;
    int64_t t, m_pad, ws_floats, buf_floats, nbuf;
    size_t smem;
} dgw_geometry;

static dgw_geometry dgw_geometry_of(const convt_problem *p, const convt_shape3 &s, int64_t block,
                                    int64_t passes)
{
    dgw_geometry gm;
    gm.along_q = s.out[1] == 1; /* one line a plane: the passes go along it */
    const int64_t q2 = (s.out[2] + s.stride[2] - 1) / s.stride[2];
    const int64_t per_thread = DGW_R * (gm.along_q ? passes : 1);
    const int64_t need = (q2 + per_thread - 1) / per_thread;
    gm.tpl = 1, gm.tpl_log2 = 0;
    while (gm.tpl < need && gm.tpl < block)
        gm.tpl *= 2, gm.tpl_log2++;
    gm.lines_pass = block / gm.tpl;
    gm.tile_lines = gm.along_q ? gm.lines_pass : gm.lines_pass * passes;
    gm.stretch = gm.tpl * per_thread;
    gm.segs = (q2 + gm.stretch - 1) / gm.stretch;
    gm.tiles1 = (s.out[1] + gm.tile_lines - 1) / gm.tile_lines;
    gm.rows = convt_tile_rows_max(gm.tile_lines, s.k[1], s.dil[1], s.stride[1], s.in[1]);
    /* the most taps a phase has along the innermost dimension; up to 8 one
     * chunk of exactly that many, beyond it chunks of 8 or 4, whichever
     * pads fewer taps */
    const int64_t step = convt_phase_step(s.stride[2], s.dil[2]);
    const int64_t m = (s.k[2] + step - 1) / step;
    if (m <= DGW_MAX_T) {
        gm.t = m, gm.m_pad = m;
    } else {
        const int64_t pad8 = (m + 7) / 8 * 8, pad4 = (m + 3) / 4 * 4;
        gm.t = pad8 <= pad4 ? 8 : 4;
        gm.m_pad = pad8 <= pad4 ? pad8 : pad4;
    }
    /* the last thread's last window ends at stretch - R + (m_pad - T) + win */
    const int64_t win = (DGW_R + gm.t - 1 + 3) / 4 * 4;
    gm.pitch = gm.stretch - DGW_R + (gm.m_pad - gm.t) + win;
    const int64_t cin_g = p->cin / p->groups;
    gm.ws_floats = (cin_g * s.k[0] * s.k[1] * gm.m_pad + 3) / 4 * 4;
    gm.buf_floats = cin_g * gm.rows * gm.pitch;
    /* a second plane buffer where a tile can read more than one plane */
    const int64_t step0 = convt_phase_step(s.stride[0], s.dil[0]);
    const int64_t planes = (s.k[0] + step0 - 1) / step0;
    gm.nbuf = planes > 1 && s.in[0] > 1 ? 2 : 1;
    gm.smem = sizeof(float) * (size_t)(gm.ws_floats + gm.nbuf * gm.buf_floats);
    return gm;
}

struct dgw_knobs {
    int64_t block, passes;
};

static dgw_knobs dgw_knobs_of(const convt_launch *l)
{
    const convt_variant *v = &convt_variant_direct_grouped_window;
    return {convt_launch_get(v, l, "block"), convt_launch_get(v, l, "passes")};
}

static bool dgw_supports(const convt_problem *p, const convt_launch *l, const convt_context *ctx,
                         char *why, size_t why_len)
{
    const dgw_knobs k = dgw_knobs_of(l);
    if (k.block != 64 && k.block != 128 && k.block != 256) {
        snprintf(why, why_len, "block = %lld must be 64, 128 or 256 (compiled)", (long long)k.block);
        return false;
    }
    if (k.passes != 1 && k.passes != 4) {
        snprintf(why, why_len, "passes = %lld must be 1 or 4 (compiled)", (long long)k.passes);
        return false;
    }
    const int64_t cin_g = p->cin / p->groups;
    if (cin_g > DG_MAX_CIN_G) {
        snprintf(why, why_len, "%lld input channels per group; direct_grouped_window is for at "
                 "most %d (more is a GEMM's work: polyphase_igemm)", (long long)cin_g, DG_MAX_CIN_G);
        return false;
    }
    const convt_shape3 s = convt_problem_as_3d(p);
    const int64_t di2 = s.dil[2] / convt_gcd(s.stride[2], s.dil[2]);
    if (di2 != 1) {
        snprintf(why, why_len, "the innermost dimension's taps of a phase read inputs %lld apart "
                 "(dilation %lld, stride %lld); the window needs neighbours "
                 "(direct_grouped_staged takes any dilation)",
                 (long long)di2, (long long)s.dil[2], (long long)s.stride[2]);
        return false;
    }
    if (!convt_check_row_blocks(p, "direct_grouped_window", why, why_len))
        return false;
    const dgw_geometry gm = dgw_geometry_of(p, s, k.block, k.passes);
    if (gm.smem > ctx->dev->smem_per_block_optin) {
        snprintf(why, why_len, "needs %.1f KiB of shared memory (the weights and %lld buffers of "
                 "%lld channels x %lld input rows of %lld floats), the device allows %.1f KiB",
                 gm.smem / 1024.0, (long long)gm.nbuf, (long long)cin_g, (long long)gm.rows,
                 (long long)gm.pitch, ctx->dev->smem_per_block_optin / 1024.0);
        return false;
    }
    /* 32-bit indices: a dimension's positions, pads and reach; the line's
     * positions ph + stride * q up to the last stretch's end and its staged
     * inputs; the grid's x; the staged floats and weights */
    const int64_t widest = dg_widest_extent(s);
    const int64_t blocks_x = s.out[0] * gm.tiles1 * s.stride[2] * gm.segs;
    const int64_t q_end = s.stride[2] * gm.segs * gm.stretch + gm.m_pad;
    if (widest > INT32_MAX / 4 || q_end + widest > INT32_MAX || blocks_x > INT32_MAX ||
        gm.nbuf * gm.buf_floats + gm.ws_floats > INT32_MAX) {
        snprintf(why, why_len, "needs %lld blocks per (n, co) row and positions up to %lld along "
                 "the innermost dimension (a dimension of %lld), beyond the kernel's 32-bit "
                 "indices", (long long)blocks_x, (long long)q_end, (long long)widest);
        return false;
    }
    return true;
}

typedef void (*dgw_kernel_fn)(dgw_args, const float *, const float *, const float *, float *);

template <int BLOCK, int PASSES>
static dgw_kernel_fn dgw_kernel_of_chunk(int t)
{
    switch (t) {
    case 1: return direct_grouped_window_kernel<BLOCK, 1, PASSES>;
    case 2: return direct_grouped_window_kernel<BLOCK, 2, PASSES>;
    case 3: return direct_grouped_window_kernel<BLOCK, 3, PASSES>;
    case 4: return direct_grouped_window_kernel<BLOCK, 4, PASSES>;
    case 5: return direct_grouped_window_kernel<BLOCK, 5, PASSES>;
    case 6: return direct_grouped_window_kernel<BLOCK, 6, PASSES>;
    case 7: return direct_grouped_window_kernel<BLOCK, 7, PASSES>;
    default: return direct_grouped_window_kernel<BLOCK, 8, PASSES>;
    }
}

template <int BLOCK>
static dgw_kernel_fn dgw_kernel_of_block(int passes, int t)
{
    return passes == 4 ? dgw_kernel_of_chunk<BLOCK, 4>(t) : dgw_kernel_of_chunk<BLOCK, 1>(t);
}

static dgw_kernel_fn dgw_kernel_for(int block, int passes, int t)
{
    return block == 64    ? dgw_kernel_of_block<64>(passes, t)
           : block == 128 ? dgw_kernel_of_block<128>(passes, t)
                          : dgw_kernel_of_block<256>(passes, t);
}

/* Everything a launch needs, made once in prepare. */
typedef struct dgw_state {
    dgw_args args;
    dgw_kernel_fn kernel;
    dim3 grid;
    int block;
    size_t smem;
    char detail[128];
} dgw_state;

static int dgw_prepare(const convt_problem *p, const convt_launch *l, const convt_tensors *t,
                       const convt_context *ctx, void **state, size_t *workspace, convt_err *e)
{
    (void)t, (void)workspace, (void)ctx;
    const dgw_knobs k = dgw_knobs_of(l);
    dgw_state *st = (dgw_state *)calloc(1, sizeof *st);
    if (!st)
        return convt_fail(e, "out of host memory");
    const convt_shape3 s = convt_problem_as_3d(p);
    dgw_args &a = st->args;
    dg_set_common(a, p, s);
    const dgw_geometry gm = dgw_geometry_of(p, s, k.block, k.passes);
    a.by_segs = convt_fastdiv_make((uint32_t)gm.segs);
    a.by_stride2 = convt_fastdiv_make((uint32_t)s.stride[2]);
    a.by_tiles1 = convt_fastdiv_make((uint32_t)gm.tiles1);
    a.by_cout = convt_fastdiv_make((uint32_t)p->cout);
    a.by_cout_g = convt_fastdiv_make((uint32_t)(p->cout / p->groups));
    const int64_t units = gm.pitch / 4;
    a.by_units = convt_fastdiv_make((uint32_t)units);
    a.by_rows = convt_fastdiv_make((uint32_t)gm.rows);
    a.by_m_pad = convt_fastdiv_make((uint32_t)gm.m_pad);
    a.by_k01 = convt_fastdiv_make((uint32_t)(s.k[0] * s.k[1]));
    a.r_step = (int)(k.block / units);
    a.e_step = (int)(k.block % units);
    a.tpl_log2 = (int)gm.tpl_log2;
    a.along_q = (int)gm.along_q;
    a.m_pad = (int)gm.m_pad;
    a.pitch = (int)gm.pitch;
    a.rows = (int)gm.rows;
    a.buf_floats = (int)gm.buf_floats;
    a.ws_floats = (int)gm.ws_floats;
    st->smem = gm.smem;
    st->grid = dim3((unsigned)(s.out[0] * gm.tiles1 * s.stride[2] * gm.segs), (unsigned)(p->n * p->cout));
    st->block = (int)k.block;
    st->kernel = dgw_kernel_for((int)k.block, (int)k.passes, (int)gm.t);
    snprintf(st->detail, sizeof st->detail,
             "tpl=%lld lines=%lld stretch=%lld T=%lld m_pad=%lld buffers=%lld smem=%zu",
             (long long)gm.tpl, (long long)gm.tile_lines, (long long)gm.stretch, (long long)gm.t,
             (long long)gm.m_pad, (long long)gm.nbuf, gm.smem);
    if (st->smem > 48 * 1024) {
        cudaError_t err = cudaFuncSetAttribute(st->kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                               (int)st->smem);
        if (err != cudaSuccess) {
            const size_t smem = st->smem;
            free(st);
            return convt_fail(e, "cudaFuncSetAttribute(%zu bytes of shared memory): %s", smem,
                              cudaGetErrorString(err));
        }
    }
    *state = st;
    return 0;
}

static void dgw_release(void *state) { free(state); }

/* The resolved tile and window, into each record's detail. */
static void dgw_describe(const void *state, char *buf, size_t len)
{
    snprintf(buf, len, "%s", ((const dgw_state *)state)->detail);
}

static int dgw_launch(const convt_problem *p, const convt_launch *l, const convt_tensors *t,
                      void *workspace, void *state, const convt_context *ctx, convt_err *e)
{
    (void)p, (void)l, (void)workspace;
    const dgw_state *st = (const dgw_state *)state;
    st->kernel<<<st->grid, st->block, st->smem, (cudaStream_t)ctx->stream>>>(st->args, t->x, t->w,
                                                                             t->b, t->y);
    CUDA_TRY_LAUNCH(e);
    return 0;
}

extern "C" const convt_variant convt_variant_direct_grouped_window = {
    .name = "direct_grouped_window",
    .summary = "few channels per group, no dilation along the innermost dimension: "
               "direct_grouped_staged's tiles with 4 consecutive outputs a thread and their "
               "taps' inputs in a register window (a float loaded once serves up to 4 taps)",
    .backend = CONVT_BACKEND_CUDA,
    .tier = CONVT_TIER_FP32,
    .deterministic = true,
    .n_knobs = 2,
    .knobs = {{.name = "block",
               .help = "threads per block (64, 128 or 256): with 4 outputs a thread and pass, "
                       "the outputs a block computes (a stretch of one line, or several short "
                       "lines)",
               .n_defaults = 3,
               .defaults = {64, 128, 256}},
              {.name = "passes",
               .help = "groups of 4 outputs a thread computes (1 or 4): further lines of the "
                       "block's tile, or, where a plane has one line (1-D layers), further "
                       "stretches of it; more passes spread a block's set-up over more outputs",
               .n_defaults = 2,
               .defaults = {1, 4}}},
    .supports = dgw_supports,
    .workspace_size = NULL,
    .prepare = dgw_prepare,
    .launch = dgw_launch,
    .release = dgw_release,
    .describe = dgw_describe,
};
