/* Row pairs (polyphase_wgmma_pair_tf32): a block's two consumer warpgroups
 * take two neighbouring output rows of a phase over the same columns, and
 * each staged input row feeds both, through different tap rows.
 *
 * polyphase_wgmma_tf32 stages, for each tap row, the input row that tap row
 * reads, so that a block's two tiles (two neighbouring stretches of one
 * row) stage kh input rows of 2 bn positions each (kh: the tap rows, 3 on
 * kb57). Output rows q and q + 1 of a phase read input rows q + q_min - off
 * and q + 1 + q_min - off through the tap row at off: the input row that
 * row q reads through the tap row at e is the one row q + 1 reads through
 * the tap row at e + 1. So where the two warpgroups take rows 2u and
 * 2u + 1, a stage of input row 2u + q_min - e serves warpgroup 0's tap row
 * at e and warpgroup 1's at e + 1: kh + 1 stages of bn positions where kh
 * stages of 2 bn were (kb57: 4 x 264 staged positions a channel where
 * 3 x 520 were). Each stage holds the weights of both tap rows. On the
 * H100 the dense layers sat at about three quarters of shared memory's
 * bandwidth, most of it the input's 4-byte copies (results/notes.md,
 * session 44): fewer copies is what should move them.
 *
 * The phase's flat layout (wgmma_flat.h) then counts row pairs: rows1 is
 * ceil(q_count[1] / 2), a cursor's q1 the pair u, and warpgroup cw's output
 * row 2u + cw (a row past q_count[1] is computed and not stored). A tile
 * is bn positions of that layout, both warpgroups' columns. Stride and
 * dilation do not matter: within a phase, consecutive q read consecutive
 * input rows; where two tap rows are not 1 apart nothing is shared and the
 * steps are two per tap row. Tap rows only (no tap planes).
 *
 * The kernel, its host plan and tests/test_row_pairs.c share what is
 * here. */
#ifndef CONVT_SRC_LIB_ROW_PAIRS_H
#define CONVT_SRC_LIB_ROW_PAIRS_H

#include "hostdevice.h"
#include "polyphase_plan.h"
#include "problem.h"
#include "wgmma_flat.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One step of a phase's K walk (times its channel chunks): the input rows
 * it stages, read as a tap row at off reads them (i = q + q_min - off, q
 * the pair's first row, 2u), and the taps each warpgroup multiplies them
 * by: warpgroup cw's tap row is the one at (off[0], off[1] + cw), its taps
 * tap_begin[cw] .. + ntaps[cw] (ntaps 0: none there, the warpgroup only
 * passes the stage on). A stage holds warpgroup 0's weights, then 1's. */
typedef struct convt_wg_row_pair {
    int off[2];
    int tap_begin[2], ntaps[2];
} convt_wg_row_pair;

/* The steps of every phase: pairs[pair_begin[i] .. pair_begin[i + 1]) are
 * phase i's, made from its tap rows (rows, row_begin: convt_phase_plan_rows
 * with plane = 0). Both arrays are malloc'd (free them); 0, or -1 when out
 * of memory. */
int convt_wg_row_pairs(const convt_phase_plan *pl, const convt_phase_tap_row *rows,
                       const int *row_begin, convt_wg_row_pair **pairs, int **pair_begin);

/* Phase d's layout fl (convt_wg_flat_make's, tap rows) laid out in row
 * pairs: rows1 halved, rounded up; its K walk pairs[pair_begin ..
 * + npairs); images: the problem's. 0, or -1 where it reaches
 * CONVT_WG_FLAT_LIMIT (it only shrinks). */
int convt_wg_flat_pair(const convt_phase_desc *d, int64_t images, int pair_begin, int npairs,
                       convt_wg_flat *fl);

/* Warpgroup cw's taps of a step, as its tap row lists them (ntaps 0:
 * none), and where its weights start in the stage, in tap tiles: after
 * warpgroup 0's (the producer copies them there, the consumer reads them
 * there). */
CONVT_HD int convt_wg_pair_tap_begin(const convt_wg_row_pair *s, int cw)
{
    return cw ? s->tap_begin[1] : s->tap_begin[0];
}
CONVT_HD int convt_wg_pair_ntaps(const convt_wg_row_pair *s, int cw)
{
    return cw ? s->ntaps[1] : s->ntaps[0];
}
CONVT_HD int convt_wg_pair_weight_tile(const convt_wg_row_pair *s, int cw)
{
    return cw ? s->ntaps[0] : 0;
}

/* Warpgroup cw's output row of a row-pair cursor: the cursor with q1 the
 * phase's row, 2u + cw, for the epilogue's tests and offsets. */
CONVT_HD convt_wg_cursor convt_wg_pair_row(convt_wg_cursor c, int cw)
{
    c.q1 = 2 * c.q1 + cw;
    return c;
}

#ifdef __cplusplus
}
#endif
#endif
