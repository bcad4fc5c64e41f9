/* The polyphase phase plan (src/lib/polyphase_plan.h) on the host, over 400
 * random shapes of every parameter: every output position lies in exactly
 * one phase (kept, or left out as receiving no tap), at the q its residue
 * gives; every (output, tap) pair that contributes (convt_gather_src finds
 * an input in range) is listed exactly once in that output's phase, at the
 * offset that reads that input; the tap rows partition each phase's taps
 * (check_rows); every listed tap of a phase reaches its
 * outputs; and no output of a left-out phase has a contributing pair. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>

#include "polyphase_plan.h"
#include "shape_random.h"
#include "stride_phase.h"

/* The kept phase of residues ph, or NULL when it was left out. */
static const convt_phase_desc *phase_of(const convt_phase_plan *pl, const int64_t ph[3])
{
    const convt_phase_desc *hit = NULL;
    for (int i = 0; i < pl->nphases; i++) {
        const convt_phase_desc *d = &pl->phases[i];
        if (d->ph[0] == ph[0] && d->ph[1] == ph[1] && d->ph[2] == ph[2]) {
            assert_null(hit); /* exactly one */
            hit = d;
        }
    }
    return hit;
}

/* The tap rows (plane 0) and planes (plane 1) partition each phase's taps
 * in order: every tap of a row shares its offsets along dimensions 0 and 1
 * (a plane's, along dimension 0, its off[1] within off1_min .. off[1]),
 * its off[2] within the row's range, and two rows next to each other never
 * share what their taps share. */
static void check_rows_of(const convt_phase_plan *pl, int plane)
{
    convt_phase_tap_row *rows;
    int *row_begin;
    assert_int_equal(convt_phase_plan_rows(pl, plane, &rows, &row_begin), 0);
    for (int i = 0; i < pl->nphases; i++) {
        const convt_phase_desc *d = &pl->phases[i];
        int next = d->tap_begin;
        for (int r = row_begin[i]; r < row_begin[i + 1]; r++) {
            const convt_phase_tap_row *row = &rows[r];
            assert_int_equal(row->tap_begin, next);
            assert_true(row->ntaps >= 1);
            int lo = row->off2_max, hi = row->off2_min, lo1 = row->off[1], hi1 = row->off1_min;
            for (int t = row->tap_begin; t < row->tap_begin + row->ntaps; t++) {
                assert_int_equal(pl->taps[t].off[0], row->off[0]);
                if (!plane)
                    assert_int_equal(pl->taps[t].off[1], row->off[1]);
                lo = pl->taps[t].off[2] < lo ? pl->taps[t].off[2] : lo;
                hi = pl->taps[t].off[2] > hi ? pl->taps[t].off[2] : hi;
                lo1 = pl->taps[t].off[1] < lo1 ? pl->taps[t].off[1] : lo1;
                hi1 = pl->taps[t].off[1] > hi1 ? pl->taps[t].off[1] : hi1;
            }
            assert_int_equal(lo, row->off2_min);
            assert_int_equal(hi, row->off2_max);
            assert_int_equal(lo1, row->off1_min);
            assert_int_equal(hi1, row->off[1]);
            if (r > row_begin[i])
                assert_false(rows[r - 1].off[0] == row->off[0] &&
                             (plane || rows[r - 1].off[1] == row->off[1]));
            next += row->ntaps;
        }
        assert_int_equal(next, d->tap_begin + d->ntaps);
    }
    int listed = 0;
    for (int r = 0; r < row_begin[pl->nphases]; r++)
        listed += rows[r].ntaps;
    assert_int_equal(listed, pl->ntaps_total);
    free(rows);
    free(row_begin);
}

static void check_rows(const convt_phase_plan *pl)
{
    check_rows_of(pl, 0);
    check_rows_of(pl, 1);
}

static void check_plan(const convt_problem *p)
{
    convt_phase_plan pl;
    char why[256];
    assert_int_equal(convt_phase_plan_make(p, 64, &pl, why, sizeof why), 0);
    convt_shape3 s = convt_problem_as_3d(p);
    int64_t covered = 0;
    for (int i = 0; i < pl.nphases; i++)
        covered += pl.phases[i].m_count;
    int64_t in_dropped = 0;
    for (int64_t o0 = 0; o0 < s.out[0]; o0++)
        for (int64_t o1 = 0; o1 < s.out[1]; o1++)
            for (int64_t o2 = 0; o2 < s.out[2]; o2++) {
                int64_t o[3] = {o0, o1, o2}, ph[3], q[3];
                for (int d = 0; d < 3; d++) {
                    ph[d] = (o[d] + s.pad[d]) % s.stride[d];
                    q[d] = (o[d] + s.pad[d] - ph[d]) / s.stride[d];
                }
                const convt_phase_desc *d = phase_of(&pl, ph);
                if (d)
                    for (int k = 0; k < 3; k++) {
                        assert_true(q[k] >= d->q_min[k]);
                        assert_true(q[k] < d->q_min[k] + d->q_count[k]);
                    }
                else
                    in_dropped++;
                for (int64_t k0 = 0; k0 < s.k[0]; k0++)
                    for (int64_t k1 = 0; k1 < s.k[1]; k1++)
                        for (int64_t k2 = 0; k2 < s.k[2]; k2++) {
                            int64_t k[3] = {k0, k1, k2}, i[3];
                            bool contributes = true;
                            for (int dd = 0; dd < 3; dd++) {
                                i[dd] = convt_gather_src(o[dd], k[dd], s.stride[dd], s.pad[dd],
                                                         s.dil[dd], s.in[dd]);
                                contributes &= i[dd] >= 0;
                            }
                            int lin = (int)((k0 * s.k[1] + k1) * s.k[2] + k2), listed = 0;
                            for (int t = 0; d && t < d->ntaps; t++) {
                                const convt_phase_tap *tap = &pl.taps[d->tap_begin + t];
                                if (tap->lin != lin)
                                    continue;
                                listed++;
                                /* the input the plan reads is q - off: when all
                                 * three are in range it must be the gather's */
                                bool in_range = true;
                                for (int dd = 0; dd < 3; dd++)
                                    in_range &= q[dd] - tap->off[dd] >= 0 &&
                                                q[dd] - tap->off[dd] < s.in[dd];
                                assert_int_equal(in_range, contributes);
                                for (int dd = 0; dd < 3 && contributes; dd++)
                                    assert_int_equal(q[dd] - tap->off[dd], i[dd]);
                            }
                            if (contributes)
                                assert_int_equal(listed, 1);
                            assert_true(listed <= 1);
                        }
            }
    /* every output once: in a kept phase's rows, or in a left-out phase */
    assert_int_equal(covered + p->n * in_dropped, p->n * s.out[0] * s.out[1] * s.out[2]);
    assert_int_equal(pl.prefill, in_dropped > 0);
    check_rows(&pl);
    convt_phase_plan_free(&pl);
}

static void every_pair_lands_in_one_phase(void **state)
{
    (void)state;
    convt_random_spec spec = {.dims_mask = 7, .max_output_elems = 6000, .max_channels = 4};
    for (int i = 0; i < 400; i++) {
        convt_problem p = convt_random_problem(77, (uint64_t)i, &spec);
        check_plan(&p);
    }
    /* the KernelBench kinds that leave phases out: kb77's and kb81's strides */
    convt_problem p = convt_problem_default(2);
    p.n = 1, p.cin = p.cout = 1, p.in[0] = 7, p.in[1] = 9, p.k[0] = p.k[1] = 3;
    p.stride[0] = 5, p.stride[1] = 2, p.dil[0] = 2, p.pad[0] = 1;
    check_plan(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(every_pair_lands_in_one_phase)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
