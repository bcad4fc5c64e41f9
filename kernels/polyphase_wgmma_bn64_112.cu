/* polyphase_wgmma_tf32's kernels of widths 64, 80, 96, 112 (kernels/polyphase_wgmma.cuh:
 * one file per few widths, so that the instantiations compile in parallel). */
#include "polyphase_wgmma.cuh"

#if CONVT_HAVE_WGMMA
WG_KERNELS_OF_WIDTH(64)
WG_KERNELS_OF_WIDTH(80)
WG_KERNELS_OF_WIDTH(96)
WG_KERNELS_OF_WIDTH(112)
#endif
