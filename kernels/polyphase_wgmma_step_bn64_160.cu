/* polyphase_wgmma_tf32's kernels whose producer steps an octet at a time
 * (tight rows: kernels/polyphase_wgmma.cuh, STEP), widths 64 to 160. */
#include "polyphase_wgmma.cuh"

#if CONVT_HAVE_WGMMA
WG_STEP_KERNELS_OF_WIDTH(64)
WG_STEP_KERNELS_OF_WIDTH(80)
WG_STEP_KERNELS_OF_WIDTH(96)
WG_STEP_KERNELS_OF_WIDTH(112)
WG_STEP_KERNELS_OF_WIDTH(128)
WG_STEP_KERNELS_OF_WIDTH(144)
WG_STEP_KERNELS_OF_WIDTH(160)
#endif
