/* polyphase_wgmma_wide_tf32's kernels: the stride phases apart, as
 * polyphase_wgmma_tf32, with 256 output channels a block (each consumer
 * warpgroup two 64-channel blocks of one tile; kernels/polyphase_wgmma.cuh,
 * MH = 2), of widths 64 to 160, each for bk 16 and 32: a file of their own,
 * so that they compile beside the other widths. */
#include "polyphase_wgmma.cuh"

#if CONVT_HAVE_WGMMA
WG_WIDE_M_WIDTHS(WG_WIDE_KERNELS_OF_WIDTH)
#endif
