/* The flat layout of a stride phase (wgmma_flat.h). */
#include "wgmma_flat.h"

#include "stride_phase.h"

/* An octet row's pitch: lead, the outputs and the span, rounded up to 8. */
static int64_t octet_pitch(int64_t lead, int64_t q_count2, int64_t span2)
{
    return convt_ceil_div(lead + q_count2 + span2, 8) * 8;
}

bool convt_wg_rows_tight(int q_count2, int span2, int lead, int64_t rows_per_image)
{
    const int64_t tight = (int64_t)q_count2 + span2, octets = octet_pitch(lead, q_count2, span2);
    if (rows_per_image <= 1)
        return false;
    /* a tenth from CONVT_WG_ROWS_TENTH_FROM positions on (measured), a third below */
    return tight >= CONVT_WG_ROWS_TENTH_FROM ? 11 * tight <= 10 * octets : 4 * tight <= 3 * octets;
}

int convt_wg_flat_make(const convt_problem *p, const convt_phase_plan *pl,
                       const convt_phase_tap_row *rows, const int *row_begin, int i,
                       convt_wg_rows mode, convt_wg_flat *fl)
{
    const convt_phase_desc *d = &pl->phases[i];
    int off2_min = 0, off2_max = 0, span1 = 0;
    for (int r = row_begin[i]; r < row_begin[i + 1]; r++) {
        off2_max = r == row_begin[i] || rows[r].off2_max > off2_max ? rows[r].off2_max : off2_max;
        off2_min = r == row_begin[i] || rows[r].off2_min < off2_min ? rows[r].off2_min : off2_min;
        span1 = rows[r].off[1] - rows[r].off1_min > span1 ? rows[r].off[1] - rows[r].off1_min : span1;
    }
    /* Octet rows: lead = (q_min[2] - off2_max) mod 8, so that staged
     * column 0 reads an input position that is a multiple of 8, and the
     * pitch a multiple of 8. Tight rows where asked, or (auto) where that
     * pitch is a tenth longer or more (convt_wg_rows_tight). */
    /* a row's outputs, or a segment's (a row shorter than seg is one segment) */
    const int row_out = pl->seg && pl->seg < d->q_count[2] ? pl->seg : d->q_count[2];
    int64_t lead = (((int64_t)d->q_min[2] - off2_max) % 8 + 8) % 8;
    int64_t pitch = octet_pitch(lead, row_out, (int64_t)off2_max - off2_min);
    if (mode == CONVT_WG_ROWS_TIGHT ||
        (mode == CONVT_WG_ROWS_AUTO &&
         convt_wg_rows_tight(row_out, off2_max - off2_min, (int)lead,
                             (int64_t)d->q_count[0] * d->q_count[1]))) {
        lead = 0;
        pitch = (int64_t)row_out + ((int64_t)off2_max - off2_min);
    }
    const int64_t rows1 = (int64_t)d->q_count[1] + span1;
    const int64_t flat = d->m_count ? p->n * (int64_t)d->q_count[0] * rows1 * pitch : 0;
    const int64_t shift_max = span1 * pitch + ((int64_t)off2_max - off2_min);
    if (pitch >= CONVT_WG_FLAT_LIMIT || flat >= CONVT_WG_FLAT_LIMIT || shift_max >= CONVT_WG_FLAT_LIMIT)
        return -1;
    fl->row_begin = row_begin[i];
    fl->nrows = row_begin[i + 1] - row_begin[i];
    fl->pitch = (int)pitch;
    fl->lead = (int)lead;
    fl->off2_max = off2_max;
    fl->flat = (int)flat;
    fl->rows1 = (int)rows1;
    fl->shift_max = (int)shift_max;
    fl->pitch_div = convt_fastdiv_make((uint32_t)pitch);
    fl->rows1_div = convt_fastdiv_make(rows1 > 0 ? (uint32_t)rows1 : 1u);
    return 0;
}

void convt_wg_segment_phases(convt_phase_plan *pl, int seg)
{
    pl->seg = seg;
    for (int i = 0; i < pl->nphases; i++) {
        convt_phase_desc *d = &pl->phases[i];
        const int segs = d->q_count[2] > 0 ? (d->q_count[2] + seg - 1) / seg : 1;
        d->q_count[0] = segs;
        d->q_div[0] = convt_fastdiv_make((uint32_t)segs);
        d->q_min[0] = seg;
    }
}
