/* The split-K kernels' work list (split_k.h): which stretches of which
 * tiles' walks each persistent block takes. */
#include "split_k.h"

#include <stdlib.h>

int64_t convt_split_segments_max(int tiles, int blocks, int ksplit)
{
    if (tiles < 0 || blocks < 1)
        return 0;
    /* parts: one per (tile, part); stream: each tile once, and each of the
     * blocks - 1 cuts between the blocks' stretches makes one more;
     * balance: a tile of s stages makes ceil(s / share) <= s / share + 1
     * parts, and the stages over the share sum to at most blocks */
    return ksplit == CONVT_SPLIT_STREAM || ksplit == CONVT_SPLIT_BALANCE ? (int64_t)tiles + blocks
                                                                          : (int64_t)tiles * ksplit;
}

static int add_segment(convt_split_segment *seg, int n, int tile, int kt0, int kt1, int stages)
{
    seg[n].tile = tile;
    seg[n].kt0 = kt0;
    seg[n].kt1 = kt1;
    seg[n].whole = kt0 == 0 && kt1 == stages;
    return n + 1;
}

/* ksplit parts a tile, the list's entries round-robin over the blocks. */
static int plan_parts(const int *stages, int tiles, int blocks, int ksplit,
                      convt_split_segment *seg, int *begin)
{
    const int64_t entries = (int64_t)tiles * ksplit;
    int n = 0;
    for (int b = 0; b < blocks; b++) {
        begin[b] = n;
        for (int64_t L = b; L < entries; L += blocks) {
            const int t = (int)(L % tiles), part = (int)(L / tiles);
            const int kt0 = convt_split_begin(stages[t], ksplit, part);
            const int kt1 = convt_split_begin(stages[t], ksplit, part + 1);
            if (kt1 > kt0)
                n = add_segment(seg, n, t, kt0, kt1, stages[t]);
        }
    }
    begin[blocks] = n;
    return n;
}

/* Stream-K: every stage of the busy tiles, in the list's order, shared
 * evenly between the blocks, each a contiguous stretch that may cross
 * tiles (the host takes it for at most one round of tiles: past that the
 * output's prefill and the atomic adds cost more than the idle SMs, H100,
 * session 28). */
static int plan_stream(const int *stages, int tiles, int blocks, convt_split_segment *seg,
                       int *begin)
{
    int64_t total = 0;
    for (int t = 0; t < tiles; t++)
        total += stages[t];
    int n = 0;
    int t = 0, kt = 0; /* where the walk stands */
    for (int b = 0; b < blocks; b++) {
        begin[b] = n;
        /* the block's share: stages [s0, s1) of the walk */
        const int64_t s0 = total * b / blocks, s1 = total * (b + 1) / blocks;
        for (int64_t left = s1 - s0; left > 0;) {
            while (kt >= stages[t]) {
                t++;
                kt = 0;
            }
            const int take = (int)(stages[t] - kt < left ? stages[t] - kt : left);
            n = add_segment(seg, n, t, kt, kt + take, stages[t]);
            kt += take;
            left -= take;
        }
    }
    begin[blocks] = n;
    return n;
}

/* A whole tile or a part of one, before it has a block. */
typedef struct split_item {
    int tile, kt0, kt1;
} split_item;

/* Longest first; among equals, the list's order (the plan is the same on
 * every run). */
static int longest_first(const void *a, const void *b)
{
    const split_item *x = (const split_item *)a, *y = (const split_item *)b;
    const int lx = x->kt1 - x->kt0, ly = y->kt1 - y->kt0;
    if (lx != ly)
        return lx > ly ? -1 : 1;
    if (x->tile != y->tile)
        return x->tile < y->tile ? -1 : 1;
    return x->kt0 < y->kt0 ? -1 : x->kt0 > y->kt0;
}

/* Balance: the tiles longer than the even share cut into parts of at most
 * the share (convt_split_begin: equal to a stage), every whole tile and
 * part to the least loaded block, the longest first. */
static int plan_balanced(const int *stages, int tiles, int blocks, convt_split_segment *seg, int *begin)
{
    int64_t total = 0;
    for (int t = 0; t < tiles; t++)
        total += stages[t];
    const int64_t share = convt_split_share(total, blocks);
    const int64_t cap = convt_split_segments_max(tiles, blocks, CONVT_SPLIT_BALANCE);
    split_item *item = (split_item *)malloc(sizeof *item * (size_t)(cap ? cap : 1));
    int *owner = (int *)malloc(sizeof *owner * (size_t)(cap ? cap : 1));
    int64_t *load = (int64_t *)calloc((size_t)blocks, sizeof *load);
    int *count = (int *)calloc((size_t)blocks + 1, sizeof *count);
    if (!item || !owner || !load || !count) {
        free(item), free(owner), free(load), free(count);
        return -2;
    }
    int n = 0;
    for (int t = 0; t < tiles; t++) {
        if (stages[t] == 0)
            continue;
        const int parts = (int)((stages[t] + share - 1) / share);
        for (int p = 0; p < parts; p++) {
            item[n].tile = t;
            item[n].kt0 = convt_split_begin(stages[t], parts, p);
            item[n].kt1 = convt_split_begin(stages[t], parts, p + 1);
            n++;
        }
    }
    qsort(item, (size_t)n, sizeof *item, longest_first);
    for (int i = 0; i < n; i++) {
        int b_min = 0; /* the least loaded block, the first among equals */
        for (int b = 1; b < blocks; b++)
            if (load[b] < load[b_min])
                b_min = b;
        owner[i] = b_min;
        load[b_min] += item[i].kt1 - item[i].kt0;
        count[b_min + 1]++;
    }
    /* each block's items together, in the order they were given */
    for (int b = 0; b < blocks; b++)
        count[b + 1] += count[b];
    for (int b = 0; b <= blocks; b++)
        begin[b] = count[b];
    for (int i = 0; i < n; i++)
        add_segment(seg, count[owner[i]]++, item[i].tile, item[i].kt0, item[i].kt1, stages[item[i].tile]);
    free(item), free(owner), free(load), free(count);
    return n;
}

int convt_split_plan(const int *stages, int tiles, int blocks, int ksplit,
                     convt_split_segment *seg, int *begin)
{
    if (tiles < 0 || blocks < 1 ||
        (ksplit != CONVT_SPLIT_STREAM && ksplit != CONVT_SPLIT_BALANCE &&
         (ksplit < 2 || ksplit > CONVT_SPLIT_K_MAX)))
        return -1;
    for (int t = 0; t < tiles; t++)
        if (stages[t] < 0)
            return -1;
    return ksplit == CONVT_SPLIT_STREAM    ? plan_stream(stages, tiles, blocks, seg, begin)
           : ksplit == CONVT_SPLIT_BALANCE ? plan_balanced(stages, tiles, blocks, seg, begin)
                                           : plan_parts(stages, tiles, blocks, ksplit, seg, begin);
}
