/* polyphase_wgmma_rowfold_tf32's ping-pong kernels with a ring of buffers
 * a consumer warpgroup (knobs pingpong = 1 and rings = 1:
 * kernels/polyphase_wgmma.cuh, ROWFOLD, PING and RINGS) of every width of
 * WG_PINGPONG_WIDTHS, each for bk 16 and 32, with resident weights and
 * without: a file of their own, so that they compile in parallel. */
#include "polyphase_wgmma.cuh"

#if CONVT_HAVE_WGMMA
WG_PINGPONG_WIDTHS(WG_ROWFOLD_RINGS_KERNELS_OF_WIDTH)
#endif
