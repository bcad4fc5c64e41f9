/* polyphase_wgmma_fold_posm_3xtf32's kernels with S no power of two (the
 * epilogue divides), as kernels/polyphase_wgmma_fold_posm_3xtf32.cu's. */
#include "polyphase_wgmma.cuh"

#if CONVT_HAVE_WGMMA
WG_POSM_WIDTHS(WG_FOLD_ANY_POSM_SPLIT3_KERNELS_OF_WIDTH)
#endif
