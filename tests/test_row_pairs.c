/* Row pairs (src/lib/row_pairs.h, polyphase_wgmma_pair_tf32) on the host,
 * over random 2-D and 3-D shapes of every parameter, for every phase and
 * row mode:
 * - the steps: each warpgroup's tap rows each once, at the step whose
 *   input rows they read (warpgroup cw's row at the step's off[1] + cw),
 *   as convt_wg_pair_tap_begin and _ntaps give them to the kernel, its
 *   weight tiles (convt_wg_pair_weight_tile) after warpgroup 0's, the two
 *   together the stage's; on kb57's kind (stride 1, 3 x 3 taps) 4 steps
 *   where there are 3 tap rows;
 * - the layout: rows1 the pairs, the flat length to match;
 * - the outputs: each warpgroup's row of each pair (convt_wg_pair_row)
 *   stores the phase's outputs, each once over both;
 * - the reads: every tap of every step, from every stored output of its
 *   warpgroup, reads the staged position whose input, through the
 *   producer's map (the step's offsets applied to the pair's first row,
 *   staged column c at input c + c0), is the input the tap reads by its
 *   definition (q - off in each dimension); a producer that forgot to
 *   double the pair's row is caught.
 * The kernel calls these functions for its steps, layout, taps, weight
 * tiles and output rows; where its copies land and what its wgmma read
 * beyond that only the GPU checks see (configs/pair-check.json, test_gpu). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>

#include "polyphase_plan.h"
#include "row_pairs.h"
#include "shape_random.h"
#include "wgmma_flat.h"

/* Steps whose two warpgroups both have taps: the sharing, over the test. */
static int64_t shared_steps;

/* Each tap row of the phase is warpgroup cw's in exactly one step, at its
 * input offset. */
static void check_steps(const convt_phase_tap_row *rows, int rb, int re, const convt_wg_row_pair *pairs,
                        int pb, int pe)
{
    for (int cw = 0; cw < 2; cw++)
        for (int r = rb; r < re; r++) {
            int found = 0;
            for (int s = pb; s < pe; s++)
                if (convt_wg_pair_ntaps(&pairs[s], cw) > 0 &&
                    convt_wg_pair_tap_begin(&pairs[s], cw) == rows[r].tap_begin) {
                    found++;
                    assert_int_equal(convt_wg_pair_ntaps(&pairs[s], cw), rows[r].ntaps);
                    assert_int_equal(pairs[s].off[0], rows[r].off[0]);
                    assert_int_equal(pairs[s].off[1] + cw, rows[r].off[1]);
                }
            assert_int_equal(found, 1);
        }
    for (int s = pb; s < pe; s++) {
        assert_true(pairs[s].ntaps[0] > 0 || pairs[s].ntaps[1] > 0); /* no empty step */
        /* the stage's weight tiles: warpgroup 0's from 0, 1's right after */
        assert_int_equal(convt_wg_pair_weight_tile(&pairs[s], 0), 0);
        assert_int_equal(convt_wg_pair_weight_tile(&pairs[s], 1), convt_wg_pair_ntaps(&pairs[s], 0));
        shared_steps += pairs[s].ntaps[0] > 0 && pairs[s].ntaps[1] > 0;
    }
}

/* The layout's outputs and every step's reads; returns the reads that a
 * producer without the pair's doubled row would get wrong. */
static int64_t check_reads(const convt_phase_desc *d, const convt_wg_flat *fl, const convt_phase_plan *pl,
                           const convt_wg_row_pair *pairs, int64_t n)
{
    assert_int_equal(fl->rows1, (d->q_count[1] + 1) / 2);
    assert_int_equal(fl->flat, d->m_count ? n * d->q_count[0] * fl->rows1 * fl->pitch : 0);
    const int64_t outputs = n * d->q_count[0] * d->q_count[1] * d->q_count[2];
    char *seen = calloc((size_t)(outputs ? outputs : 1), 1);
    assert_non_null(seen);
    const int c0 = d->q_min[2] - fl->lead - fl->off2_max;
    int64_t planted_caught = 0;
    for (int f = 0; f < fl->flat; f++) {
        const convt_wg_cursor c = convt_wg_cursor_at(d, fl, f);
        for (int cw = 0; cw < 2; cw++) {
            const convt_wg_cursor o = convt_wg_pair_row(c, cw);
            const int q2 = o.col - fl->lead;
            if (!(o.n < n && q2 >= 0 && q2 < d->q_count[2] && o.q1 < d->q_count[1]))
                continue;
            const int64_t at = (((int64_t)o.n * d->q_count[0] + o.q0) * d->q_count[1] + o.q1) * d->q_count[2] + q2;
            assert_int_equal(seen[at], 0);
            seen[at] = 1;
            for (int s = fl->row_begin; s < fl->row_begin + fl->nrows; s++) {
                const convt_wg_row_pair *sp = &pairs[s];
                for (int t = sp->tap_begin[cw]; t < sp->tap_begin[cw] + sp->ntaps[cw]; t++) {
                    const int *off = pl->taps[t].off;
                    /* a tap row's shift: its columns alone */
                    const convt_phase_tap_row row = {.off = {off[0], off[1]}};
                    const int shift = convt_wg_tap_shift(fl, &row, off[1], off[2]);
                    assert_true(shift >= 0 && shift <= fl->shift_max);
                    const convt_wg_cursor st = convt_wg_cursor_at(d, fl, f + shift);
                    const convt_wg_cursor in = convt_wg_pair_row(st, 0); /* the staged rows: the pair's first */
                    assert_int_equal(st.n, o.n);
                    assert_int_equal(in.q0 + d->q_min[0] - sp->off[0], o.q0 + d->q_min[0] - off[0]);
                    assert_int_equal(in.q1 + d->q_min[1] - sp->off[1], o.q1 + d->q_min[1] - off[1]);
                    assert_int_equal(st.col + c0, q2 + d->q_min[2] - off[2]);
                    planted_caught += st.q1 + d->q_min[1] - sp->off[1] != o.q1 + d->q_min[1] - off[1];
                }
            }
        }
    }
    int64_t stored = 0;
    for (int64_t k = 0; k < outputs; k++)
        stored += seen[k];
    assert_int_equal(stored, d->m_count);
    free(seen);
    return planted_caught;
}

/* Every phase of p, in every row mode; returns check_reads' planted count. */
static int64_t check_problem(const convt_problem *p)
{
    convt_phase_plan pl;
    char why[256];
    assert_int_equal(convt_phase_plan_make(p, 64, &pl, why, sizeof why), 0);
    convt_phase_tap_row *rows;
    int *row_begin;
    assert_int_equal(convt_phase_plan_rows(&pl, 0, &rows, &row_begin), 0);
    convt_wg_row_pair *pairs;
    int *pair_begin;
    assert_int_equal(convt_wg_row_pairs(&pl, rows, row_begin, &pairs, &pair_begin), 0);
    int64_t caught = 0;
    for (int i = 0; i < pl.nphases; i++) {
        check_steps(rows, row_begin[i], row_begin[i + 1], pairs, pair_begin[i], pair_begin[i + 1]);
        for (int mode = CONVT_WG_ROWS_AUTO; mode <= CONVT_WG_ROWS_TIGHT; mode++) {
            convt_wg_flat fl;
            assert_int_equal(convt_wg_flat_make(p, &pl, rows, row_begin, i, (convt_wg_rows)mode, &fl), 0);
            assert_int_equal(convt_wg_flat_pair(&pl.phases[i], p->n, pair_begin[i],
                                                pair_begin[i + 1] - pair_begin[i], &fl), 0);
            caught += check_reads(&pl.phases[i], &fl, &pl, pairs, p->n);
        }
    }
    free(pairs);
    free(pair_begin);
    free(rows);
    free(row_begin);
    convt_phase_plan_free(&pl);
    return caught;
}

static void row_pairs_read_and_store_every_output(void **state)
{
    (void)state;
    convt_random_spec spec = {.dims_mask = 6, .max_output_elems = 6000, .max_channels = 4};
    int64_t caught = 0;
    for (int i = 0; i < 300; i++) {
        convt_problem p = convt_random_problem(97, (uint64_t)i, &spec);
        assert_true(p.dims >= 2);
        caught += check_problem(&p);
    }
    assert_true(caught > 0);
    assert_true(shared_steps > 100);
    fprintf(stderr, "row pairs: %lld steps shared by both warpgroups, %lld planted reads caught\n",
            (long long)shared_steps, (long long)caught);
}

/* kb57's kind, small: stride 1, 3 x 3 taps, an odd row count (the last
 * pair's second row computed, not stored): 4 steps, the middle two shared. */
static void kb57_kind_stages_four_rows_for_three_tap_rows(void **state)
{
    (void)state;
    convt_problem p = convt_problem_default(2);
    p.n = 2, p.cin = p.cout = 1, p.in[0] = 9, p.in[1] = 20, p.k[0] = p.k[1] = 3;
    convt_phase_plan pl;
    char why[256];
    assert_int_equal(convt_phase_plan_make(&p, 64, &pl, why, sizeof why), 0);
    assert_int_equal(pl.nphases, 1);
    convt_phase_tap_row *rows;
    int *row_begin;
    assert_int_equal(convt_phase_plan_rows(&pl, 0, &rows, &row_begin), 0);
    assert_int_equal(row_begin[1], 3);
    convt_wg_row_pair *pairs;
    int *pair_begin;
    assert_int_equal(convt_wg_row_pairs(&pl, rows, row_begin, &pairs, &pair_begin), 0);
    assert_int_equal(pair_begin[1], 4);
    assert_int_equal(pairs[0].ntaps[0], 0); /* the first step: warpgroup 1's alone */
    assert_int_equal(pairs[0].ntaps[1], 3);
    assert_int_equal(pairs[1].ntaps[0], 3);
    assert_int_equal(pairs[1].ntaps[1], 3);
    assert_int_equal(pairs[3].ntaps[1], 0); /* the last: warpgroup 0's alone */
    free(pairs);
    free(pair_begin);
    free(rows);
    free(row_begin);
    convt_phase_plan_free(&pl);
    assert_true(check_problem(&p) > 0);
    /* 3-D, dilation 2 along the paired dimension: no two tap rows 1
     * apart, so nothing is shared and every step is one warpgroup's */
    p = convt_problem_default(3);
    p.n = 1, p.cin = p.cout = 1, p.in[0] = 3, p.in[1] = 7, p.in[2] = 5;
    p.k[0] = p.k[1] = p.k[2] = 3, p.dil[1] = 2;
    const int64_t before = shared_steps;
    check_problem(&p);
    assert_int_equal(shared_steps, before);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(row_pairs_read_and_store_every_output),
        cmocka_unit_test(kb57_kind_stages_four_rows_for_three_tap_rows),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
