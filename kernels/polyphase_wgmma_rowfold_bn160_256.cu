/* polyphase_wgmma_rowfold_tf32's kernels (src/lib/row_fold.h;
 * kernels/polyphase_wgmma.cuh, ROWFOLD) of widths 160 to 256, each for bk
 * 16 and 32 and nseg 1 and 2 (the other half: polyphase_wgmma_rowfold_bn64_144.cu). */
#include "polyphase_wgmma.cuh"

#if CONVT_HAVE_WGMMA
WG_ROWFOLD_KERNELS_OF_WIDTH(160)
WG_ROWFOLD_KERNELS_OF_WIDTH(176)
WG_ROWFOLD_KERNELS_OF_WIDTH(192)
WG_ROWFOLD_KERNELS_OF_WIDTH(208)
WG_ROWFOLD_KERNELS_OF_WIDTH(224)
WG_ROWFOLD_KERNELS_OF_WIDTH(240)
WG_ROWFOLD_KERNELS_OF_WIDTH(256)
#endif
