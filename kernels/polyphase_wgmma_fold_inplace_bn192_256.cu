/* polyphase_wgmma_fold_inplace_tf32's kernels (the folded kernel reading the weights in place:
 * kernels/polyphase_wgmma_inplace.cuh) of widths 192, 208, 224, 240, 256, each for bk 16 and 32, nseg 1 and 2
 * and S a power of two or not: one file per few widths, so that they compile in parallel. */
#include "polyphase_wgmma_inplace.cuh"

#if CONVT_HAVE_WGMMA
WG_FOLD_INPLACE_KERNELS_OF_WIDTH(192)
WG_FOLD_INPLACE_KERNELS_OF_WIDTH(208)
WG_FOLD_INPLACE_KERNELS_OF_WIDTH(224)
WG_FOLD_INPLACE_KERNELS_OF_WIDTH(240)
WG_FOLD_INPLACE_KERNELS_OF_WIDTH(256)
#endif
