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
 * `merge` 2 is the same GEMM with the input copied channels last,
 * [image][p][ci], by a tiled transpose: the GEMM's input operand is then
 * K-major (its channels contiguous), the one order TF32 wgmma reads from
 * shared memory. With both operands M/N-major cuBLAS ran SimpleBaseline's
 * GEMM (M 4096, N 1536, K 2048) in 122 us on the H200, with the input
 * K-major in 79 and both K-major in 72 (tools/gemm-layouts.py, session
 * 62); the weights stay as they are, since their transpose would be timed
 * (33 MB for SimpleBaseline). One image is allowed: the copy then only
 * transposes. A GEMM of M = 32 (PWC-Net's class: 32 x 65536 x 565) ran
 * slower K-major (90 against 44 us), and in the probe merge 2 lost on few
 * channels and in fp32, so it is a knob value, not the rule.
 * im2col_gemm uses CUBLAS_COMPUTE_32F (strict float32), im2col_gemm_tf32
 * CUBLAS_COMPUTE_32F_FAST_TF32 (tensor cores).
 *
 * `algo` 0 lets cublasGemmStridedBatchedEx choose the GEMM's algorithm; a
 * >= 1 runs cublasLtMatmul with the a-th of cuBLASLt's heuristic results,
 * planned in prepare (the pick in `detail`; its work area after the
 * workspace's own), as cuDNN's finder tries its engines: it pays on some
 * classes (a latent 1.14x, 7 x 7 maps of 512 channels 1.11x; session 61),
 * not on SimpleBaseline's, whose GEMM cuBLAS already tiles as well as it
 * can. Every GEMM form is described once (gemm_of) and run by run_gemm.
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
#include <cublasLt.h>
#include <cublas_v2.h>
#include <stdlib.h>

#include "col2im_map.h"
#include "col2im_outs.h"
#include "cuda_check.h"
#include "fastdiv.h"
#include "hostdevice.h"
#include "stride_phase.h"
#include "variant.h"

/* both have the knob list: either decodes a launch */
extern "C" const convt_variant convt_variant_im2col_gemm;

/* The most cuBLASLt heuristic results knob algo may index. */
#define IM2COL_LT_ALGOS_MAX 16
/* cuBLASLt's work area (split-K partials): NVIDIA's suggestion for Hopper. */
#define IM2COL_LT_WORKSPACE ((size_t)32 << 20)

/* The launch, decoded by name. */
struct im2col_knobs {
    int64_t block, images, merge, algo, outs;
};

static im2col_knobs im2col_knobs_of(const convt_launch *l)
{
    const convt_variant *v = &convt_variant_im2col_gemm;
    return {convt_launch_get(v, l, "block"), convt_launch_get(v, l, "images"),
            convt_launch_get(v, l, "merge"), convt_launch_get(v, l, "algo"),
            convt_launch_get(v, l, "outs")};
}

static int64_t images_per_chunk(const convt_problem *p, const convt_launch *l)
{
    int64_t images = im2col_knobs_of(l).images;
    return images <= 0 || images > p->n ? p->n : images;
}

/* The GEMM's M: an output channel's taps, for every output channel of a group. */
static int64_t gemm_rows(const convt_problem *p)
{
    return p->cout / p->groups * convt_taps(p);
}

/* The workspace, in floats, in this order: a chunk's columns (none for a
 * layer that is one GEMM) and the merged input (merge = 1 or 2); cuBLASLt's work
 * area follows, 256-byte aligned, sized in prepare (knob algo). */
struct im2col_space {
    size_t cols, merged;
};

static im2col_space im2col_space_of(const convt_problem *p, const convt_launch *l)
{
    const size_t P = (size_t)convt_in_spatial(p), chunk = (size_t)images_per_chunk(p, l);
    im2col_space s = {0, 0};
    if (!convt_problem_is_gemm(p)) {
        s.cols = chunk * (size_t)p->groups * (size_t)gemm_rows(p) * P;
        s.merged = im2col_knobs_of(l).merge ? chunk * (size_t)p->cin * P : 0;
    }
    return s;
}

static size_t im2col_workspace(const convt_problem *p, const convt_launch *l)
{
    const im2col_space s = im2col_space_of(p, l);
    return (s.cols + s.merged) * sizeof(float);
}

/* Where cuBLASLt's work area starts in the workspace. */
static size_t lt_workspace_offset(const convt_problem *p, const convt_launch *l)
{
    return (im2col_workspace(p, l) + 255) / 256 * 256;
}

/* col2im's tap walks (convt_tap_walk_at) compute o + pad - k * dil and
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

/* True where the workspace fits the limit; otherwise why names its parts. */
static bool workspace_fits(const convt_problem *p, const convt_launch *l, const convt_context *ctx,
                           char *why, size_t why_len)
{
    const size_t ws = im2col_workspace(p, l);
    if (ws <= ctx->workspace_limit)
        return true;
    const im2col_space s = im2col_space_of(p, l);
    snprintf(why, why_len,
             "the columns%s need %.1f MiB of workspace for %lld image(s) at a time, above the "
             "limit of %.0f MiB (workspace_limit_mb)",
             s.merged ? " and the merged input" : "", ws / 1048576.0,
             (long long)images_per_chunk(p, l), ctx->workspace_limit / 1048576.0);
    return false;
}

static bool im2col_supports(const convt_problem *p, const convt_launch *l,
                            const convt_context *ctx, char *why, size_t why_len)
{
    const im2col_knobs k = im2col_knobs_of(l);
    if (!convt_check_block(k.block, "block", ctx, why, why_len))
        return false;
    const int64_t m = gemm_rows(p), P = convt_in_spatial(p);
    if (m > 0x7fffffff || P > 0x7fffffff || m * P > 0x7fffffffLL * 64 ||
        m * p->groups > 0x7fffffff || p->n > 0x7fffffff) {
        snprintf(why, why_len, "a GEMM dimension does not fit cuBLAS's int sizes");
        return false;
    }
    if (k.merge < 0 || k.merge > 2) {
        snprintf(why, why_len, "merge = %lld must be 0, 1 or 2", (long long)k.merge);
        return false;
    }
    if (k.outs != 0 && k.outs != 1 && k.outs != 2 && k.outs != 4) {
        snprintf(why, why_len, "outs = %lld must be 0 (chosen by the outputs' count), 1, 2 or 4",
                 (long long)k.outs);
        return false;
    }
    if (k.algo < 0 || k.algo > IM2COL_LT_ALGOS_MAX) {
        snprintf(why, why_len, "algo = %lld must be 0 (cuBLAS's own choice) to %d (a cuBLASLt "
                 "heuristic result)", (long long)k.algo, IM2COL_LT_ALGOS_MAX);
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
        return true; /* no workspace (cuBLASLt's work area: prepare) */
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
    if (k.merge == 1 && chunk == 1) {
        snprintf(why, why_len, "merge = 1 with one image a GEMM is merge = 0 plus a copy");
        return false;
    }
    if (k.merge && chunk * P > 0x7fffffff) {
        snprintf(why, why_len, "merge: the merged GEMM's N, %lld images x %lld positions, does not "
                 "fit cuBLAS's int (fewer images a batch: knob images)", (long long)chunk,
                 (long long)P);
        return false;
    }
    if (k.merge == 1 && chunk * p->cin * P > 0x7fffffff) {
        snprintf(why, why_len, "merge: the input's copy indexes it in 32 bits: %lld images x "
                 "%lld channels x %lld positions is more (fewer images a batch: knob images)",
                 (long long)chunk, (long long)p->cin, (long long)P);
        return false;
    }
    return workspace_fits(p, l, ctx, why, why_len);
}

/* One strided-batched GEMM in cuBLAS's column-major terms, `batch` times:
 * C (m x n, ldc) = op(A) (m x k) op(B) (k x n), plus C where beta is 1. */
struct gemm_dims {
    cublasOperation_t ta, tb;
    int m, n, k, lda, ldb, ldc, batch;
    long long sa, sb, sc;
};

/* The GEMM of a chunk of `count` images; the per-image form is called once
 * a group. Each form's operands are described where it is launched. */
static gemm_dims gemm_of(const convt_problem *p, const convt_launch *l, int64_t count)
{
    const int64_t cin_g = p->cin / p->groups, M = gemm_rows(p);
    const int64_t P = convt_in_spatial(p), NP = count * P;
    /* one position: y_g (M x n, ld cout * taps) = w_g (M x cin_g) x_g (cin_g x n, ld cin) */
    if (convt_problem_is_gemm(p))
        return {CUBLAS_OP_N, CUBLAS_OP_N, (int)M, (int)p->n, (int)cin_g, (int)M, (int)p->cin,
                (int)(M * p->groups), (int)p->groups, cin_g * M, cin_g, M};
    /* merged channels last: cols_g^T (count P x M) = xc_g^T w_g, where xc
     * ([image][p][ci]) is cin x count P with ld cin and group g's rows
     * start at g cin_g: the operand K-major */
    const int64_t merge = im2col_knobs_of(l).merge;
    if (merge == 2)
        return {CUBLAS_OP_T, CUBLAS_OP_T, (int)NP, (int)M, (int)cin_g, (int)p->cin, (int)M,
                (int)NP, (int)p->groups, cin_g, cin_g * M, M * NP};
    /* merged: cols_g^T (count P x M) = xt_g (count P x cin_g) w_g (cin_g x M) */
    if (merge == 1)
        return {CUBLAS_OP_N, CUBLAS_OP_T, (int)NP, (int)M, (int)cin_g, (int)NP, (int)M, (int)NP,
                (int)p->groups, cin_g * NP, cin_g * M, M * NP};
    /* per image, a call a group: cols^T (P x M) = x^T (P x cin_g, ld P) w_g (cin_g x M) */
    return {CUBLAS_OP_N, CUBLAS_OP_T, (int)P, (int)M, (int)cin_g, (int)P, (int)M, (int)P,
            (int)count, p->cin * P, 0, p->groups * M * P};
}

/* cuBLASLt's plan of one GEMM (knob algo >= 1): its descriptors and the
 * algo-th of the heuristic's results, for a chunk of `count` images. */
struct lt_gemm {
    int64_t count;
    cublasLtMatmulDesc_t op;
    cublasLtMatrixLayout_t a, b, c;
    cublasLtMatmulHeuristicResult_t pick;
    int index, offered; /* the pick's place in the heuristic's results (from 1), their count */
};

/* col2im for a chunk of count images: its outputs a thread (knob outs, or
 * where it is 0 the choice by the outputs' count) and its arguments. */
struct col2im_plan {
    int64_t count;
    int outs;
    convt_col2im_args args;
};

/* A chunk of every `images` and, where the batch does not divide, the last
 * one: at most two GEMM shapes, planned with cuBLASLt where algo >= 1
 * (n_plans 0: cuBLAS's own choice), and col2im's plan for each, made once
 * here rather than in every timed launch (none for a layer of one GEMM). */
struct im2col_state {
    cublasLtHandle_t lt;
    int n_plans;
    lt_gemm plan[2];
    int n_chunks;
    col2im_plan col2im[2];
};

static void im2col_release(void *state)
{
    im2col_state *s = (im2col_state *)state;
    if (!s)
        return;
    for (int i = 0; i < s->n_plans; i++) {
        lt_gemm *g = &s->plan[i];
        if (g->c)
            cublasLtMatrixLayoutDestroy(g->c);
        if (g->b)
            cublasLtMatrixLayoutDestroy(g->b);
        if (g->a)
            cublasLtMatrixLayoutDestroy(g->a);
        if (g->op)
            cublasLtMatmulDescDestroy(g->op);
    }
    if (s->lt)
        cublasLtDestroy(s->lt);
    free(s);
}

static int lt_layout(cublasLtMatrixLayout_t *out, int rows, int cols, int ld, int batch,
                     long long stride, convt_err *e)
{
    const int32_t b = batch;
    const int64_t st = stride;
    cublasStatus_t s =
        cublasLtMatrixLayoutCreate(out, CUDA_R_32F, (uint64_t)rows, (uint64_t)cols, ld);
    if (s == CUBLAS_STATUS_SUCCESS)
        s = cublasLtMatrixLayoutSetAttribute(*out, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &b,
                                             sizeof b);
    if (s == CUBLAS_STATUS_SUCCESS)
        s = cublasLtMatrixLayoutSetAttribute(*out, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &st,
                                             sizeof st);
    if (s != CUBLAS_STATUS_SUCCESS)
        return convt_fail(e, "cublasLtMatrixLayout (%d x %d, ld %d, batch %d): %s", rows, cols, ld,
                          batch, cublasGetStatusString(s));
    return 0;
}

/* Describes the GEMM d to cuBLASLt and takes the algo-th result of its
 * heuristic, with at most ws_limit bytes of work area; a skip where it
 * offers fewer. */
static int lt_plan(cublasLtHandle_t lt, cublasComputeType_t compute, const gemm_dims &d,
                   int64_t algo, size_t ws_limit, lt_gemm *g, convt_err *e)
{
    cublasStatus_t s = cublasLtMatmulDescCreate(&g->op, compute, CUDA_R_32F);
    if (s == CUBLAS_STATUS_SUCCESS)
        s = cublasLtMatmulDescSetAttribute(g->op, CUBLASLT_MATMUL_DESC_TRANSA, &d.ta, sizeof d.ta);
    if (s == CUBLAS_STATUS_SUCCESS)
        s = cublasLtMatmulDescSetAttribute(g->op, CUBLASLT_MATMUL_DESC_TRANSB, &d.tb, sizeof d.tb);
    if (s != CUBLAS_STATUS_SUCCESS)
        return convt_fail(e, "cublasLtMatmulDesc: %s", cublasGetStatusString(s));
    const bool ta = d.ta != CUBLAS_OP_N, tb = d.tb != CUBLAS_OP_N;
    if (lt_layout(&g->a, ta ? d.k : d.m, ta ? d.m : d.k, d.lda, d.batch, d.sa, e) ||
        lt_layout(&g->b, tb ? d.n : d.k, tb ? d.k : d.n, d.ldb, d.batch, d.sb, e) ||
        lt_layout(&g->c, d.m, d.n, d.ldc, d.batch, d.sc, e))
        return -1;
    cublasLtMatmulPreference_t pref;
    if ((s = cublasLtMatmulPreferenceCreate(&pref)) != CUBLAS_STATUS_SUCCESS)
        return convt_fail(e, "cublasLtMatmulPreferenceCreate: %s", cublasGetStatusString(s));
    const uint64_t limit = ws_limit;
    s = cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &limit,
                                             sizeof limit);
    const char *step = "cublasLtMatmulPreferenceSetAttribute";
    cublasLtMatmulHeuristicResult_t results[IM2COL_LT_ALGOS_MAX];
    int got = 0;
    if (s == CUBLAS_STATUS_SUCCESS) {
        step = "cublasLtMatmulAlgoGetHeuristic";
        s = cublasLtMatmulAlgoGetHeuristic(lt, g->op, g->a, g->b, g->c, g->c, pref,
                                           IM2COL_LT_ALGOS_MAX, results, &got);
    }
    cublasLtMatmulPreferenceDestroy(pref);
    if (s != CUBLAS_STATUS_SUCCESS && s != CUBLAS_STATUS_NOT_SUPPORTED)
        return convt_fail(e, "%s (%d x %d x %d, batch %d): %s", step, d.m, d.n, d.k, d.batch,
                          cublasGetStatusString(s));
    g->offered = got;
    if (got < algo)
        return convt_skip(e, "cuBLASLt offers %d algorithm(s) for this GEMM (%d x %d x %d, batch "
                          "%d); algo = %lld asks for more", got, d.m, d.n, d.k, d.batch,
                          (long long)algo);
    g->pick = results[algo - 1];
    g->index = (int)algo;
    return 0;
}

/* col2im's plan for a chunk of count images: outs from the knob, or where
 * it is 0 from the outputs' count (src/lib/col2im_outs.h); the columns'
 * layout from knob merge (col2im_map.h). */
static col2im_plan col2im_plan_of(const convt_problem *p, const convt_launch *l, int64_t count,
                                  const convt_context *ctx)
{
    const im2col_knobs k = im2col_knobs_of(l);
    const int64_t outputs = count * p->cout * convt_out_spatial(p), P = convt_in_spatial(p);
    col2im_plan c;
    c.count = count;
    c.outs = k.outs ? (int)k.outs
                    : convt_col2im_outs(outputs, convt_problem_as_3d(p).out[2],
                                        ctx->dev ? ctx->dev->sm_count : 0);
    c.args = k.merge ? convt_col2im_args_of(p, outputs, P, count * P, c.outs)
                     : convt_col2im_args_of(p, outputs, p->groups * gemm_rows(p) * P, P, c.outs);
    return c;
}

/* cublasCreate allocates: never inside launch. The state records col2im's
 * outputs a thread; with algo >= 1 it holds cuBLASLt's plans of the
 * chunk's GEMM and of the last chunk's, and their work area is added to the
 * workspace. */
static int im2col_prepare_tier(cublasComputeType_t compute, const convt_problem *p,
                               const convt_launch *l, const convt_context *ctx, void **state,
                               size_t *workspace, convt_err *e)
{
    void *handle;
    if (convt_handles_cublas(ctx, &handle, e))
        return -1;
    const int64_t algo = im2col_knobs_of(l).algo;
    const bool columns = !convt_problem_is_gemm(p); /* a layer of one GEMM has no col2im */
    if (algo == 0 && !columns)
        return 0;
    im2col_state *s = (im2col_state *)calloc(1, sizeof *s);
    if (!s)
        return convt_fail(e, "out of host memory");
    *state = s;
    const int64_t chunk = images_per_chunk(p, l), last = p->n % chunk;
    const int64_t counts[2] = {chunk, last};
    for (int i = 0; columns && i < 2 && counts[i] > 0; i++)
        s->col2im[s->n_chunks++] = col2im_plan_of(p, l, counts[i], ctx);
    if (algo == 0)
        return 0;
    cublasStatus_t st = cublasLtCreate(&s->lt);
    if (st != CUBLAS_STATUS_SUCCESS)
        return convt_fail(e, "cublasLtCreate: %s", cublasGetStatusString(st));
    const size_t offset = lt_workspace_offset(p, l);
    const size_t room = ctx->workspace_limit > offset ? ctx->workspace_limit - offset : 0;
    const size_t limit = room < IM2COL_LT_WORKSPACE ? room : IM2COL_LT_WORKSPACE;
    size_t need = 0;
    for (int i = 0; i < 2 && counts[i] > 0; i++) {
        lt_gemm *g = &s->plan[s->n_plans++];
        g->count = counts[i];
        if (lt_plan(s->lt, compute, gemm_of(p, l, counts[i]), algo, limit, g, e))
            return -1;
        if (g->pick.workspaceSize > need)
            need = g->pick.workspaceSize;
    }
    if (need)
        *workspace = offset + need;
    return 0;
}

static int prepare_fp32(const convt_problem *p, const convt_launch *l, const convt_tensors *t,
                        const convt_context *ctx, void **state, size_t *workspace, convt_err *e)
{
    (void)t;
    return im2col_prepare_tier(CUBLAS_COMPUTE_32F, p, l, ctx, state, workspace, e);
}

static int prepare_tf32(const convt_problem *p, const convt_launch *l, const convt_tensors *t,
                        const convt_context *ctx, void **state, size_t *workspace, convt_err *e)
{
    (void)t;
    return im2col_prepare_tier(CUBLAS_COMPUTE_32F_FAST_TF32, p, l, ctx, state, workspace, e);
}

/* col2im's outputs a thread and the picked algorithms, for the record
 * (cublasLtMatmulAlgoConfigAttributes_t's numbers). */
static void im2col_describe(const void *state, char *buf, size_t len)
{
    const im2col_state *s = (const im2col_state *)state;
    size_t used = 0;
    buf[0] = 0;
    for (int i = 0; s && i < s->n_chunks && used < len; i++)
        used += (size_t)snprintf(buf + used, len - used, "%scol2im (%lld images): %d outputs a "
                                 "thread", i ? ", " : "", (long long)s->col2im[i].count,
                                 s->col2im[i].outs);
    for (int i = 0; s && i < s->n_plans && used < len; i++) {
        const lt_gemm *g = &s->plan[i];
        int32_t id = -1, splitk = -1;
        uint32_t tile = 0, stages = 0, reduction = 0;
        uint16_t cluster = 0;
        size_t w;
        const cublasLtMatmulAlgo_t *a = &g->pick.algo;
        cublasLtMatmulAlgoConfigGetAttribute(a, CUBLASLT_ALGO_CONFIG_ID, &id, sizeof id, &w);
        cublasLtMatmulAlgoConfigGetAttribute(a, CUBLASLT_ALGO_CONFIG_TILE_ID, &tile, sizeof tile,
                                             &w);
        cublasLtMatmulAlgoConfigGetAttribute(a, CUBLASLT_ALGO_CONFIG_STAGES_ID, &stages,
                                             sizeof stages, &w);
        cublasLtMatmulAlgoConfigGetAttribute(a, CUBLASLT_ALGO_CONFIG_SPLITK_NUM, &splitk,
                                             sizeof splitk, &w);
        cublasLtMatmulAlgoConfigGetAttribute(a, CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME, &reduction,
                                             sizeof reduction, &w);
        cublasLtMatmulAlgoConfigGetAttribute(a, CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID, &cluster,
                                             sizeof cluster, &w);
        used += (size_t)snprintf(buf + used, len - used,
                                 "%scuBLASLt (%lld images): result %d of %d, algo id %d, "
                                 "tile id %d, stages id %d, split-K %d (reduction %d), "
                                 "cluster id %d, %zu B work area",
                                 i || s->n_chunks ? "; " : "", (long long)g->count, g->index,
                                 g->offered, (int)id, (int)tile, (int)stages, (int)splitk,
                                 (int)reduction, (int)cluster, g->pick.workspaceSize);
    }
}

/* One thread per OUTS consecutive outputs of an output row: the map from a
 * thread to its outputs and columns is src/lib/col2im_map.h's, which
 * tests/test_col2im_map.c checks on the CPU against the definition. */
template <int OUTS>
__global__ void col2im_kernel(convt_col2im_args a, const float *__restrict__ cols,
                              const float *__restrict__ b, float *__restrict__ y)
{
    const uint32_t idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < a.threads)
        convt_col2im_thread(&a, idx, OUTS, cols, b, y);
}

/* xt[ci][nl][i] = x[nl][ci][i] for a chunk's images: the merged GEMM's
 * operand, whose rows (ci) hold every image's positions. The index is
 * split by multiply-high divisions: 64-bit ones had cost 18 us of
 * SimpleBaseline's 214 under ncu (session 60); supports keeps
 * count x cin x P below 2^31. */
__global__ void merge_images_kernel(uint32_t total, convt_fastdiv P, convt_fastdiv cin,
                                    uint32_t count, const float *__restrict__ x,
                                    float *__restrict__ xt)
{
    const uint32_t idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= total)
        return;
    const uint32_t row = convt_fastdiv_div(P, idx), i = idx - row * P.d; /* row = nl * cin + ci */
    const uint32_t nl = convt_fastdiv_div(cin, row), ci = row - nl * cin.d;
    xt[(ci * count + nl) * P.d + i] = x[idx];
}

/* merge = 1's copy of a chunk (merge_images_kernel). */
static int merge_copy(int64_t count, const convt_problem *p, const float *x, float *xt, int block,
                      cudaStream_t st, convt_err *e)
{
    const int64_t P = convt_in_spatial(p), total = count * p->cin * P;
    merge_images_kernel<<<(unsigned)((total + block - 1) / block), block, 0, st>>>(
        (uint32_t)total, convt_fastdiv_make((uint32_t)P), convt_fastdiv_make((uint32_t)p->cin),
        (uint32_t)count, x, xt);
    CUDA_TRY_LAUNCH(e);
    return 0;
}

/* The transpose's tile: TRANSPOSE_TILE positions by TRANSPOSE_TILE
 * channels, TRANSPOSE_ROWS rows of threads a block. */
#define TRANSPOSE_TILE 32
#define TRANSPOSE_ROWS 8

/* xc[nl][i][ci] = x[nl][ci][i] (merge = 2): each image's channels-by-
 * positions matrix transposed through a shared tile, so that both the
 * reads (along i) and the writes (along ci) are whole lines; the tile's
 * extra column keeps a column's reads off one bank. Blocks loop over the
 * tiles of y and z beyond the grid's limits (65535). */
__global__ void channels_last_kernel(int P, int cin, int count, const float *__restrict__ x,
                                     float *__restrict__ xc)
{
    __shared__ float tile[TRANSPOSE_TILE][TRANSPOSE_TILE + 1];
    const int i0 = blockIdx.x * TRANSPOSE_TILE, tx = threadIdx.x;
    for (int nl = blockIdx.z; nl < count; nl += gridDim.z) {
        const float *xi = x + (int64_t)nl * cin * P;
        float *xo = xc + (int64_t)nl * cin * P;
        for (int c0 = blockIdx.y * TRANSPOSE_TILE; c0 < cin; c0 += gridDim.y * TRANSPOSE_TILE) {
            for (int r = threadIdx.y; r < TRANSPOSE_TILE; r += TRANSPOSE_ROWS)
                if (c0 + r < cin && i0 + tx < P)
                    tile[r][tx] = xi[(int64_t)(c0 + r) * P + i0 + tx];
            __syncthreads();
            for (int r = threadIdx.y; r < TRANSPOSE_TILE; r += TRANSPOSE_ROWS)
                if (i0 + r < P && c0 + tx < cin)
                    xo[(int64_t)(i0 + r) * cin + c0 + tx] = tile[tx][r];
            __syncthreads();
        }
    }
}

/* Copies a chunk's input for the merged GEMM: [ci][image][p] (merge = 1)
 * or [image][p][ci] (merge = 2). */
static int merge_images(int64_t merge, int64_t count, const convt_problem *p, const float *x,
                        float *xt, int block, cudaStream_t st, convt_err *e)
{
    if (merge == 2) {
        const int64_t P = convt_in_spatial(p);
        const int64_t tiles_c = (p->cin + TRANSPOSE_TILE - 1) / TRANSPOSE_TILE;
        const dim3 grid((unsigned)((P + TRANSPOSE_TILE - 1) / TRANSPOSE_TILE),
                        (unsigned)(tiles_c < 65535 ? tiles_c : 65535),
                        (unsigned)(count < 65535 ? count : 65535));
        channels_last_kernel<<<grid, dim3(TRANSPOSE_TILE, TRANSPOSE_ROWS), 0, st>>>(
            (int)P, (int)p->cin, (int)count, x, xt);
        CUDA_TRY_LAUNCH(e);
        return 0;
    }
    return merge_copy(count, p, x, xt, block, st, e);
}

/* y[n][co][k] = b[co], for the GEMM to add to. */
__global__ void bias_fill_kernel(int64_t count, int64_t taps, int64_t cout,
                                 const float *__restrict__ b, float *__restrict__ y)
{
    const int64_t idx = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (idx < count)
        y[idx] = b[idx / taps % cout];
}

/* prepare's col2im plan for a chunk of count images (the last chunk may be
 * shorter), or NULL. */
static const col2im_plan *col2im_plan_for(const im2col_state *s, int64_t count)
{
    for (int i = 0; s && i < s->n_chunks; i++)
        if (s->col2im[i].count == count)
            return &s->col2im[i];
    return NULL;
}

/* Runs the GEMM d (of a chunk of count images) on A, B, C: cuBLAS's own
 * choice, or cuBLASLt's planned algorithm where knob algo asked for one. */
static int run_gemm(cublasHandle_t handle, cublasComputeType_t compute, const im2col_state *s,
                    const gemm_dims &d, int64_t count, const float *A, const float *B, float *C,
                    float beta, void *lt_work, cudaStream_t st, const char *what, convt_err *e)
{
    const float one = 1.0f;
    cublasStatus_t r;
    const bool lt = s && s->n_plans > 0;
    if (!lt) {
        r = cublasGemmStridedBatchedEx(handle, d.ta, d.tb, d.m, d.n, d.k, &one, A, CUDA_R_32F,
                                       d.lda, d.sa, B, CUDA_R_32F, d.ldb, d.sb, &beta, C,
                                       CUDA_R_32F, d.ldc, d.sc, d.batch, compute,
                                       CUBLAS_GEMM_DEFAULT);
    } else {
        const lt_gemm *g = s->plan[0].count == count || s->n_plans == 1 ? &s->plan[0] : &s->plan[1];
        r = cublasLtMatmul(s->lt, g->op, &one, A, g->a, B, g->b, &beta, C, g->c, C, g->c,
                           &g->pick.algo, lt_work, g->pick.workspaceSize, st);
    }
    if (r != CUBLAS_STATUS_SUCCESS)
        return convt_fail(e, "%s (%s): %s", lt ? "cublasLtMatmul" : "cublasGemmStridedBatchedEx",
                          what, cublasGetStatusString(r));
    return 0;
}

static int im2col_launch_tier(cublasComputeType_t compute, const convt_problem *p,
                              const convt_launch *l, const convt_tensors *t, void *workspace,
                              void *state, const convt_context *ctx, convt_err *e)
{
    cudaStream_t st = (cudaStream_t)ctx->stream;
    const im2col_state *prepared = (const im2col_state *)state;
    const im2col_space sp = im2col_space_of(p, l);
    float *cols = (float *)workspace, *xt = cols + sp.cols;
    void *lt_work = (char *)workspace + lt_workspace_offset(p, l);
    const int64_t cin_g = p->cin / p->groups, M = gemm_rows(p);
    const int64_t taps = convt_taps(p), P = convt_in_spatial(p);
    const int64_t chunk = images_per_chunk(p, l);
    const im2col_knobs k = im2col_knobs_of(l);
    const int block = (int)k.block;
    cublasHandle_t handle = (cublasHandle_t)ctx->handles->cublas;
    if (cublasSetStream(handle, st) != CUBLAS_STATUS_SUCCESS)
        return convt_fail(e, "cublasSetStream failed");
    const float *w = t->w;  /* [cin][M]: group g's rows from g * cin_g */
    if (convt_problem_is_gemm(p)) {
        if (t->b) {
            const int64_t count = p->n * p->cout * taps;
            bias_fill_kernel<<<(unsigned)((count + block - 1) / block), block, 0, st>>>(
                count, taps, p->cout, t->b, t->y);
            CUDA_TRY_LAUNCH(e);
        }
        return run_gemm(handle, compute, prepared, gemm_of(p, l, p->n), p->n, w, t->x, t->y,
                        t->b ? 1.0f : 0.0f, lt_work, st, "inputs of one position", e);
    }
    const int64_t out_image = p->cout * convt_out_spatial(p); /* outputs an image */
    for (int64_t n0 = 0; n0 < p->n; n0 += chunk) {
        const int64_t count = chunk < p->n - n0 ? chunk : p->n - n0;
        const gemm_dims d = gemm_of(p, l, count);
        const float *x = t->x + n0 * p->cin * P;
        if (k.merge) {
            if (merge_images(k.merge, count, p, x, xt, block, st, e) ||
                run_gemm(handle, compute, prepared, d, count, xt, w, cols, 0.0f, lt_work, st,
                         "images merged", e))
                return -1;
        } else {
            for (int64_t g = 0; g < p->groups; g++)
                if (run_gemm(handle, compute, prepared, d, count, x + g * cin_g * P,
                             w + g * cin_g * M, cols + g * M * P, 0.0f, lt_work, st,
                             "a group's images", e))
                    return -1;
        }
        const col2im_plan *c = col2im_plan_for(prepared, count);
        if (!c)
            return convt_fail(e, "im2col_gemm: no col2im plan for a chunk of %lld images "
                              "(launch without prepare)", (long long)count);
        const convt_col2im_args &a = c->args;
        const unsigned blocks = (unsigned)((a.threads + block - 1) / block);
        float *y = t->y + n0 * out_image;
        const int outs = c->outs;
        if (outs == 4)
            col2im_kernel<4><<<blocks, block, 0, st>>>(a, cols, t->b, y);
        else if (outs == 2)
            col2im_kernel<2><<<blocks, block, 0, st>>>(a, cols, t->b, y);
        else
            col2im_kernel<1><<<blocks, block, 0, st>>>(a, cols, t->b, y);
        CUDA_TRY_LAUNCH(e);
    }
    return 0;
}

static int launch_fp32(const convt_problem *p, const convt_launch *l, const convt_tensors *t,
                       void *workspace, void *state, const convt_context *ctx, convt_err *e)
{
    return im2col_launch_tier(CUBLAS_COMPUTE_32F, p, l, t, workspace, state, ctx, e);
}

static int launch_tf32(const convt_problem *p, const convt_launch *l, const convt_tensors *t,
                       void *workspace, void *state, const convt_context *ctx, convt_err *e)
{
    return im2col_launch_tier(CUBLAS_COMPUTE_32F_FAST_TF32, p, l, t, workspace, state, ctx, e);
}

#define IM2COL_KNOBS                                                                          \
    .n_knobs = 5,                                                                             \
    .knobs = {{.name = "block", .help = "col2im threads per block", .n_defaults = 1,          \
               .defaults = {256}},                                                            \
              {.name = "images", .help = "images per GEMM batch (0: all; bounds the workspace)", \
               .n_defaults = 2, .defaults = {1, 0}},                                          \
              {.name = "merge",                                                               \
               .help = "1: the images of a batch as one GEMM (input copied to [ci][image][p]); " \
                       "2: the same with the input copied channels last, [image][p][ci] (the "  \
                       "GEMM's operand K-major, as TF32 tensor cores read it)",                 \
               .n_defaults = 3, .defaults = {0, 1, 2}},                                       \
              {.name = "algo",                                                                \
               .help = "0: cuBLAS's own GEMM algorithm; a: the a-th of cuBLASLt's heuristic "  \
                       "results (up to 16)",                                                  \
               .n_defaults = 5, .defaults = {0, 1, 2, 3, 4}},                                 \
              {.name = "outs",                                                                \
               .help = "outputs of a row a col2im thread sums (1, 2 or 4), the index split " \
                       "and the outer dimensions' taps worked out once for them; 0: 4 or 2 "  \
                       "where that leaves 512 threads an SM, else 1 (src/lib/col2im_outs.h)", \
               .n_defaults = 1, .defaults = {0}}}

extern "C" const convt_variant convt_variant_im2col_gemm = {
    .name = "im2col_gemm",
    .summary = "cuBLAS GEMM W^T X into columns per group (strict float32), col2im gathers + bias",
    .backend = CONVT_BACKEND_CUDA,
    .tier = CONVT_TIER_FP32,
    .deterministic = true,
    IM2COL_KNOBS,
    .supports = im2col_supports,
    .workspace_size = im2col_workspace,
    .prepare = prepare_fp32,
    .launch = launch_fp32,
    .release = im2col_release,
    .describe = im2col_describe,
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
    .prepare = prepare_tf32,
    .launch = launch_tf32,
    .release = im2col_release,
    .describe = im2col_describe,
};
