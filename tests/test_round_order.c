/* The timing rounds' order (src/tool/round_order.h). For every list
 * length and round count, and for lists whose launches are partly no
 * longer timed (refused, failed, pruned: in blocks by variant), each round
 * runs every timed launch exactly once and no other; round 0 runs them in
 * the list's order (measure.prune reads that round); every timed launch
 * runs among the first ceil(m / rounds) positions of some round and among
 * the last ceil(m / rounds) of another (m timed), so none is always timed
 * right after the pause between rounds or always last; where all are
 * timed and rounds divides m, each launch takes each 1/rounds of the
 * positions exactly once. Planted and failing: the driver's order before
 * session 48 (the same in every round) and this session's first rotation
 * (over the whole list, the untimed skipped). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdbool.h>
#include <stdlib.h>

#include "round_order.h"

enum { MAX_N = 300, MAX_ROUNDS = 8 };

/* Round r's order of the timed launches into order[]; returns how many. */
typedef int (*order_fn)(const bool *timed, int n, int r, int rounds, int *order);

static int fixed_order(const bool *timed, int n, int r, int rounds, int *order)
{
    (void)r, (void)rounds;
    int m = 0;
    for (int i = 0; i < n; i++)
        if (timed[i])
            order[m++] = i;
    return m;
}

static int whole_list_rotation(const bool *timed, int n, int r, int rounds, int *order)
{
    int m = 0;
    for (int j = 0; j < n; j++) {
        const int i = convt_round_entry(j, r, n, rounds);
        if (timed[i])
            order[m++] = i;
    }
    return m;
}

/* Whether `order` spreads every timed launch over the rounds as the header
 * says (returned, so that a planted order can fail); asserts that each
 * round visits every timed launch once, none other, round 0 in the list's
 * order. */
static bool spreads(order_fn order_of, const bool *timed, int n, int rounds)
{
    int m0 = 0;
    for (int i = 0; i < n; i++)
        m0 += timed[i];
    const int bin = m0 > 0 ? (m0 + rounds - 1) / rounds : 1;
    static int pos[MAX_ROUNDS][MAX_N];
    for (int r = 0; r < rounds; r++) {
        int order[MAX_N];
        const int m = order_of(timed, n, r, rounds, order);
        assert_int_equal(m, m0);
        bool seen[MAX_N] = {false};
        for (int j = 0; j < m; j++) {
            const int i = order[j];
            assert_in_range(i, 0, n - 1);
            assert_true(timed[i]);
            assert_false(seen[i]);
            seen[i] = true;
            pos[r][i] = j;
            if (r == 0 && j > 0)
                assert_true(order[j - 1] < i);
        }
    }
    for (int i = 0; i < n; i++) {
        if (!timed[i])
            continue;
        bool early = false, late = false;
        int bins[MAX_ROUNDS] = {0};
        for (int r = 0; r < rounds; r++) {
            early |= pos[r][i] < bin;
            late |= pos[r][i] >= m0 - bin;
            bins[pos[r][i] / bin]++;
        }
        if (!early || !late)
            return false;
        for (int b = 0; m0 == n && m0 % rounds == 0 && b < rounds; b++)
            if (bins[b] != 1)
                return false;
    }
    return true;
}

static void each_round_is_a_permutation_and_spreads_every_launch(void **state)
{
    (void)state;
    bool all[MAX_N];
    for (int i = 0; i < MAX_N; i++)
        all[i] = true;
    for (int n = 1; n <= MAX_N; n++)
        for (int rounds = 1; rounds <= MAX_ROUNDS; rounds++)
            if (!spreads(convt_round_order, all, n, rounds))
                fail_msg("n = %d launches over %d rounds: some launch is never early or never late", n,
                         rounds);
}

static void the_fixed_order_fails_the_spread(void **state)
{
    (void)state;
    bool all[MAX_N];
    for (int i = 0; i < MAX_N; i++)
        all[i] = true;
    /* one round (or one launch) cannot spread anything: both orders pass */
    assert_true(spreads(fixed_order, all, 12, 1));
    assert_true(spreads(fixed_order, all, 1, 4));
    /* wherever a round's first and last ceil(n / rounds) positions do not
     * overlap, the fixed order keeps launch 0 early and never late */
    for (int n = 2; n <= 40; n++)
        for (int rounds = 2; rounds <= MAX_ROUNDS; rounds++)
            if (n >= 2 * ((n + rounds - 1) / rounds))
                assert_false(spreads(fixed_order, all, n, rounds));
}

static void the_timed_launches_alone_rotate(void **state)
{
    (void)state;
    srand(48);
    int planted_failed = 0;
    for (int trial = 0; trial < 3000; trial++) {
        const int n = 1 + rand() % MAX_N, rounds = 1 + rand() % MAX_ROUNDS;
        bool timed[MAX_N];
        /* blocks of timed and untimed launches, as variants refuse theirs */
        for (int i = 0; i < n;) {
            const int len = 1 + rand() % 24;
            const bool t = rand() % 5 < 2;
            for (int k = 0; k < len && i < n; k++, i++)
                timed[i] = t;
        }
        if (!spreads(convt_round_order, timed, n, rounds))
            fail_msg("trial %d: n = %d, %d rounds: a timed launch never early or never late", trial, n,
                     rounds);
        planted_failed += !spreads(whole_list_rotation, timed, n, rounds);
    }
    /* the rotation over the whole list misplaces some (the review's 1058 of 3057) */
    assert_true(planted_failed > 100);
    /* none timed: nothing to order */
    bool none[4] = {false, false, false, false};
    int order[4];
    assert_int_equal(convt_round_order(none, 4, 1, 4, order), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(each_round_is_a_permutation_and_spreads_every_launch),
        cmocka_unit_test(the_fixed_order_fails_the_spread),
        cmocka_unit_test(the_timed_launches_alone_rotate),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
