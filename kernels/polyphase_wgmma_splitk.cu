/* polyphase_wgmma_splitk_tf32's kernels (unfolded; split-K:
 * src/lib/split_k.h) of every width of WG_SPLITK_WIDTHS, each for bk 16 and
 * 32 and nseg 1 and 2: a file of their own, so that they compile in
 * parallel with the others. */
#include "polyphase_wgmma.cuh"

#if CONVT_HAVE_WGMMA
WG_SPLITK_WIDTHS(WG_SPLITK_KERNELS_OF_WIDTH)
#endif
