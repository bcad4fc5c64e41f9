/* polyphase_wgmma_nhwc_tf32's kernels (positions as wgmma's M, the input
 * copied channels last beforehand: kernels/polyphase_wgmma.cuh, NHWC):
 * widths 64, 128 and 256 x 8 to 32 channels x bk 16 and 32. */
#include "polyphase_wgmma.cuh"

#if CONVT_HAVE_WGMMA
WG_POSM_WIDTHS(WG_NHWC_KERNELS_OF_WIDTH)
#endif
