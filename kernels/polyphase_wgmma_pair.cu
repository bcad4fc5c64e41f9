/* polyphase_wgmma_pair_tf32's kernels (kernels/polyphase_wgmma.cuh, PAIR:
 * the two consumer warpgroups take two neighbouring output rows, each
 * staged input row serving both; src/lib/row_pairs.h) of every width of
 * WG_PAIR_WIDTHS, each for bk 8 and 16: a file of their own, so that they
 * compile in parallel with the others. */
#include "polyphase_wgmma.cuh"

#if CONVT_HAVE_WGMMA
WG_PAIR_WIDTHS(WG_PAIR_KERNELS_OF_WIDTH)
#endif
