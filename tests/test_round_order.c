/* The timing rounds' order (src/tool/round_order.h): for every list length
 * and round count, each round runs every launch exactly once; round 0 runs
 * the list in its order (measure.prune reads that round); every launch runs
 * among the first ceil(n / rounds) positions of some round and among the
 * last ceil(n / rounds) of another, so none is always timed right after
 * the pause between rounds or always last; where rounds divides n, each
 * launch takes each 1/rounds of the positions exactly once. The driver's
 * order before session 48, the same in every round, is planted and must
 * fail the spread. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdbool.h>

#include "round_order.h"

enum { MAX_N = 300, MAX_ROUNDS = 8 };

typedef int (*order_fn)(int j, int round, int n, int rounds);

static int fixed_order(int j, int round, int n, int rounds)
{
    (void)round, (void)n, (void)rounds;
    return j;
}

/* Whether `order` runs each round as a permutation starting, in round 0,
 * with the list's order (asserted), and spreads every launch over the
 * rounds as the header says (returned, so that a planted order can fail). */
static bool spreads(order_fn order, int n, int rounds)
{
    const int bin = (n + rounds - 1) / rounds;
    int pos[MAX_ROUNDS][MAX_N];
    for (int r = 0; r < rounds; r++) {
        bool seen[MAX_N] = {false};
        for (int j = 0; j < n; j++) {
            const int i = order(j, r, n, rounds);
            assert_in_range(i, 0, n - 1);
            assert_false(seen[i]);
            seen[i] = true;
            pos[r][i] = j;
            if (r == 0)
                assert_int_equal(i, j);
        }
    }
    for (int i = 0; i < n; i++) {
        bool early = false, late = false;
        int bins[MAX_ROUNDS] = {0};
        for (int r = 0; r < rounds; r++) {
            early |= pos[r][i] < bin;
            late |= pos[r][i] >= n - bin;
            bins[pos[r][i] / bin]++;
        }
        if (!early || !late)
            return false;
        for (int b = 0; n % rounds == 0 && b < rounds; b++)
            if (bins[b] != 1)
                return false;
    }
    return true;
}

static void each_round_is_a_permutation_and_spreads_every_launch(void **state)
{
    (void)state;
    for (int n = 1; n <= MAX_N; n++)
        for (int rounds = 1; rounds <= MAX_ROUNDS; rounds++)
            if (!spreads(convt_round_entry, n, rounds))
                fail_msg("n = %d launches over %d rounds: some launch is never early or never late", n,
                         rounds);
}

static void the_fixed_order_fails_the_spread(void **state)
{
    (void)state;
    /* one round (or one launch) cannot spread anything: both orders pass */
    assert_true(spreads(fixed_order, 12, 1));
    assert_true(spreads(fixed_order, 1, 4));
    /* wherever a round's first and last ceil(n / rounds) positions do not
     * overlap, the fixed order keeps launch 0 early and never late */
    for (int n = 2; n <= 40; n++)
        for (int rounds = 2; rounds <= MAX_ROUNDS; rounds++)
            if (n >= 2 * ((n + rounds - 1) / rounds))
                assert_false(spreads(fixed_order, n, rounds));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(each_round_is_a_permutation_and_spreads_every_launch),
        cmocka_unit_test(the_fixed_order_fails_the_spread),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
