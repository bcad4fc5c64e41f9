/* polyphase_wgmma_cluster_tf32's kernels with 256 output channels a block
 * (knob co_block = 256, MH = 2; clusters of two:
 * kernels/polyphase_wgmma.cuh) of the widths
 * of WG_CLUSTER_WIDE_WIDTHS, unfolded and folded, each for bk 16 and 32: a
 * file of their own, so that they compile in parallel with the others. */
#include "polyphase_wgmma.cuh"

#if CONVT_HAVE_WGMMA
WG_CLUSTER_WIDE_WIDTHS(WG_CLUSTER_WIDE_KERNELS_OF_WIDTH)
#endif
