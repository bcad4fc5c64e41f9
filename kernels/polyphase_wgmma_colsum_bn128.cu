/* polyphase_wgmma_colsum_tf32's kernels of width 128 (kernels/
 * polyphase_wgmma_colsum.cuh): those of 8 to 32 channels x 3, 5 or 7
 * column sets x bk 8, 16 or 32 whose accumulators fit (wg_colsum_fits). */
#include "polyphase_wgmma.cuh"

#if CONVT_HAVE_WGMMA
WG_COLSUM_KERNELS_OF_WIDTH(128)
#endif
