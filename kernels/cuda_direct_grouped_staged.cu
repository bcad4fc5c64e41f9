/* direct_grouped_staged: direct_grouped's tap walk with the input read
 * once per block from global memory. direct_grouped loads every tap's input
 * through L1: with many taps per output (a 1-D kernel of 31, 2-D 7 x 7) a
 * warp's 32 floats at a shift not a multiple of 32 are two L1 wavefronts a
 * tap, and the L1 is the limit (results/notes.md, "Session 16").
 *
 * A block serves a tile of LINES = BLOCK / TPL neighbouring output lines
 * along the second-innermost dimension (o1 .. o1 + LINES - 1; one o0, one
 * stride phase ph along the innermost dimension; the tap walk is
 * kernels/direct_grouped_taps.cuh's) x a stretch of TPL x OUTS positions q
 * of each. For each input plane i0 and channel of the group that reach the
 * tile, the block copies the input rows its lines read (i1 from the lowest
 * the last line's taps reach to the highest the first line's first tap
 * reads), each over the inputs q + c its taps read, into shared memory
 * (coalesced, by cp.async; zeros outside the row, so the tap loop tests no
 * bounds), and every thread adds its outputs' taps from there. Thread t
 * serves line t / TPL, outputs q0 + t % TPL + j * TPL: a warp's shared loads
 * of a tap are 32 consecutive floats of one row (no bank conflict) and its
 * stores 32 consecutive positions of the phase. TPL (threads per line,
 * compiled: a warp to the block, so that a tap's OUTS loads are one address
 * and immediate offsets) is the smallest power of two from 32 whose
 * OUTS-fold covers a line: long lines take the whole block, short ones
 * (small 2-D and 3-D images) a warp each. float32 accumulation in a fixed
 * order: deterministic.
 *
 * On the H100 it wins 2-D layers of 3 x 3 to 7 x 7 taps; on 1-D layers a
 * block of one line was faster as 0bb3cf5 had it (a row staged at a time by
 * plain loads, 32 registers where this has 39 at OUTS 8): results/notes.md,
 * "Session 16".
 *
 *   convt-bench --config configs/depthwise.json */
#include <stdlib.h>

#include "build_config.h"
#include "cuda_check.h"
#include "direct_grouped_taps.cuh"
#include "fastdiv.h"
#include "line_tiles.h"
#include "polyphase_common.cuh"
#include "variant.h"

struct dgs_args {
    int64_t cin, cout, cin_g, cout_g;
    int64_t in_plane; /* input elements per channel */
    dg_dim d[3];
    convt_fastdiv by_segs, by_stride2, by_tiles1; /* blockIdx.x's digits */
    int ws_floats; /* the weights' floats in shared memory, rounded to 4 */
};

/* A block's tile: dg_tile_of, each stretch TPL * OUTS positions of a line. */
template <int BLOCK, int OUTS, int TPL>
__global__ void __launch_bounds__(BLOCK)
    direct_grouped_staged_kernel(dgs_args a, const float *__restrict__ x,
                                 const float *__restrict__ w, const float *__restrict__ b,
                                 float *__restrict__ y)
{
    constexpr int LINES = BLOCK / TPL;
    extern __shared__ float dgs_smem[];
    float *ws = dgs_smem;                /* ws[cl][tap] */
    float *xs = dgs_smem + a.ws_floats; /* the staged rows of one input plane and channel */
    const dg_dim d0 = a.d[0], d1 = a.d[1], d2 = a.d[2];
    const int taps = d0.k * d1.k * d2.k;
    const int cin_g = (int)a.cin_g;
    const int64_t row = blockIdx.y;
    const int64_t co = row % a.cout, n = row / a.cout;
    const int64_t g = co / a.cout_g, col = co - g * a.cout_g;
    dg_stage_weights(ws, w, g, col, cin_g, a.cout_g, taps);

    const dg_tile tile = dg_tile_of(a.by_segs, a.by_stride2, a.by_tiles1, LINES);
    const int seg = tile.seg, ph = tile.ph, o0 = tile.o0, o1_first = tile.o1_first;
    const int q_first = seg * TPL * OUTS; /* the stretch's first q */
    /* the phase's positions end before the stretch (a phase past the first
     * has fewer): the whole block leaves, before any barrier */
    if (ph + d2.stride * q_first >= d2.out)
        return;
    const int tid = threadIdx.x;
    const int line = tid / TPL, u = tid % TPL;
    const int o1 = o1_first + line;
    const float bias = b ? b[co] : 0.0f;
    float acc[OUTS];
#pragma unroll
    for (int j = 0; j < OUTS; j++)
        acc[j] = bias;
    /* block-uniform: the taps along d0 (one o0) and along d2 (one phase);
     * per thread: its line's taps along d1 */
    int k0f, i0f, k2f, c2f, k1f, i1f;
    const bool reached = dg_first_tap(d0, o0, k0f, i0f) && dg_first_tap(d2, ph, k2f, c2f);
    const bool line_reached = o1 < d1.out && dg_first_tap(d1, o1, k1f, i1f);
    if (reached) {
        const int c2_last = dg_last_offset(d2, k2f, c2f);
        /* staged element (rr, e) is input (i1_lo + rr, q_first + c2_last + e);
         * output q's tap at offset c reads element q - q_first + c - c2_last */
        const int staged = TPL * OUTS + c2f - c2_last;
        const int in_first = q_first + c2_last;
        /* the input rows the tile's lines read: from the last line's
         * highest input to the first line's lowest */
        int i1_lo, i1_hi;
        convt_tile_rows(o1_first, LINES, d1.out, d1.pad, d1.k, d1.dil, d1.stride, d1.in, &i1_lo,
                        &i1_hi);
        const int nrows = i1_hi - i1_lo + 1;
        const int e_step = BLOCK % staged, r_step = BLOCK / staged;
        const float *xg = x + (n * a.cin + g * a.cin_g) * a.in_plane;
        for (int k0 = k0f, i0 = i0f; k0 < d0.k && i0 >= 0; k0 += d0.step, i0 -= d0.di) {
            if (i0 >= d0.in)
                continue;
            for (int cl = 0; cl < cin_g; cl++) {
                const float *xplane = xg + cl * a.in_plane + (int64_t)i0 * d1.in * d2.in;
                __syncthreads(); /* the previous plane's taps are done with xs (and ws is in) */
                /* by cp.async, so that a thread's copies are all in flight at
                 * once (as loads and stores, each waited for its load: 1-D
                 * layers ran at half the speed of a loop over one row) */
                for (int rr = tid / staged, e = tid - rr * staged; rr < nrows;) {
                    const int i = in_first + e;
                    const bool inside = (unsigned)i < (unsigned)d2.in;
                    cp_async4(xs + rr * staged + e,
                              inside ? xplane + (int64_t)(i1_lo + rr) * d2.in + i : xplane, inside);
                    e += e_step, rr += r_step;
                    if (e >= staged)
                        e -= staged, rr++;
                }
                cp_async_commit();
                cp_async_wait(0);
                __syncthreads();
                if (!line_reached)
                    continue;
                const float *wc = ws + cl * taps + k0 * d1.k * d2.k;
                for (int k1 = k1f, i1 = i1f; k1 < d1.k && i1 >= 0; k1 += d1.step, i1 -= d1.di) {
                    if (i1 >= d1.in)
                        continue;
                    const float *wk = wc + k1 * d2.k;
                    const float *xt = xs + (i1 - i1_lo) * staged + u + c2f - c2_last;
                    for (int k2 = k2f; k2 < d2.k; k2 += d2.step, xt -= d2.di) {
                        const float wv = wk[k2];
#pragma unroll
                        for (int j = 0; j < OUTS; j++)
                            acc[j] += xt[j * TPL] * wv;
                    }
                }
            }
        }
    }
    if (o1 >= d1.out)
        return;
    float *yrow = y + (((n * a.cout + co) * d0.out + o0) * d1.out + o1) * (int64_t)d2.out;
#pragma unroll
    for (int j = 0; j < OUTS; j++) {
        const int o2 = ph + d2.stride * (q_first + u + j * TPL);
        if (o2 < d2.out)
            yrow[o2] = acc[j];
    }
}

extern "C" const convt_variant convt_variant_direct_grouped_staged;

struct dgs_knobs {
    int64_t block, outs;
};

static dgs_knobs dgs_knobs_of(const convt_launch *l)
{
    const convt_variant *v = &convt_variant_direct_grouped_staged;
    return {convt_launch_get(v, l, "block"), convt_launch_get(v, l, "outs")};
}

/* A launch's tiles: tpl threads per line (the smallest power of two from 32
 * whose outs-fold covers a phase's positions along the innermost dimension,
 * at most the block), lines = block / tpl per block, segs stretches per
 * line, tiles1 tiles along the second-innermost dimension; and the shared
 * memory: the weights (rounded to 4 floats) and the most rows a tile reads,
 * each the widest stretch (tpl x outs + the innermost taps' widest reach:
 * di x the most taps a phase has, less one). */
typedef struct dgs_geometry {
    int64_t tpl, lines, segs, tiles1, rows, pitch;
    int ws_floats;
    size_t smem;
} dgs_geometry;

static dgs_geometry dgs_geometry_of(const convt_problem *p, const convt_shape3 &s, int64_t block,
                                    int64_t outs)
{
    dgs_geometry gm;
    const int64_t q2 = (s.out[2] + s.stride[2] - 1) / s.stride[2];
    const int64_t need = (q2 + outs - 1) / outs;
    gm.tpl = 32;
    while (gm.tpl < need && gm.tpl < block)
        gm.tpl *= 2;
    gm.lines = block / gm.tpl;
    gm.segs = (q2 + gm.tpl * outs - 1) / (gm.tpl * outs);
    gm.tiles1 = (s.out[1] + gm.lines - 1) / gm.lines;
    gm.rows = convt_tile_rows_max(gm.lines, s.k[1], s.dil[1], s.stride[1], s.in[1]);
    const int64_t di = s.dil[2] / convt_gcd(s.stride[2], s.dil[2]);
    const int64_t reach = (convt_phase_taps_max(s.k[2], s.stride[2], s.dil[2]) - 1) * di;
    gm.pitch = gm.tpl * outs + reach;
    const int64_t cin_g = p->cin / p->groups;
    gm.ws_floats = (int)((cin_g * convt_taps(p) + 3) / 4 * 4);
    gm.smem = sizeof(float) * (size_t)(gm.ws_floats + gm.rows * gm.pitch);
    return gm;
}

static bool dgs_supports(const convt_problem *p, const convt_launch *l, const convt_context *ctx,
                         char *why, size_t why_len)
{
    const dgs_knobs k = dgs_knobs_of(l);
    static const int64_t blocks[] = {64, 128, 256}, outs[] = {2, 4, 8};
    if (!dg_knob_compiled("block", k.block, blocks, 3, why, why_len) ||
        !dg_knob_compiled("outs", k.outs, outs, 3, why, why_len))
        return false;
    const int64_t cin_g = p->cin / p->groups;
    if (cin_g > DG_MAX_CIN_G) {
        snprintf(why, why_len, "%lld input channels per group; direct_grouped_staged is for at "
                 "most %d (more is a GEMM's work: polyphase_igemm)", (long long)cin_g, DG_MAX_CIN_G);
        return false;
    }
    if (!convt_check_row_blocks(p, "direct_grouped_staged", why, why_len))
        return false;
    const convt_shape3 s = convt_problem_as_3d(p);
    const dgs_geometry gm = dgs_geometry_of(p, s, k.block, k.outs);
    if (gm.smem > ctx->dev->smem_per_block_optin) {
        snprintf(why, why_len, "needs %.1f KiB of shared memory (the weights and %lld input rows "
                 "of up to %lld floats), the device allows %.1f KiB", gm.smem / 1024.0,
                 (long long)gm.rows, (long long)gm.pitch, ctx->dev->smem_per_block_optin / 1024.0);
        return false;
    }
    /* 32-bit indices: a dimension's positions, pads and reach; the line's
     * positions ph + stride * q up to the last stretch's end; the grid's x
     * (lines x stretches) */
    const int64_t widest = dg_widest_extent(s);
    const int64_t blocks_x = dg_tile_blocks(s, gm.tiles1, gm.segs);
    const int64_t q_end = s.stride[2] * gm.segs * gm.tpl * k.outs;
    if (widest > INT32_MAX / 4 || q_end + widest > INT32_MAX || blocks_x > INT32_MAX ||
        gm.rows * gm.pitch > INT32_MAX) {
        snprintf(why, why_len, "needs %lld blocks per (n, co) row and positions up to %lld along "
                 "the innermost dimension (a dimension of %lld), beyond the kernel's 32-bit "
                 "indices", (long long)blocks_x, (long long)q_end, (long long)widest);
        return false;
    }
    return true;
}

typedef void (*dgs_kernel_fn)(dgs_args, const float *, const float *, const float *, float *);

template <int BLOCK, int TPL>
static dgs_kernel_fn dgs_kernel_of_line(int outs)
{
    return outs == 8   ? direct_grouped_staged_kernel<BLOCK, 8, TPL>
           : outs == 4 ? direct_grouped_staged_kernel<BLOCK, 4, TPL>
                       : direct_grouped_staged_kernel<BLOCK, 2, TPL>;
}

/* tpl is 32 up to the block (dgs_geometry_of) */
static dgs_kernel_fn dgs_kernel_for(int block, int outs, int tpl)
{
    if (block == 64)
        return tpl == 32 ? dgs_kernel_of_line<64, 32>(outs) : dgs_kernel_of_line<64, 64>(outs);
    if (block == 128)
        return tpl == 32   ? dgs_kernel_of_line<128, 32>(outs)
               : tpl == 64 ? dgs_kernel_of_line<128, 64>(outs)
                           : dgs_kernel_of_line<128, 128>(outs);
    return tpl == 32    ? dgs_kernel_of_line<256, 32>(outs)
           : tpl == 64  ? dgs_kernel_of_line<256, 64>(outs)
           : tpl == 128 ? dgs_kernel_of_line<256, 128>(outs)
                        : dgs_kernel_of_line<256, 256>(outs);
}

/* Everything a launch needs, made once in prepare. */
typedef dg_prepared_state<dgs_args, dgs_kernel_fn> dgs_state;

static int dgs_prepare(const convt_problem *p, const convt_launch *l, const convt_tensors *t,
                       const convt_context *ctx, void **state, size_t *workspace, convt_err *e)
{
    (void)t, (void)workspace;
    const dgs_knobs k = dgs_knobs_of(l);
    dgs_state *st = (dgs_state *)calloc(1, sizeof *st);
    if (!st)
        return convt_fail(e, "out of host memory");
    const convt_shape3 s = convt_problem_as_3d(p);
    dgs_args &a = st->args;
    dg_set_common(a, p, s);
    const dgs_geometry gm = dgs_geometry_of(p, s, k.block, k.outs);
    const unsigned blocks_x = dg_set_tile_digits(a, s, gm.tiles1, gm.segs);
    a.ws_floats = gm.ws_floats;
    st->smem = gm.smem;
    st->grid = dim3(blocks_x, (unsigned)(p->n * p->cout));
    st->block = (int)k.block;
    st->kernel = dgs_kernel_for((int)k.block, (int)k.outs, (int)gm.tpl);
    return dg_hand_over(st, ctx, state, e);
}

extern "C" const convt_variant convt_variant_direct_grouped_staged = {
    .name = "direct_grouped_staged",
    .summary = "few channels per group: a tile of neighbouring output lines per block, the "
               "input rows they read staged once in shared memory, OUTS outputs of one stride "
               "phase per thread, only reaching taps visited",
    .backend = CONVT_BACKEND_CUDA,
    .tier = CONVT_TIER_FP32,
    .deterministic = true,
    .n_knobs = 2,
    .knobs = {{.name = "block",
               .help = "threads per block (64, 128 or 256): with outs, the outputs a block "
                       "computes (a stretch of one line, or several short lines)",
               .n_defaults = 2,
               .defaults = {64, 128}},
              {.name = "outs",
               .help = "outputs per thread (2, 4 or 8), a line's threads apart along the phase",
               .n_defaults = 3,
               .defaults = {2, 4, 8}}},
    .supports = dgs_supports,
    .workspace_size = NULL,
    .prepare = dgs_prepare,
    .launch = dg_launch_prepared<dgs_state>,
    .release = dg_free_state,
    .describe = NULL,
};
