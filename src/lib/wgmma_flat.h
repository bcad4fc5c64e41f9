/* The flat layout of a stride phase that polyphase_wgmma_tf32 tiles
 * (kernels/cuda_polyphase_igemm.cu): the phase's rows of outputs along the
 * innermost dimension, one row per (image, q0, q1), laid one after
 * another. Each row is `pitch` positions long, its q_count[2] outputs at
 * columns lead .. lead + q_count[2] - 1; the rest of the pitch holds the
 * span of the phase's taps' off[2], so that output column c, tap t, reads
 * staged column c + off2_max - off[2](t) of the same row and a tap's shift
 * never carries into the next row. Staged column c holds input position
 * c + q_min[2] - lead - off2_max.
 *
 * Two kinds of rows (convt_wg_rows_tight chooses, per phase):
 * - octet rows: the pitch a multiple of 8 and lead such that staged column
 *   0 reads an input position that is a multiple of 8, so that a staged
 *   stretch starts on a 32-byte sector of x where the input's rows are a
 *   multiple of 8 long, and an octet of positions (a producer lane's step)
 *   never straddles two rows;
 * - tight rows: lead 0 and the pitch exactly the outputs plus the span.
 *   Where rows are short the rounding wastes most of the layout: an 8 x 8
 *   plane with a span of 1 (pix2pix_dec1) has rows of 16 for 8 outputs,
 *   and every position is a wgmma column computed and a staged input
 *   copied. The producer's octets then straddle rows: its lanes walk their
 *   own rows (convt_wg_row_octets counts per lane), only less in step.
 *
 * Staged by tap planes (polyphase_plan.h, plane = 1), each (image, q0)
 * has rows1 = q_count[1] + the planes' widest off[1] span rows: the rows
 * past q_count[1] are computed and not stored, and they hold the staged
 * rows that the plane's taps read past the last output row, so that a tap
 * at off1 reads (off[1] - off1) rows further in the same (image, q0): a
 * shift of (off[1] - off1) x pitch + off2_max - off2 positions
 * (convt_wg_tap_shift). Staged by tap rows, rows1 = q_count[1] and the
 * shift is off2_max - off2.
 *
 * The kernel, its host plan and tests/test_wgmma_flat.c share what is
 * here: the layout (convt_wg_flat_make), the taps' shifts and the walk
 * over it (a cursor per position, moved on by whole columns). */
#ifndef CONVT_SRC_LIB_WGMMA_FLAT_H
#define CONVT_SRC_LIB_WGMMA_FLAT_H

#include <stdbool.h>
#include <stdint.h>

#include "fastdiv.h"
#include "hostdevice.h"
#include "polyphase_plan.h"
#include "problem.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A phase's tap rows or planes (rows[row_begin .. + nrows)) and its flat
 * layout: flat = images x q_count[0] x rows1 x pitch positions. */
typedef struct convt_wg_flat {
    int row_begin, nrows;
    int pitch, lead, off2_max, flat;
    int rows1;     /* rows per (image, q0): q_count[1], + the planes' off[1] span */
    int shift_max; /* the largest tap shift: a tile stages its positions + this many */
    convt_fastdiv pitch_div, rows1_div;
} convt_wg_flat;

/* A position of the layout: its row's image and q0, q1 (from the phase's
 * q_min) and its column. */
typedef struct convt_wg_cursor {
    int n, q0, q1, col;
} convt_wg_cursor;

/* How far past a phase's last position the kernel places a cursor: a
 * tile's staged stretch, under 2^14 positions (the wgmma descriptor's
 * reach, checked on the host), each producer warp starting at its share;
 * with clusters, a tile may start up to 2 x 256 positions past the phase's
 * end (a pair tile's second half), which still leaves this margin. */
#define CONVT_WG_FLAT_MARGIN 32768

/* The flat index of a phase, plus a tile and its staged stretch, stays
 * under 2^31 (the kernel's ints and fastdiv's exact range). */
#define CONVT_WG_FLAT_LIMIT (0x7fffffff - CONVT_WG_FLAT_MARGIN)

/* Flat position f (0 <= f < flat + CONVT_WG_FLAT_MARGIN). */
CONVT_HD convt_wg_cursor convt_wg_cursor_at(const convt_phase_desc *ph, const convt_wg_flat *fl,
                                            int f)
{
    convt_wg_cursor c;
    const uint32_t row = convt_fastdiv_div(fl->pitch_div, (uint32_t)f);
    const uint32_t r1 = convt_fastdiv_div(fl->rows1_div, row);
    const uint32_t r0 = convt_fastdiv_div(ph->q_div[0], r1);
    c.col = f - (int)row * fl->pitch;
    c.q1 = (int)(row - r1 * (uint32_t)fl->rows1);
    c.q0 = (int)(r1 - r0 * (uint32_t)ph->q_count[0]);
    c.n = (int)r0;
    return c;
}

/* The cursor's position and those 8, 16, ... further that lie in its
 * row: how far a producer lane copies before its next carry. In octet rows
 * (rows and tiles start on multiples of 8) every lane of a warp counts
 * the same; in tight rows each its own. */
CONVT_HD int convt_wg_row_octets(const convt_wg_cursor *c, const convt_wg_flat *fl)
{
    return (fl->pitch - c->col + 7) / 8;
}

/* The steps of an offset linear in a cursor's row, n x n + q0 x q0 + q1
 * x q1 plus a constant: the producer's source in x (polyphase_wgmma's
 * wg_row_walk), which it carries from row to row rather than rebuild. */
typedef struct convt_wg_row_steps {
    int64_t q1, q0, n;
} convt_wg_row_steps;

/* A column at or past the pitch carried into the next rows; with steps
 * (not NULL), *off, an offset linear in the row by those steps, moved
 * with it. */
CONVT_HD void convt_wg_cursor_carry_offset(convt_wg_cursor *c, const convt_phase_desc *ph,
                                           const convt_wg_flat *fl, const convt_wg_row_steps *steps,
                                           int64_t *off)
{
    while (c->col >= fl->pitch) {
        c->col -= fl->pitch;
        if (steps)
            *off += steps->q1;
        if (++c->q1 == fl->rows1) {
            c->q1 = 0;
            if (steps)
                *off += steps->q0 - fl->rows1 * steps->q1;
            if (++c->q0 == ph->q_count[0]) {
                c->q0 = 0;
                c->n++;
                if (steps)
                    *off += steps->n - ph->q_count[0] * steps->q0;
            }
        }
    }
}

/* A column at or past the pitch carried into the next rows. */
CONVT_HD void convt_wg_cursor_carry(convt_wg_cursor *c, const convt_phase_desc *ph,
                                    const convt_wg_flat *fl)
{
    convt_wg_cursor_carry_offset(c, ph, fl, 0, 0);
}

/* How many positions further than its output position a tap at (off1,
 * off2) of tap row or plane r reads the staged stretch: (r's off[1] - off1)
 * rows and (off2_max - off2) columns on. */
CONVT_HD int convt_wg_tap_shift(const convt_wg_flat *fl, const convt_phase_tap_row *r, int off1,
                                int off2)
{
    return (r->off[1] - off1) * fl->pitch + fl->off2_max - off2;
}

/* Segmented rows (polyphase_wgmma_pingpong_tf32's knob seg, 2-D shapes):
 * each phase's rows cut into segments of seg outputs (seg a multiple of 8,
 * so that every segment's octets keep their alignment), laid out in the
 * order image, segment, row, column. A flat tile then spans a few rows of
 * one segment, and a tap plane's stretch (a span of rows past the tile)
 * is a few segment rows long where whole rows of a long image made it
 * thousands. The lifted dimension 0 of a 2-D plan (one position, no tap
 * offset) counts the segments: q_count[0] = segments, q_div[0] divides by
 * it, and q_min[0] holds seg; so the cursor and its carry are unchanged
 * and a cursor's q0 is its segment. pl->seg records it, and
 * convt_wg_flat_make lays a row out seg outputs long (a phase's rows
 * shorter than seg: their own length, one segment). */
void convt_wg_segment_phases(convt_phase_plan *pl, int seg);

/* The phase column (output q2 less q_min[2]) where a segmented cursor's
 * segment starts: add it to every column the cursor maps to x or y. */
CONVT_HD int convt_wg_segment_col0(const convt_phase_desc *d, const convt_wg_cursor *c)
{
    return c->q0 * d->q_min[0];
}

/* Whether a segmented cursor's position is one of its row's outputs: a
 * column of its segment, in the row, a row of the phase (an image past the
 * last: a position past the phase). */
CONVT_HD bool convt_wg_segment_is_output(const convt_phase_desc *d, const convt_wg_flat *fl,
                                         const convt_wg_cursor *c, int images)
{
    const int q = c->col - fl->lead;
    return c->n < images && (unsigned)q < (unsigned)d->q_min[0] &&
           (unsigned)(convt_wg_segment_col0(d, c) + q) < (unsigned)d->q_count[2] &&
           c->q1 < d->q_count[1];
}

/* How a layout's rows are chosen (polyphase_wgmma's knob rows). */
typedef enum convt_wg_rows {
    CONVT_WG_ROWS_AUTO = 0,   /* tight where convt_wg_rows_tight says, else octets */
    CONVT_WG_ROWS_OCTETS = 1, /* every phase in octet rows */
    CONVT_WG_ROWS_TIGHT = 2   /* every phase in tight rows */
} convt_wg_rows;

/* Whether rows = 0 lays a phase's rows out tight (lead 0, pitch q_count2
 * + span2) rather than in octets (pitch lead + q_count2 + span2 rounded
 * up to a multiple of 8): where an image has more than one row
 * (rows_per_image: q_count[0] x q_count[1]) and the octets' pitch is a
 * tenth longer or more, or, for tight rows shorter than
 * CONVT_WG_ROWS_TENTH_FROM positions, a third longer or more.
 * - Rows of one image are neighbouring input rows, so an octet that
 *   straddles two reads neighbouring addresses. One row an image (1-D
 *   layers) puts the next row in another image: there the straddling,
 *   unaligned octets cost more than the positions saved. On the H100
 *   (session 27, results/notes.md) tight rows made 2-D and 3-D layers 3 to
 *   27% faster in TF32 (pix2pix_dec1 9%, stylegan_4to8 27%, med3d 20%,
 *   kb77 3%) and music_k4_s2_short, 1-D, 8 to 24% slower.
 * - The line was a third until session 49. Measured then on the H200
 *   (configs/rows-tight-probe.json: 9 stride-1 layers with tight rows of
 *   36 to 264 positions, every wgmma variant's best launch sets in octets
 *   and in tight rows), tight rows were faster where the octets' pitch
 *   was 11 to 20% longer (kb61's 80 for 68: the 3xTF32 kernel 17% faster,
 *   ping-pong 7%; kb70's 112 for 100: 10 to 13%; kb68's 80 for 72: 4 to
 *   9%), and not where it was 3 or 6% longer (kb69 272 for 264, a 2-D
 *   layer's 104 for 98: up to 7% slower). The row fold and row pairs
 *   gained less or lost (a 3-D k 5 layer's 40 for 36: the row fold 4%
 *   slower, row pairs 17%; a 2-D layer's 72 for 60: row pairs 9%), the
 *   others gained; configs/rows-posm-probe.json found the kernels with
 *   positions as M 1 to 2% slower on 2-D k 5 rows, faster on most 3-D
 *   ones. Rows shorter than 32 positions were not measured (some switch
 *   to the octet-stepping kernels there, kernels/cuda_polyphase_igemm.cu's
 *   wg_steps), so they keep the third. */
#define CONVT_WG_ROWS_TENTH_FROM 32
bool convt_wg_rows_tight(int q_count2, int span2, int lead, int64_t rows_per_image);

/* Phase i's layout, its rows as `mode` says (a segmented plan's rows seg
 * outputs long); 0, or -1 where it has CONVT_WG_FLAT_LIMIT positions or
 * more. rows and row_begin: convt_phase_plan_rows (tap rows or planes). */
int convt_wg_flat_make(const convt_problem *p, const convt_phase_plan *pl,
                       const convt_phase_tap_row *rows, const int *row_begin, int i,
                       convt_wg_rows mode, convt_wg_flat *fl);

#ifdef __cplusplus
}
#endif
#endif
