/* polyphase_wgmma_fold_3xtf32's kernels with S a power of two, widths 64 to
 * 160 (kernels/polyphase_wgmma.cuh: FOLD and SPLIT3, the fold's epilogue on
 * 3xTF32's K loop). */
#include "polyphase_wgmma.cuh"

#if CONVT_HAVE_WGMMA
WG_SPLIT3_WIDTHS(WG_FOLD_SPLIT3_KERNELS_OF_WIDTH)
#endif
