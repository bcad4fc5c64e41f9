/* direct_periods: transposed convolution in float32 FMAs, each thread
 * computing every stride phase of one period of the innermost dimension,
 * so that a warp writes whole stretches of output rows. For strided layers
 * whose time is the output's write (kb81: 3 taps of 32 channels per output
 * reached, 64% of the outputs reached by none), where the GEMM kernels
 * compute one phase at a time, store a fifth of each sector, and prefill
 * the outputs no tap reaches first: kb81 took 1.18 ms there, where writing
 * its 0.83 GB once takes about 0.3 (results/notes.md, "Phases no tap
 * reaches" and "Session 18"). Where a layer has more work per output (kb79,
 * kb75, kb72) the GEMM kernels stay faster; the sweep picks.
 *
 * Period q of the innermost dimension holds the outputs q * stride + ph -
 * pad, ph = 0 .. stride - 1; tap k reaches phase (k * dil) mod stride of
 * every period and reads input q - floor(k * dil / stride) there
 * (src/lib/stride_phase.h, checked by tests/test_period_taps.c). So a
 * thread owns one period q for COUTS output channels and one accumulator
 * per innermost tap and channel: for every input channel of the group and
 * every outer tap that reaches the block's output row, it loads the KW
 * inputs its taps read (consecutive threads, consecutive inputs: coalesced;
 * two iterations ahead) and does KW x COUTS FMAs with weights read as
 * float4 across channels, the same for the whole warp. At the end each
 * phase is the bias plus its taps' accumulators; a warp writes its 32
 * periods' stride x 32 outputs (phases no tap reaches included, as the
 * bias or zero) through a shared buffer, 32 consecutive floats a store.
 * Each output is written once; nothing is prefilled.
 *
 * A block serves one output row (image, o0, o1: the outer taps that reach
 * it are the same for all its threads) and `block` consecutive periods of
 * it, for COUTS output channels of one group (blockIdx.y). It stages the
 * weights of the outer taps that reach its row only (a list of them in
 * shared memory); a row no tap reaches is the bias. float32 accumulation in
 * a fixed order: deterministic.
 *
 *   convt-bench --config configs/kernelbench-l1.json */
#include <stdint.h>
#include <stdlib.h>

#include "build_config.h"
#include "cuda_check.h"
#include "direct_grouped_taps.cuh"
#include "fastdiv.h"
#include "stride_phase.h"
#include "variant.h"

enum {
    DP_MAX_KW = 8, /* innermost taps, compiled 1 .. 8 */
    DP_WARP = 32,
    DP_MAX_BLOCK = 256,
    /* the kernel's static shared memory (n_taps, and the dynamic array's
     * 16-byte alignment: ptxas, 16 bytes), counted against the limit */
    DP_STATIC_SMEM = 16,
};

struct dp_args {
    int64_t cin, cout, cin_g, cout_g;
    int64_t in_plane;  /* input elements per channel */
    int64_t out_plane; /* output elements per channel */
    dg_dim d[3];
    int ph[DP_MAX_KW], off[DP_MAX_KW]; /* innermost tap k's phase and period offset */
    int q_lo;                          /* the period of output 0 */
    int k01;                           /* outer taps: K0 x K1 */
    convt_fastdiv by_chunks;           /* blockIdx.x = row * chunks + chunk */
    convt_fastdiv by_out1, by_out0;    /* row = (n * out0 + o0) * out1 + o1 */
    convt_fastdiv by_coblocks_g;       /* blockIdx.y's output-channel blocks a group */
    int ws_floats;                     /* the weights' floats: reach x cin_g x KW x COUTS */
    int buf_floats;                    /* a warp's write-back buffer (skewed) */
};

/* A warp's write-back buffer holds element e (output q0 * stride - pad +
 * e) at e + e / 32: thread lane writes e = lane * stride + ph, which
 * without the skew would put 2, 4 or 8 of a warp's writes in one bank for
 * strides 2, 4 and 8; the reads (e = j * 32 + lane) stay conflict-free. */
__device__ __forceinline__ int dp_skew(int e) { return e + (e >> 5); }

/* Resident threads an SM by the accumulators a thread holds (KW x couts):
 * up to 8, 1024 (64 registers); up to 48, 512 (128); more, 256 (255).
 * ptxas spilled 3 x 8 and 4 x 4 at 64 registers, 7 x 8 at 128. */
constexpr int dp_resident_threads(int accs)
{
    return accs <= 8 ? 1024 : accs <= 48 ? 512 : 256;
}

/* The inputs a thread's innermost taps read in one (outer tap, channel)
 * row at xr: zero where a tap's input lies outside the row (bit k of
 * inside clear) or when there is no such iteration (`live` false). */
template <int KW>
__device__ __forceinline__ void dp_load_taps(float (&xv)[KW], const float *xr, const int (&col)[KW],
                                             unsigned inside, bool live)
{
#pragma unroll
    for (int k = 0; k < KW; k++)
        xv[k] = live && (inside >> k & 1u) ? __ldg(xr + col[k]) : 0.0f;
}

/* The next (outer tap, channel) row: channels fastest, as the weights.
 * Past the last iteration the pointer stays inside the group's input and
 * is not read. */
__device__ __forceinline__ void dp_advance(int &t, int &cl, const float *&xr, const float *xg,
                                           const int *tap_row, int nt, int cin_g,
                                           int64_t in_plane)
{
    if (++cl < cin_g) {
        xr += in_plane;
    } else {
        cl = 0, t++;
        xr = t < nt ? xg + tap_row[t] : xg;
    }
}

template <int KW, int COUTS>
__global__ void __launch_bounds__(DP_MAX_BLOCK, dp_resident_threads(KW *COUTS) / DP_MAX_BLOCK)
    direct_periods_kernel(dp_args a, const float *__restrict__ x, const float *__restrict__ w,
                          const float *__restrict__ b, float *__restrict__ y)
{
    extern __shared__ __align__(16) float dp_smem[];
    float *ws = dp_smem;
    int *tap_k01 = (int *)(dp_smem + a.ws_floats); /* the outer taps reaching the row */
    int *tap_row = tap_k01 + a.k01;                /* and the input row each reads */
    float *bufs = (float *)(tap_row + a.k01);
    __shared__ int n_taps;
    const dg_dim d0 = a.d[0], d1 = a.d[1], d2 = a.d[2];
    const int cin_g = (int)a.cin_g;
    /* the block's row, periods and channels */
    const int row = (int)convt_fastdiv_div(a.by_chunks, blockIdx.x);
    const int chunk = (int)blockIdx.x - row * (int)a.by_chunks.d;
    const int r01 = (int)convt_fastdiv_div(a.by_out1, (uint32_t)row);
    const int o1 = row - r01 * d1.out;
    const int n = (int)convt_fastdiv_div(a.by_out0, (uint32_t)r01);
    const int o0 = r01 - n * d0.out;
    const int g = (int)convt_fastdiv_div(a.by_coblocks_g, blockIdx.y);
    const int col0 = ((int)blockIdx.y - g * (int)a.by_coblocks_g.d) * COUTS;
    const int co0 = g * (int)a.cout_g + col0;
    if (threadIdx.x == 0) /* the outer taps that reach (o0, o1) and the input row each reads */
        n_taps = dg_row_outer_taps(d0, d1, d2, o0, o1, tap_k01, tap_row);
    __syncthreads();
    const int nt = n_taps;
    /* the weights: ws[((t * cin_g + cl) * KW + k2) * COUTS + c], read from
     * w[g * cin_g + cl][col0 + c][k01][k2] (k2 fastest: runs of KW
     * consecutive floats; once a block) */
    const int total = nt * cin_g * KW * COUTS;
    const int taps = a.k01 * KW;
    for (int e = threadIdx.x; e < total; e += blockDim.x) {
        const int k2 = e % KW, r = e / KW;
        const int c = r % COUTS, r2 = r / COUTS;
        const int t = r2 / cin_g, cl = r2 - t * cin_g;
        ws[((t * cin_g + cl) * KW + k2) * COUTS + c] =
            w[(((int64_t)g * cin_g + cl) * a.cout_g + col0 + c) * taps + tap_k01[t] * KW + k2];
    }
    __syncthreads();
    const int lane = threadIdx.x & (DP_WARP - 1);
    const int q0 = a.q_lo + chunk * (int)blockDim.x + (threadIdx.x & ~(DP_WARP - 1));
    const int e_first = q0 * d2.stride - d2.pad; /* the output buffer element 0 is */
    /* a warp past the row's last period leaves (no block barrier follows) */
    if (e_first >= d2.out)
        return;
    const int q = q0 + lane;
    float acc[KW][COUTS];
#pragma unroll
    for (int k = 0; k < KW; k++)
#pragma unroll
        for (int c = 0; c < COUTS; c++)
            acc[k][c] = 0.0f;
    /* the input each innermost tap reads, and whether it exists */
    int col[KW];
    unsigned inside = 0;
#pragma unroll
    for (int k = 0; k < KW; k++) {
        col[k] = q - a.off[k];
        if ((unsigned)col[k] < (unsigned)d2.in)
            inside |= 1u << k;
        else
            col[k] = 0;
    }
    /* the sum over (outer tap t, channel cl), flattened to j = t * cin_g +
     * cl (the weights' order): each iteration's inputs are loaded two
     * iterations ahead, because the loads wait on L2 or DRAM and a
     * thread's 24 to 48 accumulators (kb81, kb79) leave 4 or 5 warps a
     * scheduler to hide that (Nsight Compute without it: the first FMA of
     * each iteration held 20% of the warps' samples, waiting on its load;
     * 66% and 56% of issue slots busy). Measured: kb81 10% faster, kb79
     * 11% slower (results/notes.md, "Session 18") */
    const float *xg = x + ((int64_t)n * a.cin + (int64_t)g * cin_g) * a.in_plane;
    const int iters = nt * cin_g;
    int next_t = 0, next_cl = 0; /* the iteration whose loads are issued next */
    const float *next_x = nt > 0 ? xg + tap_row[0] : xg;
    float x_now[KW], x_soon[KW];
    dp_load_taps<KW>(x_now, next_x, col, inside, iters > 0);
    dp_advance(next_t, next_cl, next_x, xg, tap_row, nt, cin_g, a.in_plane);
    dp_load_taps<KW>(x_soon, next_x, col, inside, iters > 1);
    dp_advance(next_t, next_cl, next_x, xg, tap_row, nt, cin_g, a.in_plane);
    for (int j = 0; j < iters; j++) {
        float x_later[KW];
        dp_load_taps<KW>(x_later, next_x, col, inside, j + 2 < iters);
        dp_advance(next_t, next_cl, next_x, xg, tap_row, nt, cin_g, a.in_plane);
        const float *wr = ws + j * KW * COUTS;
#pragma unroll
        for (int k = 0; k < KW; k++)
#pragma unroll
            for (int c4 = 0; c4 < COUTS / 4; c4++) {
                const float4 wv = *reinterpret_cast<const float4 *>(wr + k * COUTS + 4 * c4);
                acc[k][4 * c4 + 0] = fmaf(x_now[k], wv.x, acc[k][4 * c4 + 0]);
                acc[k][4 * c4 + 1] = fmaf(x_now[k], wv.y, acc[k][4 * c4 + 1]);
                acc[k][4 * c4 + 2] = fmaf(x_now[k], wv.z, acc[k][4 * c4 + 2]);
                acc[k][4 * c4 + 3] = fmaf(x_now[k], wv.w, acc[k][4 * c4 + 3]);
            }
#pragma unroll
        for (int k = 0; k < KW; k++)
            x_now[k] = x_soon[k], x_soon[k] = x_later[k];
    }
    /* the write-back: per channel, the warp's 32 periods' phases into its
     * buffer, then 32 consecutive outputs a store */
    float *buf = bufs + (threadIdx.x >> 5) * a.buf_floats;
    float *yrow = y + ((int64_t)n * a.cout + co0) * a.out_plane +
                  ((int64_t)o0 * d1.out + o1) * d2.out;
#pragma unroll
    for (int c = 0; c < COUTS; c++, yrow += a.out_plane) {
        const float bias = b ? b[co0 + c] : 0.0f;
        for (int ph = 0; ph < d2.stride; ph++) {
            float v = bias;
#pragma unroll
            for (int k = 0; k < KW; k++)
                if (a.ph[k] == ph)
                    v += acc[k][c];
            buf[dp_skew(lane * d2.stride + ph)] = v;
        }
        __syncwarp();
        for (int j = 0; j < d2.stride; j++) {
            const int e = j * DP_WARP + lane, o = e_first + e;
            if (o >= 0 && o < d2.out)
                yrow[o] = buf[dp_skew(e)];
        }
        __syncwarp();
    }
}

extern "C" const convt_variant convt_variant_direct_periods;

/* A launch's geometry: the periods of a row (q_lo .. q_hi hold outputs 0
 * .. out2 - 1), chunks of `block` periods a row; the outer taps reaching a
 * row at most; the weights' floats for as many, the write-back buffers and
 * the tap list; the shared memory. */
typedef struct dp_geometry {
    int64_t q_lo, periods, chunks, rows, reach, ws_floats, buf_floats;
    size_t smem;
} dp_geometry;

static dp_geometry dp_geometry_of(const convt_problem *p, const convt_shape3 &s, int64_t block,
                                  int64_t couts)
{
    dp_geometry gm;
    gm.q_lo = convt_period_of(0, s.stride[2], s.pad[2]);
    gm.periods = convt_period_of(s.out[2] - 1, s.stride[2], s.pad[2]) - gm.q_lo + 1;
    gm.chunks = (gm.periods + block - 1) / block;
    gm.rows = p->n * s.out[0] * s.out[1];
    const int64_t cin_g = p->cin / p->groups, k01 = s.k[0] * s.k[1];
    /* the outer taps reaching a row, at most */
    gm.reach = convt_phase_taps_max(s.k[0], s.stride[0], s.dil[0]) *
               convt_phase_taps_max(s.k[1], s.stride[1], s.dil[1]);
    gm.ws_floats = (gm.reach * cin_g * s.k[2] * couts + 3) / 4 * 4;
    const int64_t skewed = DP_WARP * s.stride[2];
    gm.buf_floats = skewed + (skewed - 1) / DP_WARP + 1;
    gm.smem = sizeof(float) * (size_t)(gm.ws_floats + 2 * k01 + block / DP_WARP * gm.buf_floats);
    return gm;
}

struct dp_knobs {
    int64_t block, couts;
};

static dp_knobs dp_knobs_of(const convt_launch *l)
{
    const convt_variant *v = &convt_variant_direct_periods;
    return {convt_launch_get(v, l, "block"), convt_launch_get(v, l, "couts")};
}

static bool dp_supports(const convt_problem *p, const convt_launch *l, const convt_context *ctx,
                        char *why, size_t why_len)
{
    const dp_knobs k = dp_knobs_of(l);
    static const int64_t blocks[] = {64, 128, 256}, couts[] = {4, 8, 16};
    if (!dg_knob_compiled("block", k.block, blocks, 3, why, why_len) ||
        !dg_knob_compiled("couts", k.couts, couts, 3, why, why_len) ||
        !dg_couts_divide_group(p, k.couts, why, why_len))
        return false;
    const convt_shape3 s = convt_problem_as_3d(p);
    if (s.k[2] > DP_MAX_KW) {
        snprintf(why, why_len, "the innermost dimension has %lld taps; the kernel holds an "
                 "accumulator per tap and is compiled for up to %d",
                 (long long)s.k[2], (int)DP_MAX_KW);
        return false;
    }
    /* the grid's y: a block per COUTS output channels */
    if (p->cout / k.couts > 65535) {
        snprintf(why, why_len, "puts cout / couts = %lld blocks on the grid's y axis (limit 65535)",
                 (long long)(p->cout / k.couts));
        return false;
    }
    const dp_geometry gm = dp_geometry_of(p, s, k.block, k.couts);
    if (gm.smem + DP_STATIC_SMEM > ctx->dev->smem_per_block_optin) {
        snprintf(why, why_len, "needs %.1f KiB of shared memory (the weights of %lld input "
                 "channels, %lld innermost taps and %lld output channels for each of up to %lld "
                 "outer taps reaching a row, the list of those taps, and the write-back of "
                 "stride %lld), the device allows %.1f KiB",
                 (gm.smem + DP_STATIC_SMEM) / 1024.0, (long long)(p->cin / p->groups),
                 (long long)s.k[2], (long long)k.couts, (long long)gm.reach,
                 (long long)s.stride[2], ctx->dev->smem_per_block_optin / 1024.0);
        return false;
    }
    /* 32-bit indices: a dimension's extents and reach; the grid's x; an
     * input row's offset in its plane; a period's outputs */
    const int64_t widest = dg_widest_extent(s);
    const int64_t blocks_x = gm.rows * gm.chunks;
    const int64_t in_plane = s.in[0] * s.in[1] * s.in[2];
    const int64_t q_end = (gm.q_lo + gm.chunks * k.block + DP_WARP) * s.stride[2];
    if (widest > INT32_MAX / 4 || blocks_x > INT32_MAX || in_plane > INT32_MAX ||
        q_end > INT32_MAX || gm.rows > INT32_MAX) {
        snprintf(why, why_len, "needs %lld blocks on the grid's x, inputs up to %lld in a "
                 "plane and outputs up to %lld along a row (a dimension of %lld), beyond the "
                 "kernel's 32-bit indices",
                 (long long)blocks_x, (long long)in_plane, (long long)q_end, (long long)widest);
        return false;
    }
    return true;
}

typedef void (*dp_kernel_fn)(dp_args, const float *, const float *, const float *, float *);

template <int COUTS>
static dp_kernel_fn dp_kernel_of_taps(int kw)
{
    switch (kw) {
    case 1: return direct_periods_kernel<1, COUTS>;
    case 2: return direct_periods_kernel<2, COUTS>;
    case 3: return direct_periods_kernel<3, COUTS>;
    case 4: return direct_periods_kernel<4, COUTS>;
    case 5: return direct_periods_kernel<5, COUTS>;
    case 6: return direct_periods_kernel<6, COUTS>;
    case 7: return direct_periods_kernel<7, COUTS>;
    default: return direct_periods_kernel<8, COUTS>;
    }
}

/* couts is 4, 8 or 16 and kw 1 .. 8 (dp_supports) */
static dp_kernel_fn dp_kernel_for(int couts, int kw)
{
    return couts == 16  ? dp_kernel_of_taps<16>(kw)
           : couts == 8 ? dp_kernel_of_taps<8>(kw)
                        : dp_kernel_of_taps<4>(kw);
}

/* Everything a launch needs, made once in prepare. */
typedef dg_prepared_state<dp_args, dp_kernel_fn> dp_state;

static int dp_prepare(const convt_problem *p, const convt_launch *l, const convt_tensors *t,
                      const convt_context *ctx, void **state, size_t *workspace, convt_err *e)
{
    (void)t, (void)workspace;
    const dp_knobs k = dp_knobs_of(l);
    dp_state *st = (dp_state *)calloc(1, sizeof *st);
    if (!st)
        return convt_fail(e, "out of host memory");
    const convt_shape3 s = convt_problem_as_3d(p);
    dp_args &a = st->args;
    dg_set_common(a, p, s);
    a.out_plane = s.out[0] * s.out[1] * s.out[2];
    for (int kk = 0; kk < DP_MAX_KW; kk++) {
        a.ph[kk] = (int)convt_tap_period_phase(kk, s.stride[2], s.dil[2]);
        a.off[kk] = (int)convt_tap_period_offset(kk, s.stride[2], s.dil[2]);
    }
    const dp_geometry gm = dp_geometry_of(p, s, k.block, k.couts);
    a.q_lo = (int)gm.q_lo;
    a.k01 = (int)(s.k[0] * s.k[1]);
    a.by_chunks = convt_fastdiv_make((uint32_t)gm.chunks);
    a.by_out1 = convt_fastdiv_make((uint32_t)s.out[1]);
    a.by_out0 = convt_fastdiv_make((uint32_t)s.out[0]);
    a.by_coblocks_g = convt_fastdiv_make((uint32_t)(p->cout / p->groups / k.couts));
    a.ws_floats = (int)gm.ws_floats;
    a.buf_floats = (int)gm.buf_floats;
    st->smem = gm.smem;
    st->grid = dim3((unsigned)(gm.rows * gm.chunks), (unsigned)(p->cout / k.couts));
    st->block = (int)k.block;
    st->kernel = dp_kernel_for((int)k.couts, (int)s.k[2]);
    snprintf(st->detail, sizeof st->detail,
             "periods=%lld chunks=%lld rows=%lld taps<=%lld smem=%zu", (long long)gm.periods,
             (long long)gm.chunks, (long long)gm.rows, (long long)gm.reach, gm.smem);
    return dg_hand_over(st, ctx, state, e);
}

extern "C" const convt_variant convt_variant_direct_periods = {
    .name = "direct_periods",
    .summary = "float32 FMAs, a thread computing every stride phase of one period of the "
               "innermost dimension (for 4, 8 or 16 output channels) so that warps write whole "
               "output rows once, with the outputs no tap reaches; for strided layers with few "
               "taps per output, whose time is the output's write; up to 8 innermost taps",
    .backend = CONVT_BACKEND_CUDA,
    .tier = CONVT_TIER_FP32,
    .deterministic = true,
    .n_knobs = 2,
    .knobs = {{.name = "block",
               .help = "threads per block (64, 128 or 256), one period of one output row each: "
                       "64 suits short rows (a block serves one row)",
               .n_defaults = 2,
               .defaults = {64, 128}},
              {.name = "couts",
               .help = "output channels a thread computes (4, 8 or 16, where it divides a "
                       "group's output channels): each input it loads serves as many, and the "
                       "input is read cout_g / couts times (from L2)",
               .n_defaults = 2,
               .defaults = {8, 16}}},
    .supports = dp_supports,
    .workspace_size = NULL,
    .prepare = dp_prepare,
    .launch = dg_launch_prepared<dp_state>,
    .release = dg_free_state,
    .describe = dg_describe_detail<dp_state>,
};
