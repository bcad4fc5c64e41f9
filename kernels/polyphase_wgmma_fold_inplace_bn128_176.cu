/* polyphase_wgmma_fold_inplace_tf32's kernels (the folded kernel reading the weights in place:
 * kernels/polyphase_wgmma_inplace.cuh) of widths 128, 144, 160, 176, each for bk 16 and 32, nseg 1 and 2
 * and S a power of two or not: one file per few widths, so that they compile in parallel. */
#include "polyphase_wgmma_inplace.cuh"

#if CONVT_HAVE_WGMMA
WG_FOLD_INPLACE_KERNELS_OF_WIDTH(128)
WG_FOLD_INPLACE_KERNELS_OF_WIDTH(144)
WG_FOLD_INPLACE_KERNELS_OF_WIDTH(160)
WG_FOLD_INPLACE_KERNELS_OF_WIDTH(176)
#endif
