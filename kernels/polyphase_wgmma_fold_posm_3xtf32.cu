/* polyphase_wgmma_fold_posm_3xtf32's kernels with S a power of two: the
 * folded problem's positions as M, its channels (8 to 32) as N, at float32
 * accuracy, for the posm widths (64, 128, 256) and bk 8 and 16
 * (kernels/polyphase_wgmma.cuh: WG_FOLD_POSM_SPLIT3_OF). */
#include "polyphase_wgmma.cuh"

#if CONVT_HAVE_WGMMA
WG_POSM_WIDTHS(WG_FOLD_POSM_SPLIT3_KERNELS_OF_WIDTH)
#endif
