/* polyphase_wgmma_fold_cl_tf32's kernels of widths 128 to 256, each for bk
 * 16 and 32 and S a power of two or not (the narrower ones:
 * polyphase_wgmma_fold_cl.cu). */
#define CONVT_WG_CHANNELS_LAST_KERNELS 1 /* wg_channels_last.cuh: the copies' definitions */
#include "polyphase_wgmma.cuh"

#if CONVT_HAVE_WGMMA
WG_FOLD_CL_KERNELS_OF_WIDTH(128)
WG_FOLD_CL_KERNELS_OF_WIDTH(160)
WG_FOLD_CL_KERNELS_OF_WIDTH(192)
WG_FOLD_CL_KERNELS_OF_WIDTH(256)
#endif
