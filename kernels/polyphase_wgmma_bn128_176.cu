/* polyphase_wgmma_tf32's kernels of widths 128, 144, 160, 176 (kernels/polyphase_wgmma.cuh:
 * one file per few widths, so that the instantiations compile in parallel). */
#include "polyphase_wgmma.cuh"

#if CONVT_HAVE_WGMMA
WG_KERNELS_OF_WIDTH(128)
WG_KERNELS_OF_WIDTH(144)
WG_KERNELS_OF_WIDTH(160)
WG_KERNELS_OF_WIDTH(176)
#endif
