/* The TMA engine's copies into shared memory and the mbarriers (shared::cta)
 * that count them landing: what the wgmma kernels' pipelines
 * (kernels/polyphase_wgmma.cuh, rows_tma_tf32.cuh) and direct_window's
 * staged rows (kernels/cuda_direct_window.cu) share. sm_90a builds only
 * (CONVT_HAVE_WGMMA), as their callers. */
#ifndef CONVT_KERNELS_TMA_COPY_CUH
#define CONVT_KERNELS_TMA_COPY_CUH

#include <stdint.h>

#include "build_config.h"

#if CONVT_HAVE_WGMMA
/* A barrier whose phase ends when `count` threads have arrived (and the
 * bytes they announced, if any, have landed). */
__device__ __forceinline__ void mbar_init(uint64_t *bar, unsigned count)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(
                     (unsigned)__cvta_generic_to_shared(bar)), "r"(count) : "memory");
}

/* Waits until the barrier's phase of this parity (0 for its first, 1 for
 * its second, ...) has ended. */
__device__ __forceinline__ void mbar_wait(uint64_t *bar, unsigned parity)
{
    const unsigned a = (unsigned)__cvta_generic_to_shared(bar);
    asm volatile("{\n.reg .pred done;\nwait_%=:\n"
                 "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
                 "@!done bra wait_%=;\n}\n" ::"r"(a), "r"(parity) : "memory");
}

/* One arrival that also announces `bytes` of asynchronous copies: the
 * phase ends when they have landed too. */
__device__ __forceinline__ void mbar_arrive_expect_tx(uint64_t *bar, unsigned bytes)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(
                     (unsigned)__cvta_generic_to_shared(bar)), "r"(bytes) : "memory");
}

/* mbarrier.init made visible at cluster scope, so to the TMA engine's
 * completions and (before wg_cluster_sync) to the other blocks' multicast
 * copies and arrivals. */
__device__ __forceinline__ void fence_mbarrier_init_cluster()
{
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}

/* The TMA engine's copy of one box of a 4-D tensor map (coordinates
 * innermost first) to dst, counted on bar as it lands; coordinates outside
 * the tensor read zeros. */
__device__ __forceinline__ void tma_load_box4(void *dst, const void *map, int c0, int c1, int c2, int c3,
                                              uint64_t *bar)
{
    asm volatile("cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                 " [%0], [%1, {%2, %3, %4, %5}], [%6];" ::"r"((unsigned)__cvta_generic_to_shared(dst)),
                 "l"((uint64_t)map), "r"(c0), "r"(c1), "r"(c2), "r"(c3),
                 "r"((unsigned)__cvta_generic_to_shared(bar))
                 : "memory");
}
#endif /* CONVT_HAVE_WGMMA */

#endif /* CONVT_KERNELS_TMA_COPY_CUH */
