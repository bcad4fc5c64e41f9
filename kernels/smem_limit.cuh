/* A kernel's dynamic shared-memory limit (cudaFuncAttributeMaxDynamic-
 * SharedMemorySize) belongs to the function, not to a launch, and the
 * driver prepares every launch of a shape before it runs any
 * (src/tool/driver.c, prepare_all). Set to one launch's need, it was
 * lowered by the next prepare of the same function that needed less
 * (kpad 0 after kpad 64, fewer stages, a narrower tile_ci), and the first
 * launch then failed with "invalid argument": 1100 launches of
 * configs/wgmma-fold-check.json on the H100. So prepare raises it once to
 * all the device allows, and each launch asks for what it needs. */
#ifndef CONVT_KERNELS_SMEM_LIMIT_CUH
#define CONVT_KERNELS_SMEM_LIMIT_CUH

#include <cuda_runtime.h>

#include "cuda_check.h"
#include "variant.h"

/* The device's opt-in limit less the function's static shared memory
 * (at, its attributes). */
static inline cudaError_t convt_raise_smem_limit_of(const void *fn, const cudaFuncAttributes &at,
                                                    const convt_device_info *dev)
{
    if (at.sharedSizeBytes > dev->smem_per_block_optin)
        return cudaErrorInvalidValue; /* its static shared memory alone is over the limit */
    return cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                (int)(dev->smem_per_block_optin - at.sharedSizeBytes));
}

static inline cudaError_t convt_raise_smem_limit(const void *fn, const convt_device_info *dev)
{
    cudaFuncAttributes at;
    const cudaError_t err = cudaFuncGetAttributes(&at, fn);
    return err != cudaSuccess ? err : convt_raise_smem_limit_of(fn, at, dev);
}

/* convt_raise_smem_limit for a kernel whose launches need `need` bytes of
 * dynamic shared memory, its failure recorded in e: nothing to raise while
 * they and the function's static shared memory fit in the 48 KiB every
 * block gets (direct_periods has 16 static bytes: 48 KiB of dynamic alone
 * would not launch unraised; a review found it). */
static inline int convt_raise_smem_for(const void *fn, size_t need, const convt_device_info *dev,
                                       convt_err *e)
{
    cudaFuncAttributes at;
    cudaError_t err = cudaFuncGetAttributes(&at, fn);
    if (err == cudaSuccess && need + at.sharedSizeBytes <= 48 * 1024)
        return 0;
    if (err == cudaSuccess)
        err = convt_raise_smem_limit_of(fn, at, dev);
    return err == cudaSuccess ? 0
                              : convt_cuda_fail(err, __FILE__, __LINE__, "convt_raise_smem_limit", e);
}

#endif
