/* polyphase_wgmma_fold_cl_tf32's kernels (the folded kernel reading the
 * input's channels-last copy: CL, kernels/wg_channels_last.cuh) of widths
 * 64 to 112, each for bk 16 and 32 and S a power of two or not; the wider
 * ones are in polyphase_wgmma_fold_cl_wide.cu, so that the two compile in
 * parallel. */
#define CONVT_WG_CHANNELS_LAST_KERNELS 1 /* wg_channels_last.cuh: the copies' definitions */
#include "polyphase_wgmma.cuh"

#if CONVT_HAVE_WGMMA
WG_FOLD_CL_KERNELS_OF_WIDTH(64)
WG_FOLD_CL_KERNELS_OF_WIDTH(80)
WG_FOLD_CL_KERNELS_OF_WIDTH(96)
WG_FOLD_CL_KERNELS_OF_WIDTH(112)
#endif
