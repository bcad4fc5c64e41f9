/* polyphase_wgmma_fold_tf32's kernels (the stride phases folded into the output
 * channels; kernels/polyphase_wgmma_fold.cuh) of widths 192, 208, 224, 240, 256, each for bk 16 and
 * 32 and nseg 1 and 2: one file per few widths, so that they compile in parallel. */
#include "polyphase_wgmma.cuh"

#if CONVT_HAVE_WGMMA
WG_FOLD_KERNELS_OF_WIDTH(192)
WG_FOLD_KERNELS_OF_WIDTH(208)
WG_FOLD_KERNELS_OF_WIDTH(224)
WG_FOLD_KERNELS_OF_WIDTH(240)
WG_FOLD_KERNELS_OF_WIDTH(256)
#endif
