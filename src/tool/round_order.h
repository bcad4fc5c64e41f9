/* The order in which a shape's launches take a timing round (driver.c,
 * time_rounds): the launches still being timed, round r starting r/rounds
 * of the way along them and wrapping, so that over its rounds each launch
 * runs near a round's start and near its end, as every other launch of
 * the shape does. The rotation counts only the launches still timed: those
 * refused, failed or pruned come in long blocks by variant, and rotating
 * over them too would move the timed ones by uneven steps (a helper's
 * review, session 48: 1058 of 3057 timed launches of that session's
 * sweeps never both early and late, 128 with the rotation over the live
 * ones, the rest from pruning after round 0).
 *
 * Why: the rounds are seconds apart (the buffers move to new memory
 * between them), and a GPU that is power-limited runs the first launches
 * after that pause at a higher clock than the last. On an H200 (session
 * 48, kb69) the first launches of a shape's rounds ran at 1815-1980 MHz and
 * the later ones at 1710-1845, every sample throttled: in one fixed order
 * the variants listed first (the own ones, before cudnn_*) were timed
 * cooler than those listed last. Round 0 keeps the list's order, so
 * measure.prune, which reads round 0, sees what it saw before. */
#ifndef CONVT_SRC_ROUND_ORDER_H
#define CONVT_SRC_ROUND_ORDER_H

#include <stdbool.h>
#include <stdint.h>

/* The entry that runs at position j (0 <= j < n) of round `round`
 * (0 <= round < rounds) of a list of n: a permutation of 0 .. n - 1 for
 * each round. */
static inline int convt_round_entry(int j, int round, int n, int rounds)
{
    const int64_t start = rounds > 0 ? (int64_t)round * n / rounds : 0;
    return (int)(((int64_t)j + start) % n);
}

/* Round `round`'s order of the entries of 0 .. n - 1 whose timed[i] is
 * set, into order[] (room for n): the rotation above over those alone.
 * Returns how many. */
static inline int convt_round_order(const bool *timed, int n, int round, int rounds, int *order)
{
    int m = 0;
    for (int i = 0; i < n; i++)
        m += timed[i];
    if (m == 0)
        return 0;
    /* the k-th live entry runs at the position j whose convt_round_entry is k */
    const int start = convt_round_entry(0, round, m, rounds);
    for (int i = 0, k = 0; i < n; i++)
        if (timed[i])
            order[(k++ + m - start) % m] = i;
    return m;
}

#endif
