/* Split-K (polyphase_wgmma_splitk_tf32, kernels/cuda_polyphase_igemm.cu):
 * a tile's walk over K, ktiles pipeline stages (tap rows, then chunks of
 * bk input channels within a row), cut into ksplit parts (or, stream-K,
 * into the blocks' even shares of all the tiles' stages), each part the
 * work of one block, the parts' sums added into the output by atomics.
 * For short layers of many channels, whose tiles are too few to fill the
 * SMs (a 16-long sequence of 1024 -> 512 channels: 72 tiles on 132 SMs).
 *
 * Part p of a tile takes stages [convt_split_begin(p), convt_split_begin(p
 * + 1)): together the parts take every stage once, and two parts differ by
 * one stage at most. The kernel, its host side (src/lib/split_k.c makes
 * the blocks' work list) and tests/test_split_k.c share what is here. */
#ifndef CONVT_SRC_LIB_SPLIT_K_H
#define CONVT_SRC_LIB_SPLIT_K_H

#include <stdint.h>

#include "hostdevice.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The most parts a tile is cut into (knob ksplit). */
#define CONVT_SPLIT_K_MAX 8

/* The first stage of part `part` (0 <= part <= ksplit; part = ksplit:
 * ktiles, the end of the last). */
CONVT_HD int convt_split_begin(int ktiles, int ksplit, int part)
{
    return (int)((int64_t)ktiles * part / ksplit);
}

/* Where stage kt starts: its tap row and its first input channel (a
 * multiple of bk; chunks = ceil(cin_g / bk) stages a row). */
CONVT_HD void convt_split_stage(int kt, int chunks, int bk, int *row, int *ci0)
{
    *row = kt / chunks;
    *ci0 = (kt % chunks) * bk;
}

/* A block's part of a tile's walk: stages [kt0, kt1), the first at tap
 * row `row`, input channel ci0. */
typedef struct convt_split_part {
    int kt0, kt1, row, ci0;
} convt_split_part;

CONVT_HD convt_split_part convt_split_part_at(int kt0, int kt1, int chunks, int bk)
{
    convt_split_part s;
    s.kt0 = kt0;
    s.kt1 = kt1;
    convt_split_stage(kt0, chunks, bk, &s.row, &s.ci0);
    return s;
}

/* ---------------------------------------------------------------------------
 * The blocks' work list (session 28). The split-K kernels walk a list made
 * on the host rather than compute their parts: block b takes segments
 * [begin[b], begin[b + 1]), each a stretch of one tile's stages. Two ways
 * to cut the tiles (knob ksplit):
 *
 * - ksplit >= 2, parts: every tile cut into ksplit parts
 *   (convt_split_begin), part p of tile t entry p x tiles + t of a list the
 *   blocks take round-robin (block b entries b, b + blocks, ...): the walk
 *   the kernels computed themselves before.
 * - ksplit = 0, stream (stream-K): all the tiles' stages shared evenly
 *   between the blocks, each block a contiguous stretch of them that may
 *   cross tiles. Parts of equal tiles take rounds as tiles do (vae 8 x 8:
 *   48 tiles at ksplit 2 are 96 parts, 36 of 132 SMs idle); a block's
 *   share of the stages does not. For shapes of at most one round of tiles
 *   (kernels/cuda_polyphase_igemm.cu refuses the rest).
 * - balance (session 35; knob ksplit = 1, CONVT_SPLIT_BALANCE here): only the tiles whose walks are
 *   longer than the blocks' even share of all the stages are cut, into
 *   parts of at most that share; the whole tiles and the parts then go to
 *   the least loaded block, the longest first (Graham's list scheduling:
 *   a block is given an item only while it is the least loaded, so none
 *   ends past the even share by more than an item, at most the share).
 *   For phases of unequal taps (k 3 at stride 2 in
 *   3-D: 1 to 8 taps a phase), where a round of whole tiles leaves the
 *   blocks of the short phases idle while those of the 8-tap phase run;
 *   the tiles not cut store their sums, so most of the output takes no
 *   atomic add.
 *
 * A segment that is a tile's whole walk is `whole`: its sums are stored,
 * not added. Empty tiles (stages 0) and empty parts make no segment. */
typedef struct convt_split_segment {
    int tile;     /* the tile: its index in the kernel's tile list */
    int kt0, kt1; /* its stages [kt0, kt1), kt0 < kt1 */
    int whole;    /* 1: kt0 = 0 and kt1 = the tile's stages */
} convt_split_segment;

/* knob ksplit's value for stream-K */
#define CONVT_SPLIT_STREAM 0
/* the balanced cut (knob ksplit = 1: no fixed count of parts; the
 * kernels' ksplit 1 is no split at all, so the plan names it apart) */
#define CONVT_SPLIT_BALANCE (-1)

/* The blocks' even share of `total` stages, rounded up (at least 1): the
 * longest walk the balanced cut leaves whole. */
CONVT_HD int64_t convt_split_share(int64_t total, int blocks)
{
    const int64_t share = (total + blocks - 1) / blocks;
    return share > 0 ? share : 1;
}

/* The most segments convt_split_plan writes for these arguments. */
int64_t convt_split_segments_max(int tiles, int blocks, int ksplit);

/* Fills seg (room for convt_split_segments_max) and begin[0..blocks] for
 * `blocks` blocks over tiles whose walks have stages[t] stages (0: an
 * empty tile), cut by ksplit (2 to CONVT_SPLIT_K_MAX, CONVT_SPLIT_STREAM
 * or CONVT_SPLIT_BALANCE). Returns the segments' count, -1 for arguments
 * out of range, -2 where host memory ran out. */
int convt_split_plan(const int *stages, int tiles, int blocks, int ksplit,
                     convt_split_segment *seg, int *begin);

#ifdef __cplusplus
}
#endif
#endif
