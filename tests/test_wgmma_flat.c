/* polyphase_wgmma_tf32's flat layout (src/lib/wgmma_flat.h) on the host,
 * over 400 random shapes of every parameter, for every phase of the plan:
 * - the layout: octet rows a multiple of 8 long, long enough for lead,
 *   the outputs and the taps' span, staged column 0 at an input position
 *   that is a multiple of 8; tight rows (where octets would be a tenth
 *   longer, a third for rows under 32 positions, and an image has several
 *   rows) exactly the outputs and the span; each kind forced (knob
 *   rows 1, 2) and chosen (rows 0, which chooses both kinds);
 * - the cursor: every flat position (and the CONVT_WG_FLAT_MARGIN past the
 *   end that a last tile and its staged stretch may reach) splits into
 *   (image, q0, q1, column) and back; the producer's walk (from a warp's
 *   first position, 8k + p, a run of positions 8 apart to its row's end,
 *   convt_wg_row_octets, then a carry) lands where the cursor of each
 *   position lands, and the offset it carries along (its source in x:
 *   convt_wg_cursor_carry_offset) is the one of the row it lands in;
 * - the outputs: the stored columns are the phase's outputs, each once;
 * - the shifts: every tap of the phase, from every stored output, reads
 *   the staged position that holds its input: the staged position's
 *   cursor, through the producer's map (the row's or plane's off[0] and
 *   off[1], staged column c at input c + c0), is the input the tap reads
 *   by its definition (q - off in each dimension), within the stretch a
 *   tile stages (shift_max); a shift planted one row or one column off is
 *   caught.
 * All of it for tap rows (plane = 0) and tap planes (plane = 1, rows per
 * (image, q0) lengthened by the planes' span along dimension 1); and the
 * segmented rows of 2-D shapes (check_segmented_layout).
 * The kernel's own arithmetic is this arithmetic: it calls the same
 * functions. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>

#include "polyphase_plan.h"
#include "shape_random.h"
#include "wgmma_flat.h"

static int64_t mod8(int64_t v) { return (v % 8 + 8) % 8; }

/* Phases laid out in each kind of rows by rows = 0 (auto), over the whole
 * test: the rule must choose both kinds (rows = 1 and 2 check every phase
 * in each). */
static int64_t tight_phases, octet_phases;

static void check_layout(const convt_phase_desc *d, const convt_phase_tap_row *rows,
                         const convt_wg_flat *fl, const convt_phase_plan *pl, int64_t n,
                         convt_wg_rows mode)
{
    if (d->m_count == 0) { /* no outputs: no tiles */
        assert_int_equal(fl->flat, 0);
        return;
    }
    int off2_min = fl->off2_max;
    for (int r = fl->row_begin; r < fl->row_begin + fl->nrows; r++) {
        assert_true(rows[r].off2_max <= fl->off2_max);
        off2_min = rows[r].off2_min < off2_min ? rows[r].off2_min : off2_min;
    }
    const int span2 = fl->off2_max - off2_min;
    /* staged column c holds input position c + c0 */
    const int64_t c0 = (int64_t)d->q_min[2] - fl->lead - fl->off2_max;
    /* octet rows: lead aligns c0 and the pitch is the least multiple of 8
     * that holds lead, the outputs and the span; tight rows, where that
     * pitch is a tenth longer or more (a third below 32 positions): lead
     * 0, nothing rounded */
    const int octet_lead = (int)mod8((int64_t)d->q_min[2] - fl->off2_max);
    const int octet_pitch = (octet_lead + d->q_count[2] + span2 + 7) / 8 * 8;
    const int64_t rows_per_image = (int64_t)d->q_count[0] * d->q_count[1];
    const int tight_pitch = d->q_count[2] + span2;
    const bool tight_auto = rows_per_image > 1 && (tight_pitch >= 32 ? 10 * octet_pitch >= 11 * tight_pitch
                                                                     : 3 * octet_pitch >= 4 * tight_pitch);
    assert_int_equal(convt_wg_rows_tight(d->q_count[2], span2, octet_lead, rows_per_image), tight_auto);
    const bool tight = mode == CONVT_WG_ROWS_TIGHT || (mode == CONVT_WG_ROWS_AUTO && tight_auto);
    if (tight) {
        tight_phases += mode == CONVT_WG_ROWS_AUTO;
        assert_int_equal(fl->lead, 0);
        assert_int_equal(fl->pitch, d->q_count[2] + span2);
    } else {
        octet_phases += mode == CONVT_WG_ROWS_AUTO;
        assert_int_equal(fl->lead, octet_lead);
        assert_int_equal(fl->pitch, octet_pitch);
        assert_int_equal(fl->pitch % 8, 0);
        assert_int_equal(mod8(c0), 0);
    }
    int span1 = 0;
    for (int r = fl->row_begin; r < fl->row_begin + fl->nrows; r++)
        span1 = rows[r].off[1] - rows[r].off1_min > span1 ? rows[r].off[1] - rows[r].off1_min : span1;
    assert_int_equal(fl->rows1, d->q_count[1] + span1);
    assert_int_equal(fl->flat, n * d->q_count[0] * fl->rows1 * fl->pitch);

    /* the cursor, both ways, and the stored outputs, each once */
    int64_t stored = 0;
    for (int f = 0; f < fl->flat + CONVT_WG_FLAT_MARGIN; f++) {
        const convt_wg_cursor c = convt_wg_cursor_at(d, fl, f);
        assert_true(c.col >= 0 && c.col < fl->pitch);
        assert_true(c.q0 >= 0 && c.q0 < d->q_count[0]);
        assert_true(c.q1 >= 0 && c.q1 < fl->rows1);
        assert_int_equal(((((int64_t)c.n * d->q_count[0] + c.q0) * fl->rows1 + c.q1) * fl->pitch +
                          c.col),
                         f);
        assert_int_equal(c.n < n, f < fl->flat);
        const int q2 = c.col - fl->lead;
        if (c.n < n && q2 >= 0 && q2 < d->q_count[2] && c.q1 < d->q_count[1])
            stored++;
    }
    assert_int_equal(stored, d->m_count);

    /* the producer's walk: from 8k + p, every octet of a row (the row's
     * octets counted once, at the walk's first position in it), a carry;
     * the offset carried along has steps of a mixed radix (q1 < 2^20 rows,
     * q0 < 2^20), so that a step dropped, doubled or misplaced shows */
    const convt_wg_row_steps steps = {1, (int64_t)1 << 20, (int64_t)1 << 40};
    const int64_t origin = -12345; /* the kernel's: c0, a channel, the tap row's offsets */
    for (int start = 0; start < 8 * 8 && start < fl->flat; start += 1 + 8 * (start % 3)) {
        convt_wg_cursor c = convt_wg_cursor_at(d, fl, start);
        int64_t off = c.n * steps.n + c.q0 * steps.q0 + c.q1 * steps.q1 + origin;
        int f = start;
        while ((int64_t)f < (int64_t)fl->flat + CONVT_WG_FLAT_MARGIN - 8 * (int64_t)fl->pitch) {
            const int n_oct = convt_wg_row_octets(&c, fl);
            assert_true(n_oct >= 1 && n_oct <= (fl->pitch + 7) / 8);
            /* the run ends with its row: one more octet would leave it */
            assert_true(c.col + 8 * n_oct >= fl->pitch);
            for (int j = 0; j < n_oct; j++) {
                /* octet j of the run: still the cursor's row, its column + 8 j */
                const convt_wg_cursor at = convt_wg_cursor_at(d, fl, f + 8 * j);
                assert_int_equal(at.n, c.n);
                assert_int_equal(at.q0, c.q0);
                assert_int_equal(at.q1, c.q1);
                assert_int_equal(at.col, c.col + 8 * j);
            }
            f += 8 * n_oct;
            c.col += 8 * n_oct;
            convt_wg_cursor_carry_offset(&c, d, fl, &steps, &off);
            const convt_wg_cursor at = convt_wg_cursor_at(d, fl, f);
            assert_int_equal(c.n, at.n);
            assert_int_equal(c.q0, at.q0);
            assert_int_equal(c.q1, at.q1);
            assert_int_equal(c.col, at.col);
            assert_int_equal(off, at.n * steps.n + at.q0 * steps.q0 + at.q1 * steps.q1 + origin);
            if (!tight)
                assert_int_equal(c.col, start % 8); /* every run starts on the same lane's column */
        }
    }

    /* every tap, from every stored output, reads the staged position that
     * holds its input; a shift planted a row or a column off reads another */
    int64_t planted_row_caught = 0, planted_col_caught = 0;
    for (int r = fl->row_begin; r < fl->row_begin + fl->nrows; r++)
        for (int t = rows[r].tap_begin; t < rows[r].tap_begin + rows[r].ntaps; t++) {
            const int *off = pl->taps[t].off;
            const int shift = convt_wg_tap_shift(fl, &rows[r], off[1], off[2]);
            assert_true(shift >= 0 && shift <= fl->shift_max);
            for (int f = 0; f < fl->flat; f++) {
                const convt_wg_cursor c = convt_wg_cursor_at(d, fl, f);
                if (!(c.n < n && c.col - fl->lead >= 0 && c.col - fl->lead < d->q_count[2] &&
                      c.q1 < d->q_count[1]))
                    continue;
                const int want[3] = {c.q0 + d->q_min[0] - off[0], c.q1 + d->q_min[1] - off[1],
                                     c.col - fl->lead + d->q_min[2] - off[2]};
                /* the producer's map of a staged position to its input */
                const convt_wg_cursor s = convt_wg_cursor_at(d, fl, f + shift);
                assert_int_equal(s.n, c.n);
                assert_int_equal(s.q0 + d->q_min[0] - rows[r].off[0], want[0]);
                assert_int_equal(s.q1 + d->q_min[1] - rows[r].off[1], want[1]);
                assert_int_equal(s.col + c0, want[2]);
                const convt_wg_cursor sr = convt_wg_cursor_at(d, fl, f + shift + fl->pitch);
                planted_row_caught += sr.n != c.n || sr.q1 + d->q_min[1] - rows[r].off[1] != want[1];
                const convt_wg_cursor sc = convt_wg_cursor_at(d, fl, f + shift + 1);
                planted_col_caught += sc.n != c.n || sc.col + c0 != want[2];
            }
        }
    if (d->m_count > 0 && d->ntaps > 0) {
        assert_true(planted_row_caught > 0);
        assert_true(planted_col_caught > 0);
    }
}

/* Segmented rows (convt_wg_segment_phases, the knob seg of
 * polyphase_wgmma_pingpong_tf32) on a 2-D plan's phase: every output is
 * stored once (convt_wg_segment_is_output, its column a segment further:
 * convt_wg_segment_col0), each segment's rows follow one another, and
 * every tap from every stored output reads, through the producer's map
 * (lifted row 0, staged column c of segment s at input c + c0 + s x seg),
 * the input it reads by its definition; a column planted a segment off is
 * caught. */
static int64_t check_segmented_layout(const convt_phase_desc *d, const convt_phase_tap_row *rows,
                                      const convt_wg_flat *fl, const convt_phase_plan *pl,
                                      const convt_problem *p, int seg)
{
    int64_t planted_caught = 0;
    assert_true(fl->pitch >= fl->lead + (seg < d->q_count[2] ? seg : d->q_count[2]));
    assert_int_equal(d->q_count[0], d->q_count[2] ? (d->q_count[2] + seg - 1) / seg : 1);
    const int64_t outputs = (int64_t)p->n * d->q_count[1] * d->q_count[2];
    char *seen = calloc((size_t)(outputs ? outputs : 1), 1);
    assert_non_null(seen);
    const int c0 = d->q_min[2] - fl->lead - fl->off2_max;
    for (int f = 0; f < fl->flat; f++) {
        const convt_wg_cursor c = convt_wg_cursor_at(d, fl, f);
        if (!convt_wg_segment_is_output(d, fl, &c, (int)p->n))
            continue;
        const int q2 = convt_wg_segment_col0(d, &c) + c.col - fl->lead;
        const int64_t at = ((int64_t)c.n * d->q_count[1] + c.q1) * d->q_count[2] + q2;
        assert_int_equal(seen[at], 0);
        seen[at] = 1;
        for (int r = fl->row_begin; r < fl->row_begin + fl->nrows; r++)
            for (int t = rows[r].tap_begin; t < rows[r].tap_begin + rows[r].ntaps; t++) {
                const int *off = pl->taps[t].off;
                const int shift = convt_wg_tap_shift(fl, &rows[r], off[1], off[2]);
                assert_true(shift >= 0 && shift <= fl->shift_max);
                const convt_wg_cursor st = convt_wg_cursor_at(d, fl, f + shift);
                assert_int_equal(st.n, c.n);
                assert_int_equal(st.q0, c.q0); /* the same segment */
                assert_int_equal(st.q1 + d->q_min[1] - rows[r].off[1], c.q1 + d->q_min[1] - off[1]);
                const int want = q2 + d->q_min[2] - off[2];
                assert_int_equal(st.col + c0 + convt_wg_segment_col0(d, &st), want);
                /* the segment's column forgotten: another input */
                planted_caught += c.q0 > 0 && st.col + c0 != want;
            }
    }
    int64_t stored = 0;
    for (int64_t k = 0; k < outputs; k++)
        stored += seen[k];
    assert_int_equal(stored, outputs);
    free(seen);
    return planted_caught;
}

/* Every phase of p's plan, by tap rows and tap planes, in every row mode;
 * seg > 0: its rows segmented (check_segmented_layout). Returns the
 * planted shifts that the segmented check caught. */
static int64_t check_problem_seg(const convt_problem *p, int seg)
{
    convt_phase_plan pl;
    char why[256];
    int64_t caught = 0;
    assert_int_equal(convt_phase_plan_make(p, 64, &pl, why, sizeof why), 0);
    if (seg > 0)
        convt_wg_segment_phases(&pl, seg);
    for (int plane = 0; plane <= 1; plane++) {
        convt_phase_tap_row *rows;
        int *row_begin;
        assert_int_equal(convt_phase_plan_rows(&pl, plane, &rows, &row_begin), 0);
        for (int i = 0; i < pl.nphases; i++)
            for (int mode = CONVT_WG_ROWS_AUTO; mode <= CONVT_WG_ROWS_TIGHT; mode++) {
                convt_wg_flat fl;
                assert_int_equal(convt_wg_flat_make(p, &pl, rows, row_begin, i, (convt_wg_rows)mode, &fl), 0);
                assert_int_equal(fl.row_begin, row_begin[i]);
                assert_int_equal(fl.nrows, row_begin[i + 1] - row_begin[i]);
                if (seg > 0)
                    caught += check_segmented_layout(&pl.phases[i], rows, &fl, &pl, p, seg);
                else
                    check_layout(&pl.phases[i], rows, &fl, &pl, p->n, (convt_wg_rows)mode);
            }
        free(rows);
        free(row_begin);
    }
    convt_phase_plan_free(&pl);
    return caught;
}

static void check_problem(const convt_problem *p)
{
    check_problem_seg(p, 0);
}

static void every_phase_lays_out_flat(void **state)
{
    (void)state;
    convt_random_spec spec = {.dims_mask = 7, .max_output_elems = 6000, .max_channels = 4};
    for (int i = 0; i < 400; i++) {
        convt_problem p = convt_random_problem(91, (uint64_t)i, &spec);
        check_problem(&p);
    }
    /* kb81's kind: stride 5, dilation 2, most phases left out */
    convt_problem p = convt_problem_default(2);
    p.n = 2, p.cin = p.cout = 1, p.in[0] = 7, p.in[1] = 9, p.k[0] = p.k[1] = 3;
    p.stride[0] = p.stride[1] = 5, p.dil[0] = p.dil[1] = 2, p.pad[0] = p.pad[1] = 1;
    check_problem(&p);
    /* pix2pix_dec1's kind: 8 x 8 planes, stride 2, a span of 1 (rows of 9,
     * or 16 as octets); 1-D rows of 68 outputs, kept in octets (one row an
     * image) */
    const int64_t tight_before = tight_phases, octet_before = octet_phases;
    p = convt_problem_default(2);
    p.n = 2, p.cin = p.cout = 1, p.in[0] = p.in[1] = 8, p.k[0] = p.k[1] = 4;
    p.stride[0] = p.stride[1] = 2, p.pad[0] = p.pad[1] = 1;
    check_problem(&p);
    assert_int_equal(tight_phases - tight_before, 2 * 4);
    p = convt_problem_default(1);
    p.n = 1, p.cin = p.cout = 1, p.in[0] = 66, p.k[0] = 3;
    check_problem(&p);
    assert_int_equal(octet_phases - octet_before, 2);
    /* music_k4_s2_short's kind: 1-D, rows of 16 + 1 (24 as octets), kept in
     * octets: one row an image */
    p.n = 4, p.in[0] = 16, p.k[0] = 4, p.stride[0] = 2, p.pad[0] = 1;
    check_problem(&p);
    assert_int_equal(octet_phases - octet_before, 2 + 2 * 2);
    /* kb61's kind (session 49): 3-D, rows of 66 outputs and a span of 2, 68
     * tight or 80 as octets (lead 6), 18% longer: tight; a 2-D layer's rows
     * of 96 + 2, 104 as octets, 6% longer: kept in octets */
    p = convt_problem_default(3);
    p.n = 1, p.cin = p.cout = 1, p.in[0] = 3, p.in[1] = 5, p.in[2] = 64;
    p.k[0] = p.k[1] = p.k[2] = 3;
    check_problem(&p);
    assert_int_equal(tight_phases - tight_before, 2 * 4 + 2);
    p = convt_problem_default(2);
    p.n = 1, p.cin = p.cout = 1, p.in[0] = 4, p.in[1] = 94, p.k[0] = p.k[1] = 3;
    check_problem(&p);
    assert_int_equal(octet_phases - octet_before, 2 + 2 * 2 + 2);
    /* the line itself: rows of 78 + 2, 88 as octets, exactly a tenth
     * longer: tight; 79 + 2: octets */
    p.in[1] = 76;
    check_problem(&p);
    assert_int_equal(tight_phases - tight_before, 2 * 4 + 2 + 2);
    p.in[1] = 77;
    check_problem(&p);
    assert_int_equal(octet_phases - octet_before, 2 + 2 * 2 + 2 + 2);
    /* rows shorter than 32 keep the third: 23 + 2, 32 as octets (28%
     * longer): octets; 22 + 2, exactly a third: tight */
    p.in[1] = 21;
    check_problem(&p);
    assert_int_equal(octet_phases - octet_before, 2 + 2 * 2 + 2 + 2 + 2);
    p.in[1] = 20;
    check_problem(&p);
    assert_int_equal(tight_phases - tight_before, 2 * 4 + 2 + 2 + 2);
    /* and where the lines part: 30 + 2, 40 as octets (a quarter longer):
     * tight by the tenth; 29 + 2 (29% longer): octets by the third */
    p.in[1] = 28;
    check_problem(&p);
    assert_int_equal(tight_phases - tight_before, 2 * 4 + 2 + 2 + 2 + 2);
    p.in[1] = 27;
    check_problem(&p);
    assert_int_equal(octet_phases - octet_before, 2 + 2 * 2 + 2 + 2 + 2 + 2);
    fprintf(stderr, "phases laid out: %lld in tight rows, %lld in octet rows\n",
            (long long)tight_phases, (long long)octet_phases);
    assert_true(tight_phases > 100 && octet_phases > 100);
}

/* A layout of 2^31 positions or more is refused, though the plan (whose
 * phases count outputs only) fits: rows of 1000 outputs and a span of 999. */
static void a_layout_past_2_31_is_refused(void **state)
{
    (void)state;
    convt_problem p = convt_problem_default(1);
    p.n = 1100000, p.cin = p.cout = 1, p.in[0] = 2, p.k[0] = 999;
    convt_phase_plan pl;
    char why[256];
    assert_int_equal(convt_phase_plan_make(&p, 64, &pl, why, sizeof why), 0);
    convt_phase_tap_row *rows;
    int *row_begin;
    assert_int_equal(convt_phase_plan_rows(&pl, 0, &rows, &row_begin), 0);
    convt_wg_flat fl;
    for (int mode = CONVT_WG_ROWS_AUTO; mode <= CONVT_WG_ROWS_TIGHT; mode++)
        assert_int_equal(convt_wg_flat_make(&p, &pl, rows, row_begin, 0, (convt_wg_rows)mode, &fl), -1);
    free(rows);
    free(row_begin);
    convt_phase_plan_free(&pl);
}

static void segmented_rows_store_every_output_once(void **state)
{
    (void)state;
    convt_random_spec spec = {.dims_mask = 2, .max_output_elems = 6000, .max_channels = 4};
    int64_t caught = 0;
    for (int i = 0; i < 150; i++) {
        convt_problem p = convt_random_problem(93, (uint64_t)i, &spec);
        assert_int_equal(p.dims, 2);
        for (int seg = 8; seg <= 40; seg += 16)
            caught += check_problem_seg(&p, seg);
    }
    /* kb57's kind, small: rows of 66 outputs in segments of 16, 3 x 3 taps */
    convt_problem p = convt_problem_default(2);
    p.n = 2, p.cin = p.cout = 1, p.in[0] = 9, p.in[1] = 64, p.k[0] = p.k[1] = 3;
    caught += check_problem_seg(&p, 16);
    assert_true(caught > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(every_phase_lays_out_flat),
                                       cmocka_unit_test(a_layout_past_2_31_is_refused),
                                       cmocka_unit_test(segmented_rows_store_every_output_once)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
