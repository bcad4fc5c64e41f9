/* direct_grouped_staged: direct_grouped's tap walk with each input row read
 * once per block from global memory. direct_grouped loads every tap's input
 * through L1: with many taps per output (a 1-D kernel of 31, 2-D 7 x 7) a
 * warp's 32 floats at a shift not a multiple of 32 are two L1 wavefronts a
 * tap, and the L1 is the limit (results/notes.md, "Session 16").
 *
 * A block serves one stretch of BLOCK x OUTS positions q of one output line
 * (n, co, o0, o1, stride phase ph along the innermost dimension; the walk is
 * kernels/direct_grouped_taps.cuh's). For each input row (i0, i1) and
 * channel of the group that reaches the line, the block copies the inputs
 * its taps read, q + c for c from the last tap's offset to the first's, into
 * shared memory (coalesced, zeros outside the row: no bounds test in the
 * tap loop), and every thread adds its OUTS outputs' taps from there.
 * Thread t's outputs are q0 + t + j * BLOCK: a warp's shared loads of a tap
 * are 32 consecutive floats (no bank conflict, whatever the shift) and its
 * stores 32 consecutive positions of the phase. float32 accumulation in a
 * fixed order: deterministic.
 *
 * A line shorter than BLOCK x OUTS leaves threads idle: the short lines of
 * small 2-D and 3-D images are direct_grouped's.
 *
 *   convt-bench --config configs/depthwise.json */
#include <stdlib.h>

#include "build_config.h"
#include "cuda_check.h"
#include "direct_grouped_taps.cuh"
#include "fastdiv.h"
#include "variant.h"

struct dgs_args {
    int64_t cin, cout, cin_g, cout_g;
    int64_t in_plane; /* input elements per channel */
    dg_dim d[3];
    convt_fastdiv by_segs, by_stride2, by_out1; /* blockIdx.x's digits */
    int ws_floats;                              /* the weights' floats in shared memory, rounded to 4 */
};

/* blockIdx.x = ((o0 * out1 + o1) * stride2 + ph) * segs + seg: stretch seg
 * of BLOCK * OUTS positions of the line; blockIdx.y = n * cout + co. */
template <int BLOCK, int OUTS>
__global__ void __launch_bounds__(BLOCK)
    direct_grouped_staged_kernel(dgs_args a, const float *__restrict__ x,
                                 const float *__restrict__ w, const float *__restrict__ b,
                                 float *__restrict__ y)
{
    extern __shared__ float dgs_smem[];
    float *ws = dgs_smem;                /* ws[cl][tap] */
    float *xs = dgs_smem + a.ws_floats; /* the staged stretch of one input row */
    const dg_dim d0 = a.d[0], d1 = a.d[1], d2 = a.d[2];
    const int taps = d0.k * d1.k * d2.k;
    const int cin_g = (int)a.cin_g;
    const int64_t row = blockIdx.y;
    const int64_t co = row % a.cout, n = row / a.cout;
    const int64_t g = co / a.cout_g, col = co - g * a.cout_g;
    dg_stage_weights(ws, w, g, col, cin_g, a.cout_g, taps);

    const int r = blockIdx.x;
    const int r1 = (int)convt_fastdiv_div(a.by_segs, (uint32_t)r);
    const int seg = r - r1 * (int)a.by_segs.d;
    const int r2 = (int)convt_fastdiv_div(a.by_stride2, (uint32_t)r1);
    const int ph = r1 - r2 * d2.stride;
    const int o0 = (int)convt_fastdiv_div(a.by_out1, (uint32_t)r2);
    const int o1 = r2 - o0 * d1.out;
    const int q_first = seg * BLOCK * OUTS; /* the stretch's first q */
    /* the phase's positions end before the stretch (a phase past the first
     * has fewer): the whole block leaves, before any barrier */
    if (ph + d2.stride * q_first >= d2.out)
        return;
    const int tid = threadIdx.x;
    const float bias = b ? b[co] : 0.0f;
    float acc[OUTS];
#pragma unroll
    for (int j = 0; j < OUTS; j++)
        acc[j] = bias;
    const dg_line l = dg_line_of(d0, d1, d2, o0, o1, ph); /* the same for the whole block */
    if (l.reached) {
        /* staged element e is input q_first + c2_last + e; output q's tap
         * at offset c reads element q - q_first + c - c2_last */
        const int staged = BLOCK * OUTS + l.c2f - l.c2_last;
        const int in_first = q_first + l.c2_last;
        const float *xg = x + (n * a.cin + g * a.cin_g) * a.in_plane;
        for (int k0 = l.k0f, i0 = l.i0f; k0 < d0.k && i0 >= 0; k0 += d0.step, i0 -= d0.di) {
            if (i0 >= d0.in)
                continue;
            for (int k1 = l.k1f, i1 = l.i1f; k1 < d1.k && i1 >= 0; k1 += d1.step, i1 -= d1.di) {
                if (i1 >= d1.in)
                    continue;
                for (int cl = 0; cl < cin_g; cl++) {
                    const float *xrow = xg + cl * a.in_plane + ((int64_t)i0 * d1.in + i1) * d2.in;
                    __syncthreads(); /* the previous row's taps are done with xs (and ws is in) */
                    for (int e = tid; e < staged; e += BLOCK) {
                        const int i = in_first + e;
                        xs[e] = (unsigned)i < (unsigned)d2.in ? xrow[i] : 0.0f;
                    }
                    __syncthreads();
                    const float *wk = ws + cl * taps + (k0 * d1.k + k1) * d2.k;
                    const float *xt = xs + tid + l.c2f - l.c2_last;
                    for (int k2 = l.k2f; k2 < d2.k; k2 += d2.step, xt -= d2.di) {
                        const float wv = wk[k2];
#pragma unroll
                        for (int j = 0; j < OUTS; j++)
                            acc[j] += xt[j * BLOCK] * wv;
                    }
                }
            }
        }
    }
    float *yrow = y + ((n * a.cout + co) * d0.out * d1.out + (int64_t)o0 * d1.out + o1) * d2.out;
#pragma unroll
    for (int j = 0; j < OUTS; j++) {
        const int o2 = ph + d2.stride * (q_first + tid + j * BLOCK);
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

/* The stretches of a line: ceil(ceil(out2 / stride2) / (block * outs)). */
static int64_t dgs_segs(const convt_shape3 &s, int64_t block, int64_t outs)
{
    const int64_t q2 = (s.out[2] + s.stride[2] - 1) / s.stride[2];
    return (q2 + block * outs - 1) / (block * outs);
}

/* Shared memory: the weights (rounded to 4 floats), then the widest staged
 * stretch, block * outs + the innermost taps' widest reach (di x the most
 * taps a phase has, less one). */
static size_t dgs_smem_bytes(const convt_problem *p, const convt_shape3 &s, int64_t block,
                             int64_t outs, int *ws_floats)
{
    const int64_t cin_g = p->cin / p->groups;
    const int64_t step = convt_phase_step(s.stride[2], s.dil[2]);
    const int64_t di = s.dil[2] / convt_gcd(s.stride[2], s.dil[2]);
    const int64_t reach = ((s.k[2] + step - 1) / step - 1) * di;
    *ws_floats = (int)((cin_g * convt_taps(p) + 3) / 4 * 4);
    return sizeof(float) * (size_t)(*ws_floats + block * outs + reach);
}

static bool dgs_supports(const convt_problem *p, const convt_launch *l, const convt_context *ctx,
                         char *why, size_t why_len)
{
    const dgs_knobs k = dgs_knobs_of(l);
    if (k.block != 64 && k.block != 128 && k.block != 256) {
        snprintf(why, why_len, "block = %lld must be 64, 128 or 256 (compiled)", (long long)k.block);
        return false;
    }
    if (k.outs != 4 && k.outs != 8) {
        snprintf(why, why_len, "outs = %lld must be 4 or 8 (compiled)", (long long)k.outs);
        return false;
    }
    const int64_t cin_g = p->cin / p->groups;
    if (cin_g > DG_MAX_CIN_G) {
        snprintf(why, why_len, "%lld input channels per group; direct_grouped_staged is for at "
                 "most %d (more is a GEMM's work: polyphase_igemm)", (long long)cin_g, DG_MAX_CIN_G);
        return false;
    }
    if (!convt_check_row_blocks(p, "direct_grouped_staged", why, why_len))
        return false;
    const convt_shape3 s = convt_problem_as_3d(p);
    int ws_floats;
    const size_t smem = dgs_smem_bytes(p, s, k.block, k.outs, &ws_floats);
    if (smem > ctx->dev->smem_per_block_optin) {
        snprintf(why, why_len, "needs %.1f KiB of shared memory (weights and a stretch of %lld "
                 "inputs), the device allows %.1f KiB", smem / 1024.0,
                 (long long)(k.block * k.outs), ctx->dev->smem_per_block_optin / 1024.0);
        return false;
    }
    /* 32-bit indices: a dimension's positions, pads and reach; the line's
     * positions ph + stride * q up to the last stretch's end; the grid's x
     * (lines x stretches) */
    int64_t widest = 0;
    for (int d = 0; d < 3; d++) {
        const int64_t v[] = {s.in[d], s.out[d] + s.pad[d], s.k[d] * s.dil[d], s.stride[d]};
        for (int i = 0; i < 4; i++)
            widest = v[i] > widest ? v[i] : widest;
    }
    const int64_t segs = dgs_segs(s, k.block, k.outs);
    const int64_t blocks_x = s.out[0] * s.out[1] * s.stride[2] * segs;
    if (widest > INT32_MAX / 4 || s.stride[2] * segs * k.block * k.outs + widest > INT32_MAX ||
        blocks_x > INT32_MAX) {
        snprintf(why, why_len, "needs %lld blocks per (n, co) row and positions up to %lld along "
                 "the innermost dimension (a dimension of %lld), beyond the kernel's 32-bit "
                 "indices", (long long)blocks_x, (long long)(s.stride[2] * segs * k.block * k.outs),
                 (long long)widest);
        return false;
    }
    return true;
}

typedef void (*dgs_kernel_fn)(dgs_args, const float *, const float *, const float *, float *);

template <int BLOCK>
static dgs_kernel_fn dgs_kernel_for(int outs)
{
    return outs == 8 ? direct_grouped_staged_kernel<BLOCK, 8> : direct_grouped_staged_kernel<BLOCK, 4>;
}

/* Everything a launch needs, made once in prepare. */
typedef struct dgs_state {
    dgs_args args;
    dgs_kernel_fn kernel;
    dim3 grid;
    int block;
    size_t smem;
} dgs_state;

static int dgs_prepare(const convt_problem *p, const convt_launch *l, const convt_tensors *t,
                       const convt_context *ctx, void **state, size_t *workspace, convt_err *e)
{
    (void)t, (void)workspace, (void)ctx;
    const dgs_knobs k = dgs_knobs_of(l);
    dgs_state *st = (dgs_state *)calloc(1, sizeof *st);
    if (!st)
        return convt_fail(e, "out of host memory");
    const convt_shape3 s = convt_problem_as_3d(p);
    dgs_args &a = st->args;
    a.cin = p->cin;
    a.cout = p->cout;
    a.cin_g = p->cin / p->groups;
    a.cout_g = p->cout / p->groups;
    a.in_plane = s.in[0] * s.in[1] * s.in[2];
    for (int d = 0; d < 3; d++)
        a.d[d] = dg_make_dim(s, d);
    const int64_t segs = dgs_segs(s, k.block, k.outs);
    a.by_segs = convt_fastdiv_make((uint32_t)segs);
    a.by_stride2 = convt_fastdiv_make((uint32_t)s.stride[2]);
    a.by_out1 = convt_fastdiv_make((uint32_t)s.out[1]);
    st->smem = dgs_smem_bytes(p, s, k.block, k.outs, &a.ws_floats);
    st->grid = dim3((unsigned)(s.out[0] * s.out[1] * s.stride[2] * segs), (unsigned)(p->n * p->cout));
    st->block = (int)k.block;
    st->kernel = k.block == 64    ? dgs_kernel_for<64>((int)k.outs)
                 : k.block == 128 ? dgs_kernel_for<128>((int)k.outs)
                                  : dgs_kernel_for<256>((int)k.outs);
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

static void dgs_release(void *state) { free(state); }

static int dgs_launch(const convt_problem *p, const convt_launch *l, const convt_tensors *t,
                      void *workspace, void *state, const convt_context *ctx, convt_err *e)
{
    (void)p, (void)l, (void)workspace;
    const dgs_state *st = (const dgs_state *)state;
    st->kernel<<<st->grid, st->block, st->smem, (cudaStream_t)ctx->stream>>>(st->args, t->x, t->w,
                                                                             t->b, t->y);
    CUDA_TRY_LAUNCH(e);
    return 0;
}

extern "C" const convt_variant convt_variant_direct_grouped_staged = {
    .name = "direct_grouped_staged",
    .summary = "few channels per group, long lines: each reaching input row's stretch staged "
               "once per block in shared memory, BLOCK x OUTS outputs of one stride phase a "
               "block, only reaching taps visited",
    .backend = CONVT_BACKEND_CUDA,
    .tier = CONVT_TIER_FP32,
    .deterministic = true,
    .n_knobs = 2,
    .knobs = {{.name = "block",
               .help = "threads per block (64, 128 or 256): with outs, the stretch of a line "
                       "a block computes",
               .n_defaults = 2,
               .defaults = {64, 128}},
              {.name = "outs",
               .help = "outputs per thread (4 or 8), block apart along the phase",
               .n_defaults = 2,
               .defaults = {4, 8}}},
    .supports = dgs_supports,
    .workspace_size = NULL,
    .prepare = dgs_prepare,
    .launch = dgs_launch,
    .release = dgs_release,
    .describe = NULL,
};
