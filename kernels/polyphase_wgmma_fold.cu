/* polyphase_wgmma_tf32's kernels with the stride phases folded into the
 * output channels (knob fold = 1; kernels/polyphase_wgmma_fold.cuh):
 * widths 64, 128 and 256 x bk 16 and 32 x nseg 1 and 2. */
#include "polyphase_wgmma.cuh"

#if CONVT_HAVE_WGMMA
WG_FOLD_WIDTHS(WG_FOLD_KERNELS_OF_WIDTH)
#endif
