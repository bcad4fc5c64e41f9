/* polyphase_wgmma's kernels with positions as wgmma's M (pos_m = 1;
 * kernels/polyphase_wgmma_posm.cuh), both precisions: widths 64, 128 and
 * 256 x 8 to 32 channels x both bk. */
#include "polyphase_wgmma.cuh"

#if CONVT_HAVE_WGMMA
WG_POSM_WIDTHS(WG_POSM_KERNELS_OF_WIDTH)
#endif
