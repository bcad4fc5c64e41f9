/* polyphase_wgmma_fold_tf32's kernels for an S (stride phases) that is no power
 * of two (3, 5, 6, ...: the epilogue divides; kernels/polyphase_wgmma_fold.cuh) of
 * widths 64, 80, 96, 112, each for bk 16 and 32 and nseg 1 and 2: beside
 * polyphase_wgmma_fold_bn64_112.cu, a file of their own, so that they compile in parallel. */
#include "polyphase_wgmma.cuh"

#if CONVT_HAVE_WGMMA
WG_FOLD_ANY_KERNELS_OF_WIDTH(64)
WG_FOLD_ANY_KERNELS_OF_WIDTH(80)
WG_FOLD_ANY_KERNELS_OF_WIDTH(96)
WG_FOLD_ANY_KERNELS_OF_WIDTH(112)
#endif
