/* Split-K's cut of a tile's K walk (src/lib/split_k.h): for every walk of
 * 0 to 300 stages and every ksplit from 1 to the most, the parts take every
 * stage exactly once, in order, and differ in length by one at most; and
 * the (tap row, first channel) a part starts at is where the kernels' walk
 * (channel chunks of bk, then the next row) stands at that stage.
 *
 * The blocks' work list (convt_split_plan), on random tile lists (empty
 * tiles among them) and block counts: every stage of every tile is taken
 * exactly once; parts reproduce the walk the kernels computed themselves
 * before the list; stream-K gives every block the same share of the
 * stages to one stage, in at most two partial segments a block, in the
 * list's order; balance cuts only the tiles longer than the even share,
 * into parts of at most it, and no block passes twice the share. A
 * planted fault (a stage dropped) is caught by the same check. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "hostdevice.h"
#include "split_k.h"

static void parts_take_every_stage_once(void **state)
{
    (void)state;
    for (int ktiles = 0; ktiles <= 300; ktiles++)
        for (int ksplit = 1; ksplit <= CONVT_SPLIT_K_MAX; ksplit++) {
            assert_int_equal(convt_split_begin(ktiles, ksplit, 0), 0);
            assert_int_equal(convt_split_begin(ktiles, ksplit, ksplit), ktiles);
            int shortest = ktiles, longest = 0;
            for (int part = 0; part < ksplit; part++) {
                const int b = convt_split_begin(ktiles, ksplit, part);
                const int e = convt_split_begin(ktiles, ksplit, part + 1);
                assert_true(b <= e); /* in order, none overlapping the next */
                shortest = e - b < shortest ? e - b : shortest;
                longest = e - b > longest ? e - b : longest;
            }
            assert_true(longest - shortest <= 1);
        }
}

static void a_part_starts_where_the_walk_stands(void **state)
{
    (void)state;
    const int bks[] = {16, 32};
    for (int b = 0; b < 2; b++)
        for (int cin_g = 1; cin_g <= 100; cin_g += 3) {
            const int bk = bks[b], chunks = (cin_g + bk - 1) / bk;
            /* the kernels' walk: ci0 += bk, past cin_g the next row */
            int row = 0, ci0 = 0;
            for (int kt = 0; kt < 40; kt++) {
                int r, c;
                convt_split_stage(kt, chunks, bk, &r, &c);
                assert_int_equal(r, row);
                assert_int_equal(c, ci0);
                ci0 += bk;
                if (ci0 >= cin_g) {
                    ci0 = 0;
                    row++;
                }
            }
        }
}


/* 0 when the list takes every stage of every tile exactly once, each
 * segment non-empty, `whole` exactly where it is the tile's whole walk,
 * begin[] in order from 0 to n; else the first rule broken (1 to 5). */
static int takes_every_stage_once(const int *stages, int tiles, int blocks,
                                  const convt_split_segment *seg, const int *begin, int n)
{
    if (begin[0] != 0 || begin[blocks] != n)
        return 1;
    for (int b = 0; b < blocks; b++)
        if (begin[b] > begin[b + 1])
            return 1;
    int64_t total = 0;
    for (int t = 0; t < tiles; t++)
        total += stages[t];
    unsigned char *seen = calloc((size_t)(total ? total : 1), 1);
    int64_t *first = calloc((size_t)tiles + 1, sizeof *first); /* each tile's first stage in seen */
    for (int t = 0; t < tiles; t++)
        first[t + 1] = first[t] + stages[t];
    int rc = 0;
    for (int i = 0; i < n && !rc; i++) {
        const convt_split_segment g = seg[i];
        if (g.tile < 0 || g.tile >= tiles || g.kt0 < 0 || g.kt0 >= g.kt1 || g.kt1 > stages[g.tile])
            rc = 2;
        else if (g.whole != (g.kt0 == 0 && g.kt1 == stages[g.tile]))
            rc = 3;
        else
            for (int kt = g.kt0; kt < g.kt1 && !rc; kt++)
                if (seen[first[g.tile] + kt]++)
                    rc = 4;
    }
    for (int64_t s = 0; s < total && !rc; s++)
        if (!seen[s])
            rc = 5;
    free(seen);
    free(first);
    return rc;
}

/* A random case: up to 600 tiles (walks of 0 to max_stages stages, a
 * quarter empty) and 1 to 140 blocks, and its work list cut by ksplit
 * (n: the segments' count, -1 if refused). */
typedef struct plan_case {
    int tiles, blocks, ksplit, n;
    int stages[600];
    convt_split_segment *seg;
    int *begin;
} plan_case;

static void plan_random(plan_case *c, uint64_t *rng, int ksplit, int max_stages)
{
    c->tiles = (int)convt_next_in(rng, 0, 600);
    c->blocks = (int)convt_next_in(rng, 1, 140);
    c->ksplit = ksplit;
    for (int t = 0; t < c->tiles; t++)
        c->stages[t] = convt_next_in(rng, 0, 3) == 0 ? 0 : (int)convt_next_in(rng, 1, max_stages);
    const int64_t cap = convt_split_segments_max(c->tiles, c->blocks, ksplit);
    c->seg = malloc((size_t)(cap ? cap : 1) * sizeof *c->seg);
    c->begin = malloc(((size_t)c->blocks + 1) * sizeof *c->begin);
    c->n = convt_split_plan(c->stages, c->tiles, c->blocks, ksplit, c->seg, c->begin);
    assert_true(c->n >= 0 && c->n <= cap);
}

static void plan_free(plan_case *c)
{
    free(c->seg);
    free(c->begin);
}

static void work_list_takes_every_stage_once(void **state)
{
    (void)state;
    uint64_t rng = 2028;
    static plan_case c;
    for (int trial = 0; trial < 400; trial++) {
        plan_random(&c, &rng,
                    trial % 3 == 1   ? CONVT_SPLIT_STREAM
                    : trial % 3 == 2 ? CONVT_SPLIT_BALANCE
                                     : (int)convt_next_in(&rng, 2, CONVT_SPLIT_K_MAX),
                    70);
        assert_int_equal(takes_every_stage_once(c.stages, c.tiles, c.blocks, c.seg, c.begin, c.n), 0);
        if (c.n > 0) { /* planted: the last segment's last stage dropped is caught */
            convt_split_segment *last = &c.seg[c.n - 1];
            if (last->kt1 - last->kt0 > 1) {
                last->kt1--;
                last->whole = 0;
            } else { /* the segment dropped from its block and the (empty) ones after */
                c.n--;
                for (int b = 0; b <= c.blocks; b++)
                    c.begin[b] = c.begin[b] > c.n ? c.n : c.begin[b];
            }
            assert_int_equal(takes_every_stage_once(c.stages, c.tiles, c.blocks, c.seg, c.begin, c.n), 5);
        }
        plan_free(&c);
    }
}

/* ksplit >= 2: block b's segments are, in order, the parts the kernels
 * walked before the list: entries L = b, b + blocks, ... of the tiles x
 * ksplit parts, tile L % tiles, part L / tiles, empty ones skipped. */
static void parts_are_the_kernels_former_walk(void **state)
{
    (void)state;
    uint64_t rng = 7;
    static plan_case c;
    for (int trial = 0; trial < 200; trial++) {
        plan_random(&c, &rng, (int)convt_next_in(&rng, 2, CONVT_SPLIT_K_MAX), 40);
        for (int b = 0; b < c.blocks; b++) {
            int i = c.begin[b];
            for (int L = b; L < c.tiles * c.ksplit; L += c.blocks) {
                const int t = L % c.tiles;
                const int kt0 = convt_split_begin(c.stages[t], c.ksplit, L / c.tiles);
                const int kt1 = convt_split_begin(c.stages[t], c.ksplit, L / c.tiles + 1);
                if (kt1 == kt0)
                    continue;
                assert_true(i < c.begin[b + 1]);
                assert_int_equal(c.seg[i].tile, t);
                assert_int_equal(c.seg[i].kt0, kt0);
                assert_int_equal(c.seg[i].kt1, kt1);
                i++;
            }
            assert_int_equal(i, c.begin[b + 1]);
        }
        plan_free(&c);
    }
}

/* Stream-K: every block's share of the stages is the same to one stage,
 * in at most two partial segments (its stretch's ends), and the blocks'
 * stretches follow the list's order. */
static void stream_shares_the_stages_evenly(void **state)
{
    (void)state;
    uint64_t rng = 99;
    static plan_case c;
    for (int trial = 0; trial < 300; trial++) {
        plan_random(&c, &rng, CONVT_SPLIT_STREAM, 90);
        int64_t lo = INT64_MAX, hi = 0;
        for (int b = 0; b < c.blocks; b++) {
            int64_t share = 0;
            int partial = 0;
            for (int i = c.begin[b]; i < c.begin[b + 1]; i++) {
                share += c.seg[i].kt1 - c.seg[i].kt0;
                partial += !c.seg[i].whole;
            }
            assert_true(partial <= 2);
            lo = share < lo ? share : lo;
            hi = share > hi ? share : hi;
        }
        assert_true(hi - lo <= 1);
        for (int i = 1; i < c.n; i++) /* in the list's order: tile, then stage */
            assert_true(c.seg[i].tile > c.seg[i - 1].tile ||
                        (c.seg[i].tile == c.seg[i - 1].tile && c.seg[i].kt0 == c.seg[i - 1].kt1));
        plan_free(&c);
    }
}

/* Balance: a tile no longer than the even share stays whole (stored, no
 * atomic add); a longer one is cut into the fewest parts of at most the
 * share, equal to a stage; no block's load passes the even share by more
 * than its last item, so none passes twice the share; every block's items
 * are in the order given, the longest first. */
static void balance_cuts_only_the_long_tiles(void **state)
{
    (void)state;
    uint64_t rng = 35;
    static plan_case c;
    for (int trial = 0; trial < 300; trial++) {
        plan_random(&c, &rng, CONVT_SPLIT_BALANCE, trial % 2 ? 8 : 200);
        int64_t total = 0;
        for (int t = 0; t < c.tiles; t++)
            total += c.stages[t];
        const int64_t share = convt_split_share(total, c.blocks);
        int parts[600] = {0};
        for (int i = 0; i < c.n; i++) {
            const int len = c.seg[i].kt1 - c.seg[i].kt0, t = c.seg[i].tile;
            assert_true(len <= share);
            parts[t]++;
        }
        for (int t = 0; t < c.tiles; t++) {
            const int want = (int)((c.stages[t] + share - 1) / share);
            assert_int_equal(parts[t], want);
        }
        for (int i = 0; i < c.n; i++) {
            const int t = c.seg[i].tile, len = c.seg[i].kt1 - c.seg[i].kt0;
            assert_int_equal(c.seg[i].whole, c.stages[t] <= share);
            /* equal to a stage: the tile's parts are convt_split_begin's */
            assert_true(len >= c.stages[t] / parts[t] && len <= (c.stages[t] + parts[t] - 1) / parts[t]);
        }
        for (int b = 0; b < c.blocks; b++) {
            int64_t load = 0;
            for (int i = c.begin[b]; i < c.begin[b + 1]; i++) {
                if (i > c.begin[b]) /* the longest first */
                    assert_true(c.seg[i].kt1 - c.seg[i].kt0 <= c.seg[i - 1].kt1 - c.seg[i - 1].kt0);
                load += c.seg[i].kt1 - c.seg[i].kt0;
            }
            if (c.begin[b + 1] > c.begin[b]) {
                const int last = c.seg[c.begin[b + 1] - 1].kt1 - c.seg[c.begin[b + 1] - 1].kt0;
                assert_true((load - last) * c.blocks <= total); /* given its last while least loaded */
            }
            assert_true(load <= 2 * share);
        }
        plan_free(&c);
    }
}

/* The case it is for: 3-D k 3 at stride 2 has phases of 8, 4, 4, 4, 2, 2,
 * 2 and 1 taps. 21 tiles a phase (168 in all) on 132 blocks, 4 channel
 * chunks a tap: whole tiles in rounds leave a block 32 + 32 stages where
 * the even share is 18; balanced, the 8-tap tiles are cut in two, and no
 * block passes 2 x 18. */
static void balance_evens_phases_of_unequal_taps(void **state)
{
    (void)state;
    const int taps[8] = {8, 4, 4, 4, 2, 2, 2, 1};
    static int stages[168], begin[133];
    static convt_split_segment seg[168 + 132];
    int64_t total = 0;
    for (int t = 0; t < 168; t++)
        total += stages[t] = taps[t % 8] * 4; /* the tile list cycles through the phases */
    const int n = convt_split_plan(stages, 168, 132, CONVT_SPLIT_BALANCE, seg, begin);
    assert_int_equal(takes_every_stage_once(stages, 168, 132, seg, begin, n), 0);
    const int64_t share = convt_split_share(total, 132);
    assert_int_equal(share, 18);
    int64_t worst = 0;
    int whole = 0;
    for (int b = 0; b < 132; b++) {
        int64_t load = 0;
        for (int i = begin[b]; i < begin[b + 1]; i++)
            load += seg[i].kt1 - seg[i].kt0;
        worst = load > worst ? load : worst;
    }
    for (int i = 0; i < n; i++)
        whole += seg[i].whole;
    assert_true(worst <= 2 * share);
    assert_int_equal(whole, 168 - 21); /* only the 21 tiles of 32 stages cut */
    assert_int_equal(n, 168 + 21);
}

static void work_list_refuses_what_it_cannot_cut(void **state)
{
    (void)state;
    int stages[3] = {4, 0, 2}, begin[3];
    convt_split_segment seg[16];
    assert_int_equal(convt_split_plan(stages, 3, 2, 1, seg, begin), -1);
    assert_int_equal(convt_split_plan(stages, 3, 2, CONVT_SPLIT_K_MAX + 1, seg, begin), -1);
    assert_int_equal(convt_split_plan(stages, 3, 0, 2, seg, begin), -1);
    stages[1] = -1;
    assert_int_equal(convt_split_plan(stages, 3, 2, CONVT_SPLIT_STREAM, seg, begin), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(parts_take_every_stage_once),
        cmocka_unit_test(a_part_starts_where_the_walk_stands),
        cmocka_unit_test(work_list_takes_every_stage_once),
        cmocka_unit_test(parts_are_the_kernels_former_walk),
        cmocka_unit_test(stream_shares_the_stages_evenly),
        cmocka_unit_test(balance_cuts_only_the_long_tiles),
        cmocka_unit_test(balance_evens_phases_of_unequal_taps),
        cmocka_unit_test(work_list_refuses_what_it_cannot_cut),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
