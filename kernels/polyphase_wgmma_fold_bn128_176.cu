/* polyphase_wgmma_fold_tf32's kernels (the stride phases folded into the output
 * channels; kernels/polyphase_wgmma_fold.cuh) of widths 128, 144, 160, 176, each for bk 16 and
 * 32 and nseg 1 and 2: one file per few widths, so that they compile in parallel. */
#include "polyphase_wgmma.cuh"

#if CONVT_HAVE_WGMMA
WG_FOLD_KERNELS_OF_WIDTH(128)
WG_FOLD_KERNELS_OF_WIDTH(144)
WG_FOLD_KERNELS_OF_WIDTH(160)
WG_FOLD_KERNELS_OF_WIDTH(176)
#endif
