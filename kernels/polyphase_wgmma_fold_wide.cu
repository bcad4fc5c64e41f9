/* polyphase_wgmma_fold_tf32's kernels with 256 output channels a block
 * (knob co_block = 256: each consumer warpgroup two 64-channel blocks of
 * one tile; kernels/polyphase_wgmma.cuh, MH = 2) of widths 64 to 160, each
 * for bk 16 and 32: a file of their own, so that they compile beside the
 * other widths. */
#include "polyphase_wgmma.cuh"

#if CONVT_HAVE_WGMMA
WG_WIDE_M_WIDTHS(WG_FOLD_WIDE_KERNELS_OF_WIDTH)
#endif
