/* im2col_gemm, im2col_gemm_tf32: the GEMM formulation of Caffe and PyTorch's
 * slow path.
 *
 * Per group g and image n, one matrix product makes every (output channel,
 * tap) contribution of every input position:
 *     cols[col*taps + k][p] = sum_ci w[ci][col][k] * x[n][ci][p]
 * (M = cout/groups * taps rows, P = prod(L_in) columns, K = cin/groups),
 * computed by cuBLAS, strided-batched over a chunk of images. col2im then
 * gathers: y[n][co][o] = bias + sum over the taps k that reach o of
 * cols[col*taps + k][i(o, k)], walking only the taps of o's stride phase
 * (the first reaching tap, then every convt_phase_step-th); no atomics,
 * bias fused. The columns live in the workspace, declared through the
 * interface: `images` images at a time (0: all of them); a shape whose
 * workspace exceeds workspace_limit_mb is skipped with that reason.
 *
 * `merge` 1 makes the chunk's images one GEMM a group instead of one each:
 * the input is first copied to [ci][image][p] in the workspace, so the
 * GEMM's N is images x P. Per-image GEMMs of a small map (P = 48 for an
 * 8 x 6 map of 2048 channels) are too thin for cuBLAS to fill the GPU
 * (session 60, simplebaseline_deconv1 in TF32: 0.373 ms per image, 0.167
 * merged, where cuDNN takes 0.138 and the merged GEMM is 74% of it).
 * The columns are then [g][m][image][p]; col2im takes the layout as two
 * strides (an image's, a column row's).
 * im2col_gemm uses CUBLAS_COMPUTE_32F (strict float32), im2col_gemm_tf32
 * CUBLAS_COMPUTE_32F_FAST_TF32 (tensor cores).
 *
 * Where every input has one position and col2im would only copy (no
 * padding, no dilation gaps, no output padding: L_out = K, and output o of
 * every dimension is tap o), an image's columns are its output: one GEMM a
 * group, over all the images at once, writes y, with no workspace and no
 * col2im (the bias written first, the GEMM adding to it). That is the first
 * layer of a generative model (a latent of 100 to 512 channels to a 4 x 4
 * map), where the batch is the GEMM's N and the per-image GEMMs above would
 * be matrix-vector products (session 59).
 *
 *   convt-bench --config configs/kernelbench-l1.json   (variants: ["im2col_gemm*"]) */
#include <cublas_v2.h>
#include <stdlib.h>

#include "cuda_check.h"
#include "fastdiv.h"
#include "hostdevice.h"
#include "stride_phase.h"
#include "variant.h"

/* both have the knob list: either decodes a launch */
extern "C" const convt_variant convt_variant_im2col_gemm;

/* The launch, decoded by name. */
struct im2col_knobs {
    int64_t block, images, merge;
};

static im2col_knobs im2col_knobs_of(const convt_launch *l)
{
    const convt_variant *v = &convt_variant_im2col_gemm;
    return {convt_launch_get(v, l, "block"), convt_launch_get(v, l, "images"),
            convt_launch_get(v, l, "merge")};
}

static int64_t images_per_chunk(const convt_problem *p, const convt_launch *l)
{
    int64_t images = im2col_knobs_of(l).images;
    return images <= 0 || images > p->n ? p->n : images;
}

/* The columns of a chunk, in floats; the merged input follows them. */
static size_t columns_floats(const convt_problem *p, const convt_launch *l)
{
    int64_t m = p->cout / p->groups * convt_taps(p);
    return (size_t)images_per_chunk(p, l) * (size_t)p->groups * (size_t)m *
           (size_t)convt_in_spatial(p);
}

static size_t im2col_workspace(const convt_problem *p, const convt_launch *l)
{
    if (convt_problem_is_gemm(p))
        return 0;
    size_t merged = im2col_knobs_of(l).merge
                        ? (size_t)images_per_chunk(p, l) * (size_t)p->cin * (size_t)convt_in_spatial(p)
                        : 0;
    return (columns_floats(p, l) + merged) * sizeof(float);
}

/* col2im's tap walks (convt_tap_walk_first) compute o + pad - k * dil and
 * step * dil in int: true where every dimension keeps them in range. */
static bool tap_walks_fit_int(const convt_problem *p)
{
    for (int d = 0; d < p->dims; d++) {
        const int64_t out = convt_out_size(p, d);
        if (out + p->pad[d] + p->dil[d] * p->k[d] > 0x7fffffff ||
            p->stride[d] * p->dil[d] > 0x7fffffff)
            return false;
    }
    return true;
}

static bool im2col_supports(const convt_problem *p, const convt_launch *l,
                            const convt_context *ctx, char *why, size_t why_len)
{
    const im2col_knobs k = im2col_knobs_of(l);
    if (!convt_check_block(k.block, "block", ctx, why, why_len))
        return false;
    int64_t m = p->cout / p->groups * convt_taps(p), P = convt_in_spatial(p);
    if (m > 0x7fffffff || P > 0x7fffffff || m * P > 0x7fffffffLL * 64 ||
        m * p->groups > 0x7fffffff || p->n > 0x7fffffff) {
        snprintf(why, why_len, "a GEMM dimension does not fit cuBLAS's int sizes");
        return false;
    }
    if (k.merge != 0 && k.merge != 1) {
        snprintf(why, why_len, "merge = %lld must be 0 or 1", (long long)k.merge);
        return false;
    }
    const int64_t chunk = images_per_chunk(p, l);
    if (convt_problem_is_gemm(p)) { /* one GEMM over every image, no columns */
        if (k.merge) {
            snprintf(why, why_len, "inputs of one position: the GEMM already takes every image "
                     "at once (merge = 0 runs it)");
            return false;
        }
        if (k.images > 0 && k.images < p->n) {
            snprintf(why, why_len, "inputs of one position: the GEMM takes every image at once "
                     "and needs no columns for images = %lld to bound (images = 0 runs it)",
                     (long long)k.images);
            return false;
        }
        return true; /* no workspace */
    }
    if (!tap_walks_fit_int(p)) {
        snprintf(why, why_len, "col2im walks the taps in 32 bits: a dimension's output, padding "
                 "and dilated kernel (or stride x dilation) do not fit");
        return false;
    }
    const int64_t out_image = p->cout * convt_out_spatial(p);
    if (chunk * out_image > 0x7fffffff) {
        snprintf(why, why_len, "col2im indexes a batch's outputs in 32 bits: %lld images of %lld "
                 "outputs is more (fewer images a batch: knob images)",
                 (long long)chunk, (long long)out_image);
        return false;
    }
    if (k.merge && chunk == 1) {
        snprintf(why, why_len, "merge = 1 with one image a GEMM is merge = 0 plus a copy");
        return false;
    }
    if (k.merge && chunk * P > 0x7fffffff) {
        snprintf(why, why_len, "merge: %lld images x %lld positions does not fit cuBLAS's int "
                 "sizes", (long long)chunk, (long long)P);
        return false;
    }
    size_t ws = im2col_workspace(p, l);
    if (ws > ctx->workspace_limit) {
        snprintf(why, why_len,
                 "the columns%s need %.1f MiB of workspace for %lld image(s) at a time, above "
                 "the limit of %.0f MiB (workspace_limit_mb)",
                 k.merge ? " and the merged input" : "", ws / 1048576.0, (long long)chunk,
                 ctx->workspace_limit / 1048576.0);
        return false;
    }
    return true;
}

static int im2col_prepare(const convt_problem *p, const convt_launch *l, const convt_tensors *t,
                          const convt_context *ctx, void **state, size_t *workspace, convt_err *e)
{
    (void)p, (void)l, (void)t, (void)state, (void)workspace;
    void *handle; /* cublasCreate allocates: never inside launch */
    return convt_handles_cublas(ctx, &handle, e);
}

/* cols element (image nl of the chunk, output channel co, tap k, input
 * position i) is at nl * image_stride + (co * taps + k) * row_stride + i:
 * per-image GEMMs give [nl][g][m][i] (image_stride groups * M * P,
 * row_stride P), merged ones [g][m][nl][i] (P, images * P). */
struct col2im_args {
    int64_t taps, count, image_stride, row_stride;
    int step[3], di[3]; /* each dimension's tap walk (convt_tap_walk_first) */
    convt_fastdiv out_div[3], cout_div; /* a chunk's output index split (count < 2^31) */
    convt_shape3 s;
};

/* One thread per output element of the chunk. Its index is split by
 * multiply-high divisions and each dimension's taps walked in 32-bit
 * arithmetic, only those of the output's stride phase: per output, 64-bit
 * divisions (about seventy instructions each) had cost more than the
 * columns' reads (session 60: fsrcnn_x3_c56to1, 81 taps of which 9 reach). */
__global__ void col2im_kernel(col2im_args a, const float *__restrict__ cols,
                              const float *__restrict__ b, float *__restrict__ y)
{
    const int64_t idx = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (idx >= a.count)
        return;
    const convt_shape3 &s = a.s;
    int o[3];
    uint32_t r = (uint32_t)idx;
    for (int d = 2; d >= 0; d--) {
        const uint32_t q = convt_fastdiv_div(a.out_div[d], r);
        o[d] = (int)(r - q * a.out_div[d].d);
        r = q;
    }
    const uint32_t nl = convt_fastdiv_div(a.cout_div, r); /* image within the chunk */
    const int co = (int)(r - nl * a.cout_div.d);
    const float *c = cols + nl * a.image_stride + co * a.taps * a.row_stride;
    float acc = b ? b[co] : 0.0f;
    const int in0 = (int)s.in[0], in1 = (int)s.in[1], in2 = (int)s.in[2];
    const int k1n = (int)s.k[1], k2n = (int)s.k[2];
    const convt_tap_walk first1 = convt_tap_walk_first(o[1], (int)s.stride[1], (int)s.pad[1],
                                                       (int)s.dil[1], k1n, a.step[1]);
    const convt_tap_walk first2 = convt_tap_walk_first(o[2], (int)s.stride[2], (int)s.pad[2],
                                                       (int)s.dil[2], k2n, a.step[2]);
    for (convt_tap_walk w0 = convt_tap_walk_first(o[0], (int)s.stride[0], (int)s.pad[0],
                                                  (int)s.dil[0], (int)s.k[0], a.step[0]);
         w0.k < s.k[0] && w0.i >= 0; w0.k += a.step[0], w0.i -= a.di[0]) {
        if (w0.i >= in0)
            continue;
        for (convt_tap_walk w1 = first1; w1.k < k1n && w1.i >= 0; w1.k += a.step[1], w1.i -= a.di[1]) {
            if (w1.i >= in1)
                continue;
            for (convt_tap_walk w2 = first2; w2.k < k2n && w2.i >= 0;
                 w2.k += a.step[2], w2.i -= a.di[2]) {
                if (w2.i >= in2)
                    continue;
                const int64_t k = (w0.k * k1n + w1.k) * k2n + w2.k;
                acc += c[k * a.row_stride + ((int64_t)w0.i * in1 + w1.i) * in2 + w2.i];
            }
        }
    }
    y[idx] = acc; /* y: the chunk's first image */
}

/* xt[ci][nl][i] = x[n0 + nl][ci][i] for the chunk's images: the merged
 * GEMM's operand, whose rows (ci) hold every image's positions. */
__global__ void merge_images_kernel(int64_t count, int64_t cin, int64_t P,
                                    const float *__restrict__ x, float *__restrict__ xt)
{
    const int64_t idx = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (idx >= count * cin * P)
        return;
    const int64_t i = idx % P, row = idx / P; /* row = nl * cin + ci: x's order */
    const int64_t ci = row % cin, nl = row / cin;
    xt[(ci * count + nl) * P + i] = x[idx];
}

/* y[n][co][k] = b[co], for the GEMM to add to. */
__global__ void bias_fill_kernel(int64_t count, int64_t taps, int64_t cout,
                                 const float *__restrict__ b, float *__restrict__ y)
{
    const int64_t idx = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (idx < count)
        y[idx] = b[idx / taps % cout];
}

/* convt_problem_is_gemm (col2im would only copy): per group g, in cuBLAS's column-major terms,
 * y_g (M x n, ld cout * taps) = w_g (M x cin_g, ld M) * x_g (cin_g x n, ld
 * cin), where y[n][g * M + m] is (output channel, tap) m of group g. */
static int one_position_gemm(cublasHandle_t handle, cublasComputeType_t compute,
                             const convt_problem *p, const convt_launch *l, const convt_tensors *t,
                             cudaStream_t st, convt_err *e)
{
    const int64_t cin_g = p->cin / p->groups, taps = convt_taps(p);
    const int64_t M = p->cout / p->groups * taps;
    const float one = 1.0f, zero = 0.0f;
    if (t->b) {
        const int64_t count = p->n * p->cout * taps;
        const int block = (int)im2col_knobs_of(l).block;
        bias_fill_kernel<<<(unsigned)((count + block - 1) / block), block, 0, st>>>(
            count, taps, p->cout, t->b, t->y);
        CUDA_TRY_LAUNCH(e);
    }
    cublasStatus_t s = cublasGemmStridedBatchedEx(
        handle, CUBLAS_OP_N, CUBLAS_OP_N, (int)M, (int)p->n, (int)cin_g, &one, t->w, CUDA_R_32F,
        (int)M, cin_g * M, t->x, CUDA_R_32F, (int)p->cin, cin_g, t->b ? &one : &zero, t->y,
        CUDA_R_32F, (int)(M * p->groups), M, (int)p->groups, compute, CUBLAS_GEMM_DEFAULT);
    if (s != CUBLAS_STATUS_SUCCESS)
        return convt_fail(e, "cublasGemmStridedBatchedEx (inputs of one position): status %d",
                          (int)s);
    return 0;
}

static int im2col_launch_tier(cublasComputeType_t compute, const convt_problem *p,
                              const convt_launch *l, const convt_tensors *t, void *workspace,
                              const convt_context *ctx, convt_err *e)
{
    cudaStream_t st = (cudaStream_t)ctx->stream;
    float *cols = (float *)workspace;
    const int64_t cin_g = p->cin / p->groups, cout_g = p->cout / p->groups;
    const int64_t taps = convt_taps(p), P = convt_in_spatial(p), M = cout_g * taps;
    const int64_t chunk = images_per_chunk(p, l);
    const float one = 1.0f, zero = 0.0f;
    cublasHandle_t handle = (cublasHandle_t)ctx->handles->cublas;
    if (cublasSetStream(handle, st) != CUBLAS_STATUS_SUCCESS)
        return convt_fail(e, "cublasSetStream failed");
    if (convt_problem_is_gemm(p))
        return one_position_gemm(handle, compute, p, l, t, st, e);
    col2im_args a;
    a.taps = taps;
    a.s = convt_problem_as_3d(p);
    for (int d = 0; d < 3; d++) {
        a.step[d] = (int)convt_phase_step(a.s.stride[d], a.s.dil[d]);
        a.di[d] = (int)(a.step[d] * a.s.dil[d] / a.s.stride[d]);
        a.out_div[d] = convt_fastdiv_make((uint32_t)a.s.out[d]);
    }
    a.cout_div = convt_fastdiv_make((uint32_t)p->cout);
    const int64_t out_image = p->cout * convt_out_spatial(p); /* outputs an image */
    const int block = (int)im2col_knobs_of(l).block;
    const bool merge = im2col_knobs_of(l).merge != 0;
    float *xt = cols + columns_floats(p, l); /* merge: the chunk's input, [ci][nl][i] */
    for (int64_t n0 = 0; n0 < p->n; n0 += chunk) {
        int64_t count = chunk < p->n - n0 ? chunk : p->n - n0;
        if (merge) {
            const int64_t total = count * p->cin * P;
            merge_images_kernel<<<(unsigned)((total + block - 1) / block), block, 0, st>>>(
                count, p->cin, P, t->x + n0 * p->cin * P, xt);
            CUDA_TRY_LAUNCH(e);
            /* Column-major, per group: cols_g^T (count P x M) = xt_g (count P x K) * w_g (K x M). */
            const int64_t NP = count * P;
            cublasStatus_t s = cublasGemmStridedBatchedEx(
                handle, CUBLAS_OP_N, CUBLAS_OP_T, (int)NP, (int)M, (int)cin_g, &one, xt,
                CUDA_R_32F, (int)NP, cin_g * NP, t->w, CUDA_R_32F, (int)M, cin_g * M, &zero,
                cols, CUDA_R_32F, (int)NP, M * NP, (int)p->groups, compute, CUBLAS_GEMM_DEFAULT);
            if (s != CUBLAS_STATUS_SUCCESS)
                return convt_fail(e, "cublasGemmStridedBatchedEx (images merged): status %d",
                                  (int)s);
            a.image_stride = P;
            a.row_stride = NP;
        } else {
            for (int64_t g = 0; g < p->groups; g++) {
                /* Column-major view: cols^T (P x M) = x^T (P x K) * w_g (K x M). */
                cublasStatus_t s = cublasGemmStridedBatchedEx(
                    handle, CUBLAS_OP_N, CUBLAS_OP_T, (int)P, (int)M, (int)cin_g, &one,
                    t->x + (n0 * p->cin + g * cin_g) * P, CUDA_R_32F, (int)P, p->cin * P,
                    t->w + g * cin_g * M, CUDA_R_32F, (int)M, 0, &zero, cols + g * M * P,
                    CUDA_R_32F, (int)P, p->groups * M * P, (int)count, compute,
                    CUBLAS_GEMM_DEFAULT);
                if (s != CUBLAS_STATUS_SUCCESS)
                    return convt_fail(e, "cublasGemmStridedBatchedEx (group %lld): status %d",
                                      (long long)g, (int)s);
            }
            a.image_stride = p->groups * M * P;
            a.row_stride = P;
        }
        a.count = count * out_image;
        col2im_kernel<<<(unsigned)((a.count + block - 1) / block), block, 0, st>>>(
            a, cols, t->b, t->y + n0 * out_image);
        CUDA_TRY_LAUNCH(e);
    }
    return 0;
}

static int launch_fp32(const convt_problem *p, const convt_launch *l, const convt_tensors *t,
                       void *workspace, void *state, const convt_context *ctx, convt_err *e)
{
    (void)state;
    return im2col_launch_tier(CUBLAS_COMPUTE_32F, p, l, t, workspace, ctx, e);
}

static int launch_tf32(const convt_problem *p, const convt_launch *l, const convt_tensors *t,
                       void *workspace, void *state, const convt_context *ctx, convt_err *e)
{
    (void)state;
    return im2col_launch_tier(CUBLAS_COMPUTE_32F_FAST_TF32, p, l, t, workspace, ctx, e);
}

#define IM2COL_KNOBS                                                                          \
    .n_knobs = 3,                                                                             \
    .knobs = {{.name = "block", .help = "col2im threads per block", .n_defaults = 1,          \
               .defaults = {256}},                                                            \
              {.name = "images", .help = "images per GEMM batch (0: all; bounds the workspace)", \
               .n_defaults = 2, .defaults = {1, 0}},                                          \
              {.name = "merge",                                                               \
               .help = "1: the images of a batch as one GEMM (input copied to [ci][image][p])", \
               .n_defaults = 2, .defaults = {0, 1}}}

extern "C" const convt_variant convt_variant_im2col_gemm = {
    .name = "im2col_gemm",
    .summary = "cuBLAS GEMM W^T X into columns per group (strict float32), col2im gathers + bias",
    .backend = CONVT_BACKEND_CUDA,
    .tier = CONVT_TIER_FP32,
    .deterministic = true,
    IM2COL_KNOBS,
    .supports = im2col_supports,
    .workspace_size = im2col_workspace,
    .prepare = im2col_prepare,
    .launch = launch_fp32,
    .release = NULL,
    .describe = NULL,
};

extern "C" const convt_variant convt_variant_im2col_gemm_tf32 = {
    .name = "im2col_gemm_tf32",
    .summary = "the same GEMM on TF32 tensor cores (CUBLAS_COMPUTE_32F_FAST_TF32)",
    .backend = CONVT_BACKEND_CUDA,
    .tier = CONVT_TIER_TF32,
    .deterministic = true,
    IM2COL_KNOBS,
    .supports = im2col_supports,
    .workspace_size = im2col_workspace,
    .prepare = im2col_prepare,
    .launch = launch_tf32,
    .release = NULL,
    .describe = NULL,
};
