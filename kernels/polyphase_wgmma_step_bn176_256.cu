/* polyphase_wgmma_tf32's kernels whose producer steps an octet at a time
 * (tight rows: kernels/polyphase_wgmma.cuh, STEP), widths 176 to 256. */
#include "polyphase_wgmma.cuh"

#if CONVT_HAVE_WGMMA
WG_STEP_KERNELS_OF_WIDTH(176)
WG_STEP_KERNELS_OF_WIDTH(192)
WG_STEP_KERNELS_OF_WIDTH(208)
WG_STEP_KERNELS_OF_WIDTH(224)
WG_STEP_KERNELS_OF_WIDTH(240)
WG_STEP_KERNELS_OF_WIDTH(256)
#endif
