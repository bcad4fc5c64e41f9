/* polyphase_wgmma_splitk_tf32's kernels with 256 output channels a block
 * (knob co_block = 256, MH = 2; split-K: src/lib/split_k.h) of the widths
 * of WG_SPLITK_WIDE_WIDTHS, unfolded and folded, each for bk 16 and 32: a
 * file of their own, so that they compile in parallel with the others. */
#include "polyphase_wgmma.cuh"

#if CONVT_HAVE_WGMMA
WG_SPLITK_WIDE_WIDTHS(WG_SPLITK_WIDE_KERNELS_OF_WIDTH)
#endif
