/* polyphase_wgmma_pingpong_tf32's kernels with a ring of buffers a
 * consumer warpgroup (knob rings = 1: kernels/polyphase_wgmma.cuh, PING
 * and RINGS) of every width of WG_PINGPONG_WIDTHS, at bk 8, rows whole or
 * segmented, weights resident or staged: a file of their own, so that
 * they compile in parallel with the others. */
#include "polyphase_wgmma.cuh"

#if CONVT_HAVE_WGMMA
WG_PINGPONG_WIDTHS(WG_PINGPONG_RINGS_KERNELS_OF_WIDTH)
#endif
