/* polyphase_wgmma_tf32's kernels with the transposing producer (knob
 * transpose = 1: T16 in kernels/polyphase_wgmma.cuh) of every width of
 * WG_PINGPONG_WIDTHS, for bk 16 and 32 and nseg 1 and 2: a file of their
 * own, so that they compile in parallel with the others. */
#include "polyphase_wgmma.cuh"

#if CONVT_HAVE_WGMMA
WG_PINGPONG_WIDTHS(WG_TRANSPOSE_KERNELS_OF_WIDTH)
#endif
