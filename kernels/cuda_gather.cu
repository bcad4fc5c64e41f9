/* gather: one thread per output element, the gather form of DESIGN.md.
 *
 * Each thread decomposes its flat output index, then sums over the input
 * channels of its group and the taps that reach it; a tap reaches output
 * position o when t = o + pad - k*dil is >= 0 and divisible by the stride
 * (convt_gather_src). 64-bit indices throughout: no shape wraps. float32
 * accumulation in a fixed order, so the result is deterministic.
 * This is the plain baseline every faster variant is measured against.
 *
 *   convt-bench --config configs/kernelbench-l1.json   (variants: ["gather"]) */
#include "cuda_check.h"
#include "hostdevice.h"
#include "variant.h"

struct gather_args {
    int64_t cin, cout, cin_g, cout_g, count;
    convt_shape3 s;
};

__global__ void gather_kernel(gather_args a, const float *__restrict__ x,
                              const float *__restrict__ w, const float *__restrict__ b,
                              float *__restrict__ y)
{
    int64_t idx = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (idx >= a.count)
        return;
    const convt_shape3 &s = a.s;
    int64_t o2 = idx % s.out[2], r = idx / s.out[2];
    int64_t o1 = r % s.out[1];
    r /= s.out[1];
    int64_t o0 = r % s.out[0];
    r /= s.out[0];
    int64_t co = r % a.cout, n = r / a.cout;
    int64_t g = co / a.cout_g, col = co - g * a.cout_g;

    float acc = b ? b[co] : 0.0f;
    for (int64_t k0 = 0; k0 < s.k[0]; k0++) {
        int64_t i0 = convt_gather_src(o0, k0, s.stride[0], s.pad[0], s.dil[0], s.in[0]);
        if (i0 < 0)
            continue;
        for (int64_t k1 = 0; k1 < s.k[1]; k1++) {
            int64_t i1 = convt_gather_src(o1, k1, s.stride[1], s.pad[1], s.dil[1], s.in[1]);
            if (i1 < 0)
                continue;
            for (int64_t k2 = 0; k2 < s.k[2]; k2++) {
                int64_t i2 = convt_gather_src(o2, k2, s.stride[2], s.pad[2], s.dil[2], s.in[2]);
                if (i2 < 0)
                    continue;
                int64_t xoff = (i0 * s.in[1] + i1) * s.in[2] + i2;
                int64_t woff = (k0 * s.k[1] + k1) * s.k[2] + k2;
                int64_t in_plane = s.in[0] * s.in[1] * s.in[2];
                int64_t taps = s.k[0] * s.k[1] * s.k[2];
                for (int64_t ci = g * a.cin_g; ci < (g + 1) * a.cin_g; ci++)
                    acc += x[(n * a.cin + ci) * in_plane + xoff] *
                           w[(ci * a.cout_g + col) * taps + woff];
            }
        }
    }
    y[idx] = acc;
}

static bool gather_supports(const convt_problem *p, const convt_launch *l,
                            const convt_context *ctx, char *why, size_t why_len)
{
    (void)p;
    int64_t block = l->value[0];
    if (block < 32 || block > ctx->dev->max_threads_per_block || block % 32) {
        snprintf(why, why_len, "block = %lld must be a multiple of 32 in [32, %d]",
                 (long long)block, ctx->dev->max_threads_per_block);
        return false;
    }
    int64_t blocks = (convt_y_elems(p) + block - 1) / block;
    if (blocks > 0x7fffffff) {
        snprintf(why, why_len, "needs %lld blocks, above the grid limit 2^31-1",
                 (long long)blocks);
        return false;
    }
    return true;
}

static int gather_launch(const convt_problem *p, const convt_launch *l, const convt_tensors *t,
                         void *workspace, void *state, const convt_context *ctx, convt_err *e)
{
    (void)workspace, (void)state;
    gather_args a;
    a.cin = p->cin;
    a.cout = p->cout;
    a.cin_g = p->cin / p->groups;
    a.cout_g = p->cout / p->groups;
    a.count = convt_y_elems(p);
    a.s = convt_problem_as_3d(p);
    int block = (int)l->value[0];
    unsigned grid = (unsigned)((a.count + block - 1) / block);
    gather_kernel<<<grid, block, 0, (cudaStream_t)ctx->stream>>>(a, t->x, t->w, t->b, t->y);
    CUDA_TRY_LAUNCH(e);
    return 0;
}

extern "C" const convt_variant convt_variant_gather = {
    .name = "gather",
    .summary = "one thread per output element; taps filtered by the divisibility test",
    .backend = CONVT_BACKEND_CUDA,
    .tier = CONVT_TIER_FP32,
    .deterministic = true,
    .n_knobs = 1,
    .knobs = {{.name = "block",
               .help = "threads per block",
               .n_defaults = 3,
               .defaults = {128, 256, 512}}},
    .supports = gather_supports,
    .workspace_size = NULL,
    .prepare = NULL,
    .launch = gather_launch,
    .release = NULL,
    .describe = NULL,
};
