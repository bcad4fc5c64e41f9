/* polyphase_wgmma_pingpong_tf32's kernels with the transposing producer
 * (knob transpose = 1: T16 in kernels/polyphase_wgmma.cuh) of every width
 * of WG_PINGPONG_WIDTHS, for bk 16 and 32, resident weights or not. */
#include "polyphase_wgmma.cuh"

#if CONVT_HAVE_WGMMA
WG_PINGPONG_WIDTHS(WG_PINGPONG_TRANSPOSE_KERNELS_OF_WIDTH)
#endif
