/* Row pairs (row_pairs.h). */
#include "row_pairs.h"

#include <stdlib.h>

/* The tap row of rows[b .. e) (one off[0]) at off1, or -1. */
static int row_at(const convt_phase_tap_row *rows, int b, int e, int off1)
{
    for (int r = b; r < e; r++)
        if (rows[r].off[1] == off1)
            return r;
    return -1;
}

/* Whether some tap row of rows[b .. e) is at off1 or off1 + 1: a step of
 * input offset off1 serves one of the warpgroups. */
static bool serves(const convt_phase_tap_row *rows, int b, int e, int off1)
{
    return row_at(rows, b, e, off1) >= 0 || row_at(rows, b, e, off1 + 1) >= 0;
}

int convt_wg_row_pairs(const convt_phase_plan *pl, const convt_phase_tap_row *rows,
                       const int *row_begin, convt_wg_row_pair **pairs, int **pair_begin)
{
    const int nrows = row_begin[pl->nphases];
    /* at most two steps per tap row: its own offset and one less */
    *pairs = (convt_wg_row_pair *)malloc(sizeof **pairs * (size_t)(nrows ? 2 * nrows : 1));
    *pair_begin = (int *)malloc(sizeof **pair_begin * (size_t)(pl->nphases + 1));
    if (!*pairs || !*pair_begin) {
        free(*pairs);
        free(*pair_begin);
        *pairs = NULL;
        *pair_begin = NULL;
        return -1;
    }
    int n = 0;
    for (int i = 0; i < pl->nphases; i++) {
        (*pair_begin)[i] = n;
        /* the tap rows of one off[0] are consecutive (listed by k0, k1, k2) */
        for (int b = row_begin[i], e; b < row_begin[i + 1]; b = e) {
            int lo = rows[b].off[1], hi = rows[b].off[1];
            for (e = b; e < row_begin[i + 1] && rows[e].off[0] == rows[b].off[0]; e++) {
                lo = rows[e].off[1] < lo ? rows[e].off[1] : lo;
                hi = rows[e].off[1] > hi ? rows[e].off[1] : hi;
            }
            /* input offsets from lo - 1 (warpgroup 1's row at lo) to hi
             * (warpgroup 0's at hi), those that serve either */
            for (int off1 = lo - 1; off1 <= hi; off1++) {
                if (!serves(rows, b, e, off1))
                    continue;
                convt_wg_row_pair *s = &(*pairs)[n++];
                s->off[0] = rows[b].off[0];
                s->off[1] = off1;
                for (int cw = 0; cw < 2; cw++) {
                    const int r = row_at(rows, b, e, off1 + cw);
                    s->tap_begin[cw] = r >= 0 ? rows[r].tap_begin : 0;
                    s->ntaps[cw] = r >= 0 ? rows[r].ntaps : 0;
                }
            }
        }
    }
    (*pair_begin)[pl->nphases] = n;
    return 0;
}

int convt_wg_flat_pair(const convt_phase_desc *d, int64_t images, int pair_begin, int npairs,
                       convt_wg_flat *fl)
{
    const int64_t rows1 = ((int64_t)d->q_count[1] + 1) / 2;
    const int64_t flat = d->m_count ? images * (int64_t)d->q_count[0] * rows1 * fl->pitch : 0;
    if (flat >= CONVT_WG_FLAT_LIMIT)
        return -1;
    fl->row_begin = pair_begin;
    fl->nrows = npairs;
    fl->rows1 = (int)rows1;
    fl->flat = (int)flat;
    fl->rows1_div = convt_fastdiv_make(rows1 > 0 ? (uint32_t)rows1 : 1u);
    return 0;
}
