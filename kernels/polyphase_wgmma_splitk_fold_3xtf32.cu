/* polyphase_wgmma_splitk_3xtf32's kernels (folded, S a power of two; split-K:
 * src/lib/split_k.h, at float32 accuracy) of every width of
 * WG_SPLITK_SPLIT3_WIDTHS, each for bk 8, 16 and 32 and nseg 1 and 2: a file
 * of their own, so that they compile in parallel with the others. */
#include "polyphase_wgmma.cuh"

#if CONVT_HAVE_WGMMA
WG_SPLITK_SPLIT3_WIDTHS(WG_SPLITK_SPLIT3_FOLD_KERNELS_OF_WIDTH)
#endif
