/* Planted faults on the GPU (TESTING ONLY; convt-bench-faults): a kernel
 * that stores to an address no allocation holds (a sticky
 * cudaErrorIllegalAddress: the worker's context is lost for good) and a
 * kernel that never ends (the orchestrator kills its worker). See
 * planted_faults.c. */
#include <cstdint>

#include "cuda_check.h"
#include "variant.h"

__global__ void illegal_address_kernel(float *y)
{
    /* far past any allocation: the MMU faults */
    y[((int64_t)1 << 40) + threadIdx.x] = 1.0f;
}

/* Spins until *flag holds a value nothing writes: y holds NaN from the
 * validation run (bits 0x7fc00000 or 0xffffffff), never this. */
#define NEVER_WRITTEN 0x12345678

__global__ void never_ending_kernel(volatile int *flag)
{
    while (*flag != NEVER_WRITTEN)
        ;
}

static bool any_shape(const convt_problem *, const convt_launch *, const convt_context *, char *,
                      size_t)
{
    return true;
}

static int illegal_address_launch(const convt_problem *, const convt_launch *,
                                  const convt_tensors *t, void *, void *,
                                  const convt_context *ctx, convt_err *e)
{
    illegal_address_kernel<<<1, 32, 0, (cudaStream_t)ctx->stream>>>(t->y);
    CUDA_TRY_LAUNCH(e);
    return 0;
}

static int never_ending_launch(const convt_problem *, const convt_launch *, const convt_tensors *t,
                               void *, void *, const convt_context *ctx, convt_err *e)
{
    never_ending_kernel<<<1, 1, 0, (cudaStream_t)ctx->stream>>>((volatile int *)t->y);
    CUDA_TRY_LAUNCH(e);
    return 0;
}

#define PLANTED_CUDA(NAME, IDEA, LAUNCH)                                                     \
    extern const convt_variant convt_variant_##NAME;                                          \
    const convt_variant convt_variant_##NAME = {                                              \
        .name = #NAME,                                                                        \
        .summary = "TESTING ONLY: " IDEA,                                                     \
        .backend = CONVT_BACKEND_CUDA,                                                        \
        .tier = CONVT_TIER_FP32,                                                              \
        .deterministic = true,                                                                \
        .n_knobs = 0,                                                                         \
        .knobs = {},                                                                          \
        .supports = any_shape,                                                                \
        .workspace_size = nullptr,                                                            \
        .prepare = nullptr,                                                                   \
        .launch = LAUNCH,                                                                     \
        .release = nullptr,                                                                   \
        .describe = nullptr,                                                                  \
    }

extern "C" {
PLANTED_CUDA(planted_cuda_illegal_address,
             "a kernel storing far out of bounds (sticky illegal address)", illegal_address_launch);
PLANTED_CUDA(planted_cuda_hang, "a kernel that never ends", never_ending_launch);
}
