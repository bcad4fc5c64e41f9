/* polyphase_wgmma_fold_tf32's kernels (the stride phases folded into the output
 * channels; kernels/polyphase_wgmma_fold.cuh) of widths 64, 80, 96, 112, each for bk 16 and
 * 32 and nseg 1 and 2: one file per few widths, so that they compile in parallel. */
#include "polyphase_wgmma.cuh"

#if CONVT_HAVE_WGMMA
WG_FOLD_KERNELS_OF_WIDTH(64)
WG_FOLD_KERNELS_OF_WIDTH(80)
WG_FOLD_KERNELS_OF_WIDTH(96)
WG_FOLD_KERNELS_OF_WIDTH(112)
#endif
