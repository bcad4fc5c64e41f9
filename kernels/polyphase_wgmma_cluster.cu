/* polyphase_wgmma_cluster_tf32's kernels (unfolded; clusters of two:
 * kernels/polyphase_wgmma.cuh) of every width of WG_CLUSTER_WIDTHS, each for bk 16 and
 * 32 and nseg 1 and 2: a file of their own, so that they compile in
 * parallel with the others. */
#include "polyphase_wgmma.cuh"

#if CONVT_HAVE_WGMMA
WG_CLUSTER_WIDTHS(WG_CLUSTER_KERNELS_OF_WIDTH)
#endif
