/* direct_grouped: transposed convolution for few input channels per group
 * (depthwise and the like, up to 16 per group), where a GEMM has too little
 * K to use tensor cores and gather wastes its time on taps that do not reach.
 * Such layers move far more bytes than they compute: the kernel is meant to
 * run at the copy bandwidth, so what it must get right is how a warp touches
 * memory.
 *
 * Each block serves one (n, co) output row and stages that channel's weights
 * w[ci of the group][col][taps] in shared memory once. Each thread computes
 * OUTS outputs of one stride phase along the innermost dimension: positions
 * o2 = ph + stride * q, all reached by the same taps (o2 + pad - k*dil
 * divisible by the stride depends on ph alone), tap k reading input q + c(k):
 * the tap walk is done once for OUTS outputs, with no divisibility test per
 * output and no tap visited that does not reach (taps of one phase are
 * stride / gcd(stride, dil) apart, and the inputs they read di = dil /
 * gcd(stride, dil) apart). The outer dimensions walk their reaching taps the
 * same way.
 *
 * `lanes` consecutive threads take consecutive q, and a thread's OUTS outputs
 * are `lanes` apart: q = (qh * OUTS + j) * lanes + lane. With lanes = 32 a
 * warp's load of one tap is 32 consecutive floats (one 128-byte line) and its
 * store at stride 1 is too; with lanes = 1 a thread's outputs are consecutive
 * (the first version's layout: each lane its own sector), which suits an
 * innermost dimension much shorter than a warp. On the H100 the first version
 * was instruction-bound, not memory-bound, and this one is still issue-bound
 * at lanes = 32 and L1-bound at lanes = 1 (results/notes.md, "Session 13").
 *
 * A thread walks `walk` such chunks of its line (qh = grp, grp + groups, ...,
 * groups = ceil(qh_count / walk)): the line's decoding and its first taps
 * along every dimension (about three quarters of v2's instructions on
 * depthwise1d_k7, where each thread served 4 outputs) are done once for all
 * of them. Consecutive threads keep consecutive chunks at every step, so
 * the access pattern of `lanes` is unchanged.
 * float32 accumulation in a fixed order: deterministic.
 *
 *   convt-bench --config configs/realistic.json   (depthwise and grouped shapes) */
#include <stdlib.h>

#include "build_config.h"
#include "cuda_check.h"
#include "fastdiv.h"
#include "hostdevice.h"
#include "direct_grouped_taps.cuh"
#include "stride_phase.h"
#include "variant.h"

enum {
    /* resident threads per SM (2048 on sm_70 and later) times this many
     * rounds: the grid a row's blocks are capped to, beyond which a block
     * walks more of its row instead (its weights staged once) */
    DG_THREADS_PER_SM = 2048,
    DG_ROUNDS = 4
};

struct dg_args {
    int64_t cin, cout, cin_g, cout_g;
    int64_t in_plane; /* input elements per channel */
    dg_dim d[3];
    convt_fastdiv by_groups, by_stride2, by_out1; /* the thread index's digits */
    int qh_count;                                 /* chunks of OUTS * LANES q along a line */
    int per_row;                                  /* out0 * out1 * stride2 * groups * lanes */
};

/* The taps of one input row (i0, i1) for a thread's OUTS outputs: along the
 * innermost dimension the phase's taps k2f, k2f + step, ... read inputs
 * q + c, c falling by di per tap. CHECKED tests each input against the
 * row's bounds; the threads whose outputs read inside the row for every tap
 * (all but a few at each end) run without the tests: one load and one FMA
 * per tap and output (the kernel is otherwise instruction-bound: Nsight
 * Compute on depthwise2d_s2, results/notes.md, "Session 13"). */
template <int OUTS, int LANES, bool CHECKED>
__device__ __forceinline__ void dg_row(float (&acc)[OUTS], const float *xrow, const float *wk,
                                       int cin_g, int64_t in_plane, int taps, int q0, int in2,
                                       int k2f, int c2f, int k2_end, int step2, int di2)
{
    for (int k2 = k2f, c = c2f; k2 < k2_end; k2 += step2, c -= di2) {
        for (int cl = 0; cl < cin_g; cl++) {
            const float wv = wk[cl * taps + k2];
            const float *xc = xrow + cl * in_plane + q0 + c;
#pragma unroll
            for (int j = 0; j < OUTS; j++) {
                if (!CHECKED || (unsigned)(q0 + j * LANES + c) < (unsigned)in2)
                    acc[j] += xc[j * LANES] * wv;
            }
        }
    }
}

/* One chunk's OUTS outputs (q0 + j * LANES): every reaching input row. */
template <int OUTS, int LANES>
__device__ __forceinline__ void dg_chunk(float (&acc)[OUTS], const dg_line &l, const dg_dim &d0,
                                         const dg_dim &d1, const dg_dim &d2, const float *xg,
                                         const float *ws, int cin_g, int64_t in_plane, int taps,
                                         int q0)
{
    /* inside the row for every tap */
    const bool inside = q0 + l.c2_last >= 0 && q0 + (OUTS - 1) * LANES + l.c2f < d2.in;
    for (int k0 = l.k0f, i0 = l.i0f; k0 < d0.k && i0 >= 0; k0 += d0.step, i0 -= d0.di) {
        if (i0 >= d0.in)
            continue;
        for (int k1 = l.k1f, i1 = l.i1f; k1 < d1.k && i1 >= 0; k1 += d1.step, i1 -= d1.di) {
            if (i1 >= d1.in)
                continue;
            const float *xrow = xg + ((int64_t)i0 * d1.in + i1) * d2.in;
            const float *wk = ws + (k0 * d1.k + k1) * d2.k;
            if (inside)
                dg_row<OUTS, LANES, false>(acc, xrow, wk, cin_g, in_plane, taps, q0, d2.in, l.k2f,
                                           l.c2f, d2.k, d2.step, d2.di);
            else
                dg_row<OUTS, LANES, true>(acc, xrow, wk, cin_g, in_plane, taps, q0, d2.in, l.k2f,
                                          l.c2f, d2.k, d2.step, d2.di);
        }
    }
}

/* ONE_CIN: one input channel per group (depthwise), the channel loop gone. */
template <int OUTS, int LANES, bool ONE_CIN>
__global__ void direct_grouped_kernel(dg_args a, const float *__restrict__ x,
                                      const float *__restrict__ w, const float *__restrict__ b,
                                      float *__restrict__ y)
{
    extern __shared__ float ws[]; /* ws[cl][tap] */
    const dg_dim d0 = a.d[0], d1 = a.d[1], d2 = a.d[2];
    const int taps = d0.k * d1.k * d2.k;
    const int cin_g = ONE_CIN ? 1 : (int)a.cin_g;
    const int64_t in_plane = a.in_plane;
    const int64_t row = blockIdx.y;
    const int64_t co = row % a.cout, n = row / a.cout;
    const int64_t g = co / a.cout_g, col = co - g * a.cout_g;
    dg_stage_weights(ws, w, g, col, cin_g, a.cout_g, taps);
    __syncthreads();
    const float *xg = x + (n * a.cin + g * a.cin_g) * in_plane;
    float *yplane = y + (n * a.cout + co) * d0.out * d1.out * (int64_t)d2.out;
    const float bias = b ? b[co] : 0.0f;
    /* a block walks its row's threads in turn (gridDim.x blocks to a row): the
     * weights staged once serve many outputs */
    for (int idx = blockIdx.x * blockDim.x + threadIdx.x; idx < a.per_row;
         idx += gridDim.x * blockDim.x) {
        /* idx = (((o0 * out1 + o1) * stride2 + ph) * groups + grp) * LANES + lane */
        const int lane = idx & (LANES - 1);
        const int r = idx / LANES;
        const int r1 = (int)convt_fastdiv_div(a.by_groups, (uint32_t)r);
        const int grp = r - r1 * (int)a.by_groups.d;
        const int r2 = (int)convt_fastdiv_div(a.by_stride2, (uint32_t)r1);
        const int ph = r1 - r2 * d2.stride;
        const int o0 = (int)convt_fastdiv_div(a.by_out1, (uint32_t)r2);
        const int o1 = r2 - o0 * d1.out;
        const dg_line line = dg_line_of(d0, d1, d2, o0, o1, ph);
        float *yrow = yplane + ((int64_t)o0 * d1.out + o1) * d2.out;
        for (int qh = grp; qh < a.qh_count; qh += (int)a.by_groups.d) {
            const int q0 = qh * OUTS * LANES + lane; /* output j's q is q0 + j * LANES */
            if (ph + d2.stride * q0 >= d2.out)
                break; /* and so is every later chunk's */
            float acc[OUTS];
#pragma unroll
            for (int j = 0; j < OUTS; j++)
                acc[j] = bias;
            if (line.reached)
                dg_chunk<OUTS, LANES>(acc, line, d0, d1, d2, xg, ws, cin_g, in_plane, taps, q0);
#pragma unroll
            for (int j = 0; j < OUTS; j++) {
                const int o2 = ph + d2.stride * (q0 + j * LANES);
                if (o2 < d2.out)
                    yrow[o2] = acc[j];
            }
        }
    }
}

/* The threads of one (n, co) row: out0 * out1 * stride2 * groups * lanes,
 * a line's qh_count = ceil(ceil(out2 / stride2) / (outs * lanes)) chunks
 * walked `walk` at a time by groups = ceil(qh_count / walk) threads. */
static int64_t dg_threads_per_row(const convt_shape3 &s, int outs, int lanes, int walk,
                                  int64_t *qh_count, int64_t *groups)
{
    const int64_t q2 = (s.out[2] + s.stride[2] - 1) / s.stride[2];
    *qh_count = (q2 + (int64_t)outs * lanes - 1) / ((int64_t)outs * lanes);
    *groups = (*qh_count + walk - 1) / walk;
    return s.out[0] * s.out[1] * s.stride[2] * *groups * lanes;
}

static dg_args make_args(const convt_problem *p, int outs, int lanes, int walk)
{
    dg_args a;
    const convt_shape3 s = convt_problem_as_3d(p);
    dg_set_common(a, p, s);
    int64_t qh_count, groups;
    a.per_row = (int)dg_threads_per_row(s, outs, lanes, walk, &qh_count, &groups); /* dg_supports bounds it */
    a.qh_count = (int)qh_count;
    a.by_groups = convt_fastdiv_make((uint32_t)groups);
    a.by_stride2 = convt_fastdiv_make((uint32_t)s.stride[2]);
    a.by_out1 = convt_fastdiv_make((uint32_t)s.out[1]);
    return a;
}

extern "C" const convt_variant convt_variant_direct_grouped;

/* The launch, decoded by name. */
struct dg_knobs {
    int64_t block, outs, lanes, walk;
};

static dg_knobs dg_knobs_of(const convt_launch *l)
{
    const convt_variant *v = &convt_variant_direct_grouped;
    return {convt_launch_get(v, l, "block"), convt_launch_get(v, l, "outs"),
            convt_launch_get(v, l, "lanes"), convt_launch_get(v, l, "walk")};
}

static bool dg_supports(const convt_problem *p, const convt_launch *l, const convt_context *ctx,
                        char *why, size_t why_len)
{
    const dg_knobs k = dg_knobs_of(l);
    int64_t block = k.block, outs = k.outs, lanes = k.lanes, walk = k.walk;
    if (!convt_check_block(block, "block", ctx, why, why_len))
        return false;
    if (outs != 2 && outs != 4 && outs != 8) {
        snprintf(why, why_len, "outs = %lld must be 2, 4 or 8 (compiled widths)", (long long)outs);
        return false;
    }
    if (lanes != 1 && lanes != 32) {
        snprintf(why, why_len, "lanes = %lld must be 1 or 32 (compiled layouts)", (long long)lanes);
        return false;
    }
    if (walk < 1 || walk > 64) {
        snprintf(why, why_len, "walk = %lld must be 1 to 64", (long long)walk);
        return false;
    }
    int64_t cin_g = p->cin / p->groups;
    if (cin_g > DG_MAX_CIN_G) {
        snprintf(why, why_len, "%lld input channels per group; direct_grouped is for at most %d "
                 "(more is a GEMM's work: polyphase_igemm)", (long long)cin_g, DG_MAX_CIN_G);
        return false;
    }
    if (!convt_check_row_blocks(p, "direct_grouped", why, why_len))
        return false;
    /* The kernel indexes in 32 bits: a dimension's positions and pads; a
     * row's threads and the grid-stride loop's next index (a row's grid is
     * at most ceil(per_row / block) blocks, so below 2 * (per_row + block));
     * along the innermost dimension the positions ph + stride * q of every
     * output a thread computes, the padding ones past the row's end
     * included (q below qh_count * outs * lanes), and the inputs q + c they
     * read (|c| below the widest extent). Shapes past these (strides or
     * extents near 2^30) are refused rather than wrapped: a review found
     * stores 8 GiB before y, and reads past x on the unchecked path. */
    const convt_shape3 s = convt_problem_as_3d(p);
    int64_t qh_count, groups;
    const int64_t per_row = dg_threads_per_row(s, (int)outs, (int)lanes, (int)walk, &qh_count, &groups);
    const int64_t widest = dg_widest_extent(s);
    if (widest > INT32_MAX || 2 * (per_row + block) > INT32_MAX ||
        s.stride[2] * qh_count * outs * lanes + widest > INT32_MAX) {
        snprintf(why, why_len, "needs %lld threads per (n, co) row and positions up to %lld "
                 "along the innermost dimension (a dimension of %lld), beyond the kernel's "
                 "32-bit indices", (long long)per_row,
                 (long long)(s.stride[2] * qh_count * outs * lanes), (long long)widest);
        return false;
    }
    return true;
}

typedef void (*dg_kernel_fn)(dg_args, const float *, const float *, const float *, float *);

template <int OUTS>
static dg_kernel_fn dg_kernel_for(int lanes, bool one_cin)
{
    if (lanes == 32)
        return one_cin ? direct_grouped_kernel<OUTS, 32, true> : direct_grouped_kernel<OUTS, 32, false>;
    return one_cin ? direct_grouped_kernel<OUTS, 1, true> : direct_grouped_kernel<OUTS, 1, false>;
}

/* Everything a launch needs, made once in prepare: the arguments (three
 * fast divisions), the grid and the kernel; the timed launch only
 * launches. */
/* Everything a launch needs, made once in prepare. */
typedef dg_prepared_state<dg_args, dg_kernel_fn> dg_state;

static int dg_prepare(const convt_problem *p, const convt_launch *l, const convt_tensors *t,
                      const convt_context *ctx, void **state, size_t *workspace, convt_err *e)
{
    (void)t, (void)workspace;
    const dg_knobs k = dg_knobs_of(l);
    const int block = (int)k.block, outs = (int)k.outs, lanes = (int)k.lanes, walk = (int)k.walk;
    dg_state *st = (dg_state *)calloc(1, sizeof *st);
    if (!st)
        return convt_fail(e, "out of host memory");
    st->args = make_args(p, outs, lanes, walk);
    st->smem = sizeof(float) * (size_t)st->args.cin_g * (size_t)convt_taps(p);
    const int64_t rows = p->n * p->cout;
    int64_t per_row_blocks = (st->args.per_row + block - 1) / block;
    const int64_t cap = ((int64_t)ctx->dev->sm_count * DG_THREADS_PER_SM / block * DG_ROUNDS + rows - 1) / rows;
    if (per_row_blocks > cap)
        per_row_blocks = cap;
    st->grid = dim3((unsigned)per_row_blocks, (unsigned)rows);
    st->block = block;
    const bool one_cin = st->args.cin_g == 1;
    st->kernel = outs == 8   ? dg_kernel_for<8>(lanes, one_cin)
                 : outs == 4 ? dg_kernel_for<4>(lanes, one_cin)
                             : dg_kernel_for<2>(lanes, one_cin);
    *state = st;
    return 0;
}

extern "C" const convt_variant convt_variant_direct_grouped = {
    .name = "direct_grouped",
    .summary = "few channels per group: weights in shared memory, OUTS outputs of one stride "
               "phase per chunk, `lanes` consecutive threads on consecutive outputs, a thread "
               "walking `walk` chunks of its line, only reaching taps visited",
    .backend = CONVT_BACKEND_CUDA,
    .tier = CONVT_TIER_FP32,
    .deterministic = true,
    .n_knobs = 4,
    .knobs = {{.name = "block",
               .help = "threads per block (the default 128: 256 won only where another "
                       "variant is 4x faster, results/notes.md \"Session 16\")",
               .n_defaults = 1,
               .defaults = {128}},
              {.name = "outs",
               .help = "outputs of one stride phase per thread along the innermost dimension "
                       "(2, 4, 8)",
               .n_defaults = 3,
               .defaults = {2, 4, 8}},
              {.name = "lanes",
               .help = "consecutive threads on consecutive outputs of a phase, a thread's "
                       "outputs that far apart (1 or 32): 32 makes a warp's loads and "
                       "stride-1 stores whole lines; 1 gives each thread consecutive outputs, "
                       "for innermost dimensions much shorter than a warp",
               .n_defaults = 2,
               .defaults = {32, 1}},
              {.name = "walk",
               .help = "chunks of outs x lanes outputs a thread computes along its line "
                       "(1 to 64), the line's tap set-up done once for all of them",
               .n_defaults = 3,
               .defaults = {1, 4, 16}}},
    .supports = dg_supports,
    .workspace_size = NULL,
    .prepare = dg_prepare,
    .launch = dg_launch_prepared<dg_state>,
    .release = dg_free_state,
    .describe = NULL,
};
