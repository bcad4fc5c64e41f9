/* polyphase_wgmma_tf32's kernels of widths 256 (kernels/polyphase_wgmma.cuh:
 * one file per few widths, so that the instantiations compile in parallel). */
#include "polyphase_wgmma.cuh"

#if CONVT_HAVE_WGMMA
WG_KERNELS_OF_WIDTH(256)
#endif
