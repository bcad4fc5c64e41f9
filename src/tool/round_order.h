/* The order in which a shape's launches take a timing round (driver.c,
 * time_rounds): round r starts r/rounds of the way along the list and
 * wraps, so that over its rounds each launch runs near a round's start
 * and near its end, as every other launch of the shape does.
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

#include <stdint.h>

/* The entry that runs at position j (0 <= j < n) of round `round`
 * (0 <= round < rounds): a permutation of 0 .. n - 1 for each round. */
static inline int convt_round_entry(int j, int round, int n, int rounds)
{
    const int64_t start = rounds > 0 ? (int64_t)round * n / rounds : 0;
    return (int)(((int64_t)j + start) % n);
}

#endif
