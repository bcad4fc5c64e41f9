/* polyphase_wgmma_3xtf32's kernels with the two consumer warpgroups
 * issuing each stage in turn (knob turns = 1), widths 64 to 160
 * (kernels/polyphase_wgmma.cuh, TURNS). */
#include "polyphase_wgmma.cuh"

#if CONVT_HAVE_WGMMA
WG_SPLIT3_WIDTHS(WG_SPLIT3_TURNS_KERNELS_OF_WIDTH)
#endif
