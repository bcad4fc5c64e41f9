/* gather: one thread per output element, the gather form of DESIGN.md.
 *
 * Each thread decomposes its flat output index, then sums over the input
 * channels of its group and the taps that reach it; a tap reaches output
 * position o when t = o + pad - k*dil is >= 0 and divisible by the stride
 * (convt_gather_src). 64-bit indices throughout: no shape wraps. float32
 * accumulation in a fixed order, so the result is deterministic.
 * Knob `outs`: each thread computes that many consecutive outputs along the
 * innermost dimension, sharing the index arithmetic of the outer dimensions
 * and the weight loads of each tap among them. Knob `wcache`: 1 lays the
 * grid out so that every block serves one (n, co) output row and stages that
 * channel's weights w[ci of the group][col][taps] in shared memory once,
 * instead of each thread reading them through the cache hierarchy.
 * This is the plain baseline every faster variant is measured against.
 *
 *   convt-bench --config configs/kernelbench-l1.json   (variants: ["gather"]) */
#include "build_config.h"
#include "cuda_check.h"
#include "hostdevice.h"
#include "stride_phase.h"
#include "variant.h"

struct gather_args {
    int64_t cin, cout, cin_g, cout_g, count;
    convt_shape3 s;
};

/* The work both layouts share: OUTS consecutive outputs (n, co, o0, o1,
 * o2_0 + j) summed over the taps that reach them and the input channels of
 * the group, then written. Input channel cl of the group is xg + cl*in_plane;
 * its weight for tap k is wr[cl * w_cl_stride + k] (global memory or the
 * shared-memory copy). */
template <int OUTS>
__device__ __forceinline__ void gather_outputs(const gather_args &a, const float *xg,
                                               const float *wr, int64_t w_cl_stride, float bias,
                                               int64_t n, int64_t co, int64_t o0, int64_t o1,
                                               int64_t o2_0, float *__restrict__ y)
{
    const convt_shape3 &s = a.s;
    const int64_t in_plane = s.in[0] * s.in[1] * s.in[2];
    float acc[OUTS];
#pragma unroll
    for (int j = 0; j < OUTS; j++)
        acc[j] = bias;
    for (int64_t k0 = 0; k0 < s.k[0]; k0++) {
        int64_t i0 = convt_gather_src(o0, k0, s.stride[0], s.pad[0], s.dil[0], s.in[0]);
        if (i0 < 0)
            continue;
        for (int64_t k1 = 0; k1 < s.k[1]; k1++) {
            int64_t i1 = convt_gather_src(o1, k1, s.stride[1], s.pad[1], s.dil[1], s.in[1]);
            if (i1 < 0)
                continue;
            for (int64_t k2 = 0; k2 < s.k[2]; k2++) {
                int64_t i2[OUTS];
                bool any = false;
#pragma unroll
                for (int j = 0; j < OUTS; j++) {
                    i2[j] = o2_0 + j < s.out[2]
                                ? convt_gather_src(o2_0 + j, k2, s.stride[2], s.pad[2], s.dil[2],
                                                   s.in[2])
                                : -1;
                    any |= i2[j] >= 0;
                }
                if (!any)
                    continue;
                int64_t xrow = (i0 * s.in[1] + i1) * s.in[2];
                int64_t k = (k0 * s.k[1] + k1) * s.k[2] + k2;
                for (int64_t cl = 0; cl < a.cin_g; cl++) {
                    float wv = wr[cl * w_cl_stride + k];
                    const float *xc = xg + cl * in_plane + xrow;
#pragma unroll
                    for (int j = 0; j < OUTS; j++)
                        if (i2[j] >= 0)
                            acc[j] += xc[i2[j]] * wv;
                }
            }
        }
    }
    float *yrow = y + ((n * a.cout + co) * s.out[0] + o0) * s.out[1] * s.out[2] + o1 * s.out[2];
#pragma unroll
    for (int j = 0; j < OUTS; j++)
        if (o2_0 + j < s.out[2])
            yrow[o2_0 + j] = acc[j];
}

template <int OUTS>
__global__ void gather_kernel(gather_args a, const float *__restrict__ x,
                              const float *__restrict__ w, const float *__restrict__ b,
                              float *__restrict__ y)
{
    int64_t idx = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (idx >= a.count) /* a.count: threads, ceil(out2 / OUTS) per output row */
        return;
    const convt_shape3 &s = a.s;
    int64_t blocks2 = (s.out[2] + OUTS - 1) / OUTS;
    int64_t ob = idx % blocks2, r = idx / blocks2;
    int64_t o1 = r % s.out[1];
    r /= s.out[1];
    int64_t o0 = r % s.out[0];
    r /= s.out[0];
    int64_t co = r % a.cout, n = r / a.cout;
    int64_t g = co / a.cout_g, col = co - g * a.cout_g;
    const int64_t taps = s.k[0] * s.k[1] * s.k[2];
    const float *xg = x + (n * a.cin + g * a.cin_g) * (s.in[0] * s.in[1] * s.in[2]);
    /* w[ci][col][tap], ci = g*cin_g + cl */
    const float *wr = w + (g * a.cin_g * a.cout_g + col) * taps;
    gather_outputs<OUTS>(a, xg, wr, a.cout_g * taps, b ? b[co] : 0.0f, n, co, o0, o1,
                         ob * OUTS, y);
}

/* wcache = 1: blockIdx.y is the (n, co) row, blockIdx.x walks its spatial
 * positions; the row's weights sit in shared memory as ws[ci_local][tap]. */
template <int OUTS>
__global__ void gather_wcache_kernel(gather_args a, const float *__restrict__ x,
                                     const float *__restrict__ w, const float *__restrict__ b,
                                     float *__restrict__ y)
{
    extern __shared__ float ws[];
    const convt_shape3 &s = a.s;
    const int64_t taps = s.k[0] * s.k[1] * s.k[2];
    int64_t row = blockIdx.y;
    int64_t co = row % a.cout, n = row / a.cout;
    int64_t g = co / a.cout_g, col = co - g * a.cout_g;
    for (int64_t e = threadIdx.x; e < a.cin_g * taps; e += blockDim.x) {
        int64_t cl = e / taps, k = e % taps;
        ws[e] = w[((g * a.cin_g + cl) * a.cout_g + col) * taps + k];
    }
    __syncthreads();
    int64_t blocks2 = (s.out[2] + OUTS - 1) / OUTS;
    int64_t idx = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; /* within the row */
    if (idx >= s.out[0] * s.out[1] * blocks2)
        return;
    int64_t ob = idx % blocks2, r = idx / blocks2;
    int64_t o1 = r % s.out[1], o0 = r / s.out[1];
    const float *xg = x + (n * a.cin + g * a.cin_g) * (s.in[0] * s.in[1] * s.in[2]);
    gather_outputs<OUTS>(a, xg, ws, taps, b ? b[co] : 0.0f, n, co, o0, o1, ob * OUTS, y);
}

template <int OUTS>
static int launch_outs(const gather_args &a, int64_t wcache, int block, size_t smem,
                       const convt_tensors *t, cudaStream_t st, convt_err *e)
{
    if (wcache) {
        int64_t per_row = a.s.out[0] * a.s.out[1] * ((a.s.out[2] + OUTS - 1) / OUTS);
        dim3 grid((unsigned)((per_row + block - 1) / block), (unsigned)(a.count / per_row));
        gather_wcache_kernel<OUTS><<<grid, block, smem, st>>>(a, t->x, t->w, t->b, t->y);
    } else {
        unsigned grid = (unsigned)((a.count + block - 1) / block);
        gather_kernel<OUTS><<<grid, block, 0, st>>>(a, t->x, t->w, t->b, t->y);
    }
    CUDA_TRY_LAUNCH(e);
    return 0;
}

extern "C" const convt_variant convt_variant_gather;

/* The launch, decoded by name. */
struct gather_knobs {
    int64_t block, outs, wcache;
};

static gather_knobs gather_knobs_of(const convt_launch *l)
{
    const convt_variant *v = &convt_variant_gather;
    return {convt_launch_get(v, l, "block"), convt_launch_get(v, l, "outs"),
            convt_launch_get(v, l, "wcache")};
}

static bool gather_supports(const convt_problem *p, const convt_launch *l,
                            const convt_context *ctx, char *why, size_t why_len)
{
    (void)p;
    const gather_knobs k = gather_knobs_of(l);
    int64_t block = k.block;
    if (!convt_check_block(block, "block", ctx, why, why_len))
        return false;
    int64_t outs = k.outs;
    if (outs != 1 && outs != 2 && outs != 4) {
        snprintf(why, why_len, "outs = %lld must be 1, 2 or 4 (compiled widths)", (long long)outs);
        return false;
    }
    int64_t threads = convt_y_elems(p) / convt_out_size(p, p->dims - 1) *
                      ((convt_out_size(p, p->dims - 1) + outs - 1) / outs);
    int64_t blocks = (threads + block - 1) / block;
    if (k.wcache != 0 && k.wcache != 1) {
        snprintf(why, why_len, "wcache = %lld must be 0 or 1", (long long)k.wcache);
        return false;
    }
    if (k.wcache && !convt_check_row_blocks(p, "wcache", why, why_len))
        return false;
    if (blocks > 0x7fffffff) {
        snprintf(why, why_len, "needs %lld blocks, above the grid limit 2^31-1",
                 (long long)blocks);
        return false;
    }
    return true;
}

#if CONVT_PLANTED_DELAY_US > 0
/* A planted slowdown (meson -Dplanted_delay_us=N, testing only): one thread
 * spins N microseconds before the gather kernel, so that compare can be
 * shown to catch a real regression on the GPU (tools/check-slowdown.sh). */
__global__ void planted_delay_kernel()
{
    unsigned long long t0, t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    do
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    while (t - t0 < 1000ull * CONVT_PLANTED_DELAY_US);
}
#endif

static int gather_launch(const convt_problem *p, const convt_launch *l, const convt_tensors *t,
                         void *workspace, void *state, const convt_context *ctx, convt_err *e)
{
    (void)workspace, (void)state;
#if CONVT_PLANTED_DELAY_US > 0
    planted_delay_kernel<<<1, 1, 0, (cudaStream_t)ctx->stream>>>();
    CUDA_TRY_LAUNCH(e);
#endif
    gather_args a;
    a.cin = p->cin;
    a.cout = p->cout;
    a.cin_g = p->cin / p->groups;
    a.cout_g = p->cout / p->groups;
    a.s = convt_problem_as_3d(p);
    const gather_knobs k = gather_knobs_of(l);
    int outs = (int)k.outs;
    a.count = convt_y_elems(p) / a.s.out[2] * ((a.s.out[2] + outs - 1) / outs);
    int block = (int)k.block;
    cudaStream_t st = (cudaStream_t)ctx->stream;
    size_t smem = sizeof(float) * (size_t)a.cin_g * (size_t)convt_taps(p);
    if (outs == 4)
        return launch_outs<4>(a, k.wcache, block, smem, t, st, e);
    if (outs == 2)
        return launch_outs<2>(a, k.wcache, block, smem, t, st, e);
    return launch_outs<1>(a, k.wcache, block, smem, t, st, e);
}

extern "C" const convt_variant convt_variant_gather = {
    .name = "gather",
    .summary = "one thread per output element; taps filtered by the divisibility test",
    .backend = CONVT_BACKEND_CUDA,
    .tier = CONVT_TIER_FP32,
    .deterministic = true,
    .n_knobs = 3,
    /* block 128 was fastest on 14 of the 17 KernelBench problems on the H100
     * (results/history/h100-2026-11-22-kernelbench-l1-gather-tiled.json); 256, 512
     * stay reachable through a sweep file's "launch". */
    .knobs = {{.name = "block",
               .help = "threads per block",
               .n_defaults = 1,
               .defaults = {128}},
              {.name = "outs",
               .help = "consecutive outputs per thread along the innermost dimension (1, 2, 4)",
               .n_defaults = 3,
               .defaults = {1, 2, 4}},
              {.name = "wcache",
               .help = "1: one (n, co) row per block, its weights staged in shared memory",
               .n_defaults = 2,
               .defaults = {0, 1}}},
    .supports = gather_supports,
    .workspace_size = NULL,
    .prepare = NULL,
    .launch = gather_launch,
    .release = NULL,
    .describe = NULL,
};
