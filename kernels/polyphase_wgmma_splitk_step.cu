/* polyphase_wgmma_splitk_tf32's unfolded kernels whose producer steps an
 * octet at a time (tight rows: kernels/polyphase_wgmma.cuh, STEP), every
 * width of WG_SPLITK_WIDTHS. */
#include "polyphase_wgmma.cuh"

#if CONVT_HAVE_WGMMA
WG_SPLITK_WIDTHS(WG_SPLITK_STEP_KERNELS_OF_WIDTH)
#endif
