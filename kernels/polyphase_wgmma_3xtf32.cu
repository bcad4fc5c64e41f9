/* polyphase_wgmma_3xtf32's kernels, widths 64 to 160 (kernels/polyphase_wgmma.cuh,
 * SPLIT3: the float32 tier on the TF32 pipeline). */
#include "polyphase_wgmma.cuh"

#if CONVT_HAVE_WGMMA
WG_SPLIT3_WIDTHS(WG_SPLIT3_KERNELS_OF_WIDTH)
#endif
