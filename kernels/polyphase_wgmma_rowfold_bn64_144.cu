/* polyphase_wgmma_rowfold_tf32's kernels (a stride-1 dimension folded in
 * pairs into the channels, src/lib/row_fold.h, then the phases into the
 * output channels; kernels/polyphase_wgmma.cuh, ROWFOLD) of widths 64 to
 * 144, each for bk 16 and 32 and nseg 1 and 2: two files, so that they
 * compile in parallel. */
#include "polyphase_wgmma.cuh"

#if CONVT_HAVE_WGMMA
WG_ROWFOLD_KERNELS_OF_WIDTH(64)
WG_ROWFOLD_KERNELS_OF_WIDTH(80)
WG_ROWFOLD_KERNELS_OF_WIDTH(96)
WG_ROWFOLD_KERNELS_OF_WIDTH(112)
WG_ROWFOLD_KERNELS_OF_WIDTH(128)
WG_ROWFOLD_KERNELS_OF_WIDTH(144)
#endif
