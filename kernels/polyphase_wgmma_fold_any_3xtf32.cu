/* polyphase_wgmma_fold_3xtf32's kernels with S no power of two (the
 * epilogue divides), widths 64 to 160 (kernels/polyphase_wgmma.cuh). */
#include "polyphase_wgmma.cuh"

#if CONVT_HAVE_WGMMA
WG_SPLIT3_WIDTHS(WG_FOLD_ANY_SPLIT3_KERNELS_OF_WIDTH)
#endif
