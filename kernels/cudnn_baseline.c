/* cudnn_fp32, cudnn_tf32: the vendor baseline every result is compared with.
 *
 * A transposed convolution is the data gradient of the ordinary convolution
 * it inverts: with the forward convolution taking C_out channels to C_in
 * (filter [C_in][C_out/groups][K...]), our x plays dy, our y plays dx, and
 * cudnnConvolutionBackwardData computes y. This is what PyTorch does; the
 * output size in y's descriptor carries output_padding. Bias is added with
 * cudnnAddTensor inside the same launch, so it is timed, as in PyTorch.
 *
 * prepare() runs cudnnFindConvolutionBackwardDataAlgorithmEx on the real
 * buffers (its time is reported as prepare_ms, never timed) and keeps the
 * fastest algorithm whose math mode fits the tier: cudnn_fp32 sets
 * CUDNN_FMA_MATH (strict float32, PyTorch's allow_tf32=False), cudnn_tf32
 * CUDNN_DEFAULT_MATH (TF32 tensor cores allowed, PyTorch's default).
 * Knob `search`: 1 (default) runs cudnnFind as above; 0 takes the first
 * algorithm of cuDNN's heuristic (cudnnGetConvolutionBackwardDataAlgorithm_v7)
 * that fits, which costs milliseconds instead of seconds per shape: the GPU
 * tests use it to cover hundreds of shapes.
 * One-dimensional problems run as 2-D with a leading size-1 dimension,
 * since cuDNN's descriptors start at 4 dimensions. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cudnn.h>

#include "cuda_check.h"
#include "cudnn_common.h"
#include "variant.h"

#define CUDNN_TRY(call, e)                                                                    \
    do {                                                                                      \
        cudnnStatus_t cudnn_try_st_ = (call);                                                 \
        if (cudnn_try_st_ != CUDNN_STATUS_SUCCESS)                                            \
            return convt_fail((e), "%s:%d: %s: %s", __FILE__, __LINE__, #call,                \
                              cudnnGetErrorString(cudnn_try_st_));                            \
    } while (0)

typedef struct cudnn_state {
    cudnnTensorDescriptor_t x_desc, y_desc, b_desc;
    cudnnFilterDescriptor_t w_desc;
    cudnnConvolutionDescriptor_t conv;
    cudnnConvolutionBwdDataAlgo_t algo;
    cudnnMathType_t math;
    size_t workspace;
    double find_ms;
    int algos_tried;
    cudnnHandle_t handle;  /* the context's (convt_handles_cudnn) */
} cudnn_state;

static bool cudnn_supports(const convt_problem *p, const convt_launch *l,
                           const convt_context *ctx, char *why, size_t why_len)
{
    (void)l, (void)ctx;
    return convt_cudnn_can_express(p, why, why_len);
}

/* Packed NCHW/NCDHW dims and strides, 1-D lifted to 2-D. */
static int tensor_desc(cudnnTensorDescriptor_t d, int64_t n, int64_t c, int dims,
                       const int64_t *spatial, convt_err *e)
{
    int nd = dims == 1 ? 4 : dims + 2, dim[5], stride[5];
    dim[0] = (int)n;
    dim[1] = (int)c;
    if (dims == 1) {
        dim[2] = 1;
        dim[3] = (int)spatial[0];
    } else {
        for (int i = 0; i < dims; i++)
            dim[2 + i] = (int)spatial[i];
    }
    stride[nd - 1] = 1;
    for (int i = nd - 2; i >= 0; i--)
        stride[i] = stride[i + 1] * dim[i + 1];
    CUDNN_TRY(cudnnSetTensorNdDescriptor(d, CUDNN_DATA_FLOAT, nd, dim, stride), e);
    return 0;
}

static int make_descriptors(const convt_problem *p, cudnn_state *s, convt_err *e)
{
    int64_t out[CONVT_MAX_DIMS], ones[CONVT_MAX_DIMS] = {1, 1, 1};
    for (int d = 0; d < p->dims; d++)
        out[d] = convt_out_size(p, d);
    CUDNN_TRY(cudnnCreateTensorDescriptor(&s->x_desc), e);
    CUDNN_TRY(cudnnCreateTensorDescriptor(&s->y_desc), e);
    CUDNN_TRY(cudnnCreateTensorDescriptor(&s->b_desc), e);
    CUDNN_TRY(cudnnCreateFilterDescriptor(&s->w_desc), e);
    CUDNN_TRY(cudnnCreateConvolutionDescriptor(&s->conv), e);
    if (tensor_desc(s->x_desc, p->n, p->cin, p->dims, p->in, e) ||
        tensor_desc(s->y_desc, p->n, p->cout, p->dims, out, e) ||
        tensor_desc(s->b_desc, 1, p->cout, p->dims, ones, e))
        return -1;

    int lift = p->dims == 1, nd = p->dims + lift;
    int fdim[5], pad[3], stride[3], dil[3];
    fdim[0] = (int)p->cin;
    fdim[1] = (int)(p->cout / p->groups);
    for (int i = 0; i < nd; i++) {
        int d = i - lift;
        fdim[2 + i] = d < 0 ? 1 : (int)p->k[d];
        pad[i] = d < 0 ? 0 : (int)p->pad[d];
        stride[i] = d < 0 ? 1 : (int)p->stride[d];
        /* A one-tap kernel has no dilation to speak of; cuDNN 9.14's
         * heuristic raised SIGFPE on k=1 with dil=2 (seen on the H100). */
        dil[i] = d < 0 || p->k[d] == 1 ? 1 : (int)p->dil[d];
    }
    CUDNN_TRY(cudnnSetFilterNdDescriptor(s->w_desc, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, nd + 2,
                                         fdim),
              e);
    CUDNN_TRY(cudnnSetConvolutionNdDescriptor(s->conv, nd, pad, stride, dil,
                                              CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT),
              e);
    CUDNN_TRY(cudnnSetConvolutionGroupCount(s->conv, (int)p->groups), e);
    CUDNN_TRY(cudnnSetConvolutionMathType(s->conv, s->math), e);
    return 0;
}

static void cudnn_release(void *state)
{
    cudnn_state *s = state;
    if (!s)
        return;
    if (s->x_desc)
        cudnnDestroyTensorDescriptor(s->x_desc);
    if (s->y_desc)
        cudnnDestroyTensorDescriptor(s->y_desc);
    if (s->b_desc)
        cudnnDestroyTensorDescriptor(s->b_desc);
    if (s->w_desc)
        cudnnDestroyFilterDescriptor(s->w_desc);
    if (s->conv)
        cudnnDestroyConvolutionDescriptor(s->conv);
    free(s);
}

static bool math_fits(convt_tier tier, cudnnMathType_t m)
{
    /* Strict float32 must not run on tensor cores in TF32. */
    return tier == CONVT_TIER_TF32 || m == CUDNN_FMA_MATH;
}

/* The first of cuDNN's ranked candidates that ran, fits the workspace limit
 * and has a math mode the tier allows. */
static int choose(const convt_variant *v, const convt_context *ctx, cudnn_state *s,
                  const cudnnConvolutionBwdDataAlgoPerf_t *perf, int returned, const char *source,
                  convt_err *e)
{
    s->algos_tried = returned;
    for (int i = 0; i < returned; i++) {
        if (perf[i].status != CUDNN_STATUS_SUCCESS || perf[i].memory > ctx->workspace_limit ||
            !math_fits(v->tier, perf[i].mathType))
            continue;
        s->algo = perf[i].algo;
        s->workspace = perf[i].memory;
        s->math = perf[i].mathType;
        CUDNN_TRY(cudnnSetConvolutionMathType(s->conv, s->math), e);
        return 0;
    }
    return convt_fail(e, "%s offered %d algorithms, none usable within %.0f MiB of workspace "
                         "with %s math",
                      source, returned, ctx->workspace_limit / 1048576.0,
                      v->tier == CONVT_TIER_FP32 ? "FMA (strict float32)" : "any");
}

static int find_algorithm(const convt_variant *v, const convt_tensors *t,
                          const convt_context *ctx, cudnn_state *s, convt_err *e)
{
    enum { MAX_ALGOS = CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT };
    cudnnConvolutionBwdDataAlgoPerf_t perf[MAX_ALGOS];
    int returned = 0;
    size_t ws_bytes = 0;
    /* The search may use as much workspace as the largest algorithm that
     * fits the configured limit. */
    for (int a = 0; a < MAX_ALGOS; a++) {
        size_t need = 0;
        if (cudnnGetConvolutionBackwardDataWorkspaceSize(s->handle, s->w_desc, s->x_desc, s->conv,
                                                         s->y_desc, a, &need) ==
                CUDNN_STATUS_SUCCESS &&
            need <= ctx->workspace_limit && need > ws_bytes)
            ws_bytes = need;
    }
    void *ws = NULL;
    if (ws_bytes)
        CUDA_TRY(cudaMalloc(&ws, ws_bytes), e);
    cudaEvent_t t0, t1;
    CUDA_TRY(cudaEventCreate(&t0), e);
    CUDA_TRY(cudaEventCreate(&t1), e);
    CUDA_TRY(cudaEventRecord(t0, (cudaStream_t)ctx->stream), e);
    cudnnStatus_t st = cudnnFindConvolutionBackwardDataAlgorithmEx(
        s->handle, s->w_desc, t->w, s->x_desc, t->x, s->conv, s->y_desc, t->y, MAX_ALGOS, &returned,
        perf, ws, ws_bytes);
    CUDA_TRY(cudaEventRecord(t1, (cudaStream_t)ctx->stream), e);
    CUDA_TRY(cudaEventSynchronize(t1), e);
    float ms = 0;
    CUDA_TRY(cudaEventElapsedTime(&ms, t0, t1), e);
    cudaEventDestroy(t0);
    cudaEventDestroy(t1);
    if (ws)
        CUDA_TRY(cudaFree(ws), e);
    CUDNN_TRY(st, e);
    s->find_ms = ms;
    return choose(v, ctx, s, perf, returned, "cudnnFind", e);
}

/* cuDNN's heuristic ranking, without running anything. */
static int heuristic_algorithm(const convt_variant *v, const convt_context *ctx, cudnn_state *s,
                               convt_err *e)
{
    enum { MAX_ALGOS = CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT };
    cudnnConvolutionBwdDataAlgoPerf_t perf[MAX_ALGOS];
    int returned = 0;
    CUDNN_TRY(cudnnGetConvolutionBackwardDataAlgorithm_v7(s->handle, s->w_desc, s->x_desc, s->conv,
                                                          s->y_desc, MAX_ALGOS, &returned, perf),
              e);
    return choose(v, ctx, s, perf, returned, "cuDNN's heuristic", e);
}

static int cudnn_prepare_tier(const convt_variant *v, const convt_problem *p,
                              const convt_launch *l, const convt_tensors *t, const convt_context *ctx, void **state,
                              size_t *workspace, convt_err *e)
{
    void *handle;
    if (convt_handles_cudnn(ctx, &handle, e))
        return -1;
    cudnn_state *s = calloc(1, sizeof *s);
    if (!s)
        return convt_fail(e, "out of host memory");
    s->handle = handle;
    s->math = v->tier == CONVT_TIER_FP32 ? CUDNN_FMA_MATH : CUDNN_DEFAULT_MATH;
    cudnnStatus_t st = cudnnSetStream(s->handle, (cudaStream_t)ctx->stream);
    if (st != CUDNN_STATUS_SUCCESS) {
        cudnn_release(s);
        return convt_fail(e, "cudnnSetStream: %s", cudnnGetErrorString(st));
    }
    if (make_descriptors(p, s, e) ||
        (convt_launch_get(v, l, "search") ? find_algorithm(v, t, ctx, s, e) : heuristic_algorithm(v, ctx, s, e))) {
        cudnn_release(s);
        return -1;
    }
    *state = s;
    *workspace = s->workspace;
    return 0;
}

static int cudnn_launch(const convt_problem *p, const convt_launch *l, const convt_tensors *t,
                        void *workspace, void *state, const convt_context *ctx, convt_err *e)
{
    (void)l;
    cudnn_state *s = state;
    const float one = 1.0f, zero = 0.0f;
    CUDNN_TRY(cudnnSetStream(s->handle, (cudaStream_t)ctx->stream), e);
    CUDNN_TRY(cudnnConvolutionBackwardData(s->handle, &one, s->w_desc, t->w, s->x_desc, t->x,
                                           s->conv, s->algo, workspace, s->workspace, &zero,
                                           s->y_desc, t->y),
              e);
    if (p->bias)
        CUDNN_TRY(cudnnAddTensor(s->handle, &one, s->b_desc, t->b, &one, s->y_desc, t->y), e);
    return 0;
}

static void cudnn_describe(const void *state, char *buf, size_t len)
{
    const cudnn_state *s = state;
    static const char *const math[] = {"DEFAULT", "TENSOR_OP", "TENSOR_OP_ALLOW_CONVERSION",
                                       "FMA"};
    /* Only what identifies the choice: compare judges two records as the same
     * kernel when their details match (the search's time is in prepare_ms). */
    snprintf(buf, len, "algo=%d math=%s workspace=%zu chosen_by=%s candidates=%d", (int)s->algo,
             (unsigned)s->math < 4 ? math[s->math] : "?", s->workspace,
             s->find_ms > 0 ? "find" : "heuristic", s->algos_tried);
}

extern const convt_variant convt_variant_cudnn_fp32, convt_variant_cudnn_tf32;

static int prepare_fp32(const convt_problem *p, const convt_launch *l, const convt_tensors *t,
                        const convt_context *ctx, void **state, size_t *ws, convt_err *e)
{
    return cudnn_prepare_tier(&convt_variant_cudnn_fp32, p, l, t, ctx, state, ws, e);
}

static int prepare_tf32(const convt_problem *p, const convt_launch *l, const convt_tensors *t,
                        const convt_context *ctx, void **state, size_t *ws, convt_err *e)
{
    return cudnn_prepare_tier(&convt_variant_cudnn_tf32, p, l, t, ctx, state, ws, e);
}

const convt_variant convt_variant_cudnn_fp32 = {
    .name = "cudnn_fp32",
    .summary = "cudnnConvolutionBackwardData, algorithm from cudnnFind, FMA math (strict float32)",
    .backend = CONVT_BACKEND_CUDA,
    .tier = CONVT_TIER_FP32,
    .deterministic = false,
    .n_knobs = 1,
    .knobs = {{.name = "search",
               .help = "1: cudnnFind (measured), 0: cuDNN's heuristic",
               .n_defaults = 1,
               .defaults = {1}}},
    .supports = cudnn_supports,
    .prepare = prepare_fp32,
    .launch = cudnn_launch,
    .release = cudnn_release,
    .describe = cudnn_describe,
};

const convt_variant convt_variant_cudnn_tf32 = {
    .name = "cudnn_tf32",
    .summary = "cudnnConvolutionBackwardData, algorithm from cudnnFind, TF32 tensor cores allowed",
    .backend = CONVT_BACKEND_CUDA,
    .tier = CONVT_TIER_TF32,
    .deterministic = false,
    .n_knobs = 1,
    .knobs = {{.name = "search",
               .help = "1: cudnnFind (measured), 0: cuDNN's heuristic",
               .n_defaults = 1,
               .defaults = {1}}},
    .supports = cudnn_supports,
    .prepare = prepare_tf32,
    .launch = cudnn_launch,
    .release = cudnn_release,
    .describe = cudnn_describe,
};
