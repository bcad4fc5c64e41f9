/* polyphase_wgmma_pingpong_tf32's kernels (kernels/polyphase_wgmma.cuh,
 * PING: the two consumer warpgroups take a block's tiles in turn) of every
 * width of WG_PINGPONG_WIDTHS, each for bk 8, 16 and 32: a file of their
 * own, so that they compile in parallel with the others. */
#include "polyphase_wgmma.cuh"

#if CONVT_HAVE_WGMMA
WG_PINGPONG_WIDTHS(WG_PINGPONG_KERNELS_OF_WIDTH)
#endif
