/* direct_grouped: transposed convolution for few input channels per group
 * (depthwise and the like, up to 16 per group), where a GEMM has too little
 * K to use tensor cores and gather wastes its time on taps that do not reach.
 *
 * Each block serves one (n, co) output row and stages that channel's weights
 * w[ci of the group][col][taps] in shared memory once. Each thread computes
 * OUTS outputs of one stride phase along the innermost dimension: positions
 * o2 = ph + stride * (q0 + j), j < OUTS. All of them are reached by the same
 * taps (o2 + pad - k*dil divisible by the stride depends on ph alone), and
 * tap k reads the consecutive inputs q0 + j + c(k): the tap walk is done
 * once for OUTS outputs, with no divisibility test per output and no tap
 * visited that does not reach (taps of one phase are stride / gcd(stride,
 * dil) apart). The outer dimensions enumerate their reaching taps the same
 * way. float32 accumulation in a fixed order: deterministic.
 *
 *   convt-bench --config configs/realistic.json   (depthwise and grouped shapes) */
#include "build_config.h"
#include "cuda_check.h"
#include "hostdevice.h"
#include "stride_phase.h"
#include "variant.h"

enum { DG_MAX_CIN_G = 16 };

struct dg_args {
    int64_t cin, cout, cin_g, cout_g;
    convt_shape3 s;
    int64_t step[3];   /* stride / gcd(stride, dil): distance between taps of one phase */
    int64_t qblocks;   /* ceil(ceil(out2 / stride2) / OUTS): thread columns per phase */
    int64_t per_row;   /* out0 * out1 * stride2 * qblocks: threads per (n, co) row */
};

template <int OUTS>
__global__ void direct_grouped_kernel(dg_args a, const float *__restrict__ x,
                                      const float *__restrict__ w, const float *__restrict__ b,
                                      float *__restrict__ y)
{
    extern __shared__ float ws[]; /* ws[cl][tap] */
    const convt_shape3 &s = a.s;
    const int64_t taps = s.k[0] * s.k[1] * s.k[2];
    const int64_t row = blockIdx.y;
    const int64_t co = row % a.cout, n = row / a.cout;
    const int64_t g = co / a.cout_g, col = co - g * a.cout_g;
    for (int64_t e = threadIdx.x; e < a.cin_g * taps; e += blockDim.x) {
        int64_t cl = e / taps, k = e % taps;
        ws[e] = w[((g * a.cin_g + cl) * a.cout_g + col) * taps + k];
    }
    __syncthreads();
    int64_t idx = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (idx >= a.per_row)
        return;
    const int64_t qb = idx % a.qblocks;
    int64_t r = idx / a.qblocks;
    const int64_t ph = r % s.stride[2];
    r /= s.stride[2];
    const int64_t o1 = r % s.out[1], o0 = r / s.out[1];
    const int64_t q0 = qb * OUTS;
    if (ph + s.stride[2] * q0 >= s.out[2])
        return;
    const int64_t in_plane = s.in[0] * s.in[1] * s.in[2];
    const float *xg = x + (n * a.cin + g * a.cin_g) * in_plane;
    float acc[OUTS];
    const float bias = b ? b[co] : 0.0f;
#pragma unroll
    for (int j = 0; j < OUTS; j++)
        acc[j] = bias;
    const int64_t k0_first = convt_first_reaching_tap(o0, s.stride[0], s.pad[0], s.dil[0], s.k[0], a.step[0]);
    const int64_t k1_first = convt_first_reaching_tap(o1, s.stride[1], s.pad[1], s.dil[1], s.k[1], a.step[1]);
    const int64_t k2_first = convt_first_reaching_tap(ph, s.stride[2], s.pad[2], s.dil[2], s.k[2], a.step[2]);
    for (int64_t k0 = k0_first; k0 < s.k[0]; k0 += a.step[0]) {
        const int64_t t0 = o0 + s.pad[0] - k0 * s.dil[0];
        const int64_t i0 = t0 / s.stride[0]; /* exact: the tap reaches */
        if (t0 < 0 || i0 >= s.in[0])
            continue;
        for (int64_t k1 = k1_first; k1 < s.k[1]; k1 += a.step[1]) {
            const int64_t t1 = o1 + s.pad[1] - k1 * s.dil[1];
            const int64_t i1 = t1 / s.stride[1];
            if (t1 < 0 || i1 >= s.in[1])
                continue;
            const float *xrow = xg + (i0 * s.in[1] + i1) * s.in[2];
            for (int64_t k2 = k2_first; k2 < s.k[2]; k2 += a.step[2]) {
                /* input of output q is q + c: exact division, c may be negative */
                const int64_t c = (ph + s.pad[2] - k2 * s.dil[2]) / s.stride[2];
                const int64_t k = (k0 * s.k[1] + k1) * s.k[2] + k2;
                for (int64_t cl = 0; cl < a.cin_g; cl++) {
                    const float wv = ws[cl * taps + k];
                    const float *xc = xrow + cl * in_plane;
#pragma unroll
                    for (int j = 0; j < OUTS; j++) {
                        const int64_t i2 = q0 + j + c;
                        if (i2 >= 0 && i2 < s.in[2])
                            acc[j] += xc[i2] * wv;
                    }
                }
            }
        }
    }
    float *yrow = y + ((n * a.cout + co) * s.out[0] + o0) * s.out[1] * s.out[2] + o1 * s.out[2];
#pragma unroll
    for (int j = 0; j < OUTS; j++) {
        const int64_t o2 = ph + s.stride[2] * (q0 + j);
        if (o2 < s.out[2])
            yrow[o2] = acc[j];
    }
}

static dg_args make_args(const convt_problem *p, int outs)
{
    dg_args a;
    a.cin = p->cin;
    a.cout = p->cout;
    a.cin_g = p->cin / p->groups;
    a.cout_g = p->cout / p->groups;
    a.s = convt_problem_as_3d(p);
    for (int d = 0; d < 3; d++)
        a.step[d] = convt_phase_step(a.s.stride[d], a.s.dil[d]);
    int64_t q2 = (a.s.out[2] + a.s.stride[2] - 1) / a.s.stride[2];
    a.qblocks = (q2 + outs - 1) / outs;
    a.per_row = a.s.out[0] * a.s.out[1] * a.s.stride[2] * a.qblocks;
    return a;
}

extern "C" const convt_variant convt_variant_direct_grouped;

/* The launch, decoded by name. */
struct dg_knobs {
    int64_t block, outs;
};

static dg_knobs dg_knobs_of(const convt_launch *l)
{
    const convt_variant *v = &convt_variant_direct_grouped;
    return {convt_launch_get(v, l, "block"), convt_launch_get(v, l, "outs")};
}

static bool dg_supports(const convt_problem *p, const convt_launch *l, const convt_context *ctx,
                        char *why, size_t why_len)
{
    const dg_knobs k = dg_knobs_of(l);
    int64_t block = k.block, outs = k.outs;
    if (!convt_check_block(block, "block", ctx, why, why_len))
        return false;
    if (outs != 2 && outs != 4 && outs != 8) {
        snprintf(why, why_len, "outs = %lld must be 2, 4 or 8 (compiled widths)", (long long)outs);
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
    dg_args a = make_args(p, (int)outs);
    if ((a.per_row + block - 1) / block > 0x7fffffff) {
        snprintf(why, why_len, "needs %lld blocks per row, above the grid limit 2^31-1",
                 (long long)((a.per_row + block - 1) / block));
        return false;
    }
    return true;
}

static int dg_launch(const convt_problem *p, const convt_launch *l, const convt_tensors *t,
                     void *workspace, void *state, const convt_context *ctx, convt_err *e)
{
    (void)workspace, (void)state;
    const dg_knobs k = dg_knobs_of(l);
    int block = (int)k.block, outs = (int)k.outs;
    dg_args a = make_args(p, outs);
    size_t smem = sizeof(float) * (size_t)a.cin_g * (size_t)convt_taps(p);
    dim3 grid((unsigned)((a.per_row + block - 1) / block), (unsigned)(p->n * p->cout));
    cudaStream_t st = (cudaStream_t)ctx->stream;
    if (outs == 8)
        direct_grouped_kernel<8><<<grid, block, smem, st>>>(a, t->x, t->w, t->b, t->y);
    else if (outs == 4)
        direct_grouped_kernel<4><<<grid, block, smem, st>>>(a, t->x, t->w, t->b, t->y);
    else
        direct_grouped_kernel<2><<<grid, block, smem, st>>>(a, t->x, t->w, t->b, t->y);
    CUDA_TRY_LAUNCH(e);
    return 0;
}

extern "C" const convt_variant convt_variant_direct_grouped = {
    .name = "direct_grouped",
    .summary = "few channels per group: weights in shared memory, OUTS outputs of one stride "
               "phase per thread, only reaching taps visited",
    .backend = CONVT_BACKEND_CUDA,
    .tier = CONVT_TIER_FP32,
    .deterministic = true,
    .n_knobs = 2,
    .knobs = {{.name = "block",
               .help = "threads per block",
               .n_defaults = 2,
               .defaults = {128, 256}},
              {.name = "outs",
               .help = "outputs of one stride phase per thread along the innermost dimension "
                       "(2, 4, 8)",
               .n_defaults = 3,
               .defaults = {2, 4, 8}}},
    .supports = dg_supports,
    .workspace_size = NULL,
    .prepare = NULL,
    .launch = dg_launch,
    .release = NULL,
    .describe = NULL,
};
