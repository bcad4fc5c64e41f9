/* polyphase_wgmma_fold_tf32's kernels with 256 output channels a block
 * (knob co_block = 256, MH = 2) for an S (stride phases) that is no power of
 * two (the epilogue divides; kernels/polyphase_wgmma_fold.cuh), widths 64 to
 * 160, each for bk 16 and 32: beside polyphase_wgmma_fold_wide.cu, a file of
 * their own, so that they compile in parallel. */
#include "polyphase_wgmma.cuh"

#if CONVT_HAVE_WGMMA
WG_WIDE_M_WIDTHS(WG_FOLD_ANY_WIDE_KERNELS_OF_WIDTH)
#endif
