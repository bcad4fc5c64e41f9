/* The weight image's repack (polyphase_wgmma_kernel's stages copy its
 * tiles whole: wg_weight_slot): its dimensions, shared by the two kernels
 * that write it, pack_weights_stages (kernels/cuda_polyphase_igemm.cu) and
 * pack_weights_spans (kernels/wg_pack_spans.cu). */
#ifndef CONVT_KERNELS_WG_PACK_CUH
#define CONVT_KERNELS_WG_PACK_CUH

#include <cuda_runtime.h>
#include <stdint.h>

#include "fold_phases.h"

/* The weight image that polyphase_wgmma_kernel's stages copy whole
 * (wg_weight_slot): its dimensions. */
struct wg_pack_args {
    int cin_g, cout_g, groups;
    int w_rows, bk, chunks, co_blocks, taps_total; /* taps_total / taps_block < 65535 (the
                                                    * grid's y): the kernel's tap table in
                                                    * shared memory bounds it far below */
    int a_lbo_f; /* a tap tile's distance between K core matrices, in floats (a_lbo / 4) */
    int parts;   /* 1 (TF32), or 2 (3xTF32: each tap tile's big part, then its small part) */
    int tap_f;   /* floats of a tap tile: parts x bk / 4 x a_lbo_f */
    int taps_block; /* taps per block (TAPS, the grid's y): 1, 2 or 4 */
    int64_t ci_step; /* w's index step from one input channel to the next (convt_fold_weight_index) */
    int64_t total;
    /* The fold w is read through (S = 1 where none). Read by no one: the
     * tables made in prepare carry its terms (wg_upload, from the wgmma
     * kernel's own copy). Left in because the repack compiled differently
     * without it (SASS, session 16) and no device time was left to run
     * that. */
    convt_fold fold;
};

/* pack_weights_spans' staging: every w index the image takes for input
 * channel ci, output channel cog of a block and tap T is ci x ci_step +
 * co_term[cog] + T's term (tap_info[T].z), and co_term grows with cog, so
 * a block's indices of one input channel lie in one stretch of w from
 * co_term[first cog] + tapz_min, at most len floats long
 * (wg_pack_span_of). */
struct wg_pack_span {
    int tapz_min, tapz_span; /* the least tap term, and the greatest less the least */
    int len; /* the longest block's stretch; 0: the stretches are not used (co_term not growing) */
};

/* pack_weights_spans on stream s (kernels/wg_pack_spans.cu): the image
 * through shared memory, a block's 4 input channels' stretches read whole
 * first, so that w is read in order, once. after: launched by
 * programmatic dependent launch behind the input's channels-last copy,
 * waiting for its end before its own (as pack_weights_stages' AFTER). */
cudaError_t wg_pack_spans_launch(const float *w, float *wk, const int4 *tap_info, const int64_t *co_term,
                                 const wg_pack_args &pa, const wg_pack_span &sp, bool after,
                                 cudaStream_t s);
/* The shared memory a block of it takes (4 stretches of sp.len floats). */
static inline size_t wg_pack_spans_smem(const wg_pack_span &sp)
{
    return (size_t)4 * (size_t)sp.len * sizeof(float);
}

#endif /* CONVT_KERNELS_WG_PACK_CUH */
