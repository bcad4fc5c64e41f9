/* The split-K kernels' work list (split_k.h): which stretches of which
 * tiles' walks each persistent block takes. */
#include "split_k.h"

int64_t convt_split_segments_max(int tiles, int blocks, int ksplit)
{
    if (tiles < 0 || blocks < 1)
        return 0;
    /* parts: one per (tile, part); stream: each tile once, and each of the
     * blocks - 1 cuts between the blocks' stretches makes one more */
    return ksplit == CONVT_SPLIT_STREAM ? (int64_t)tiles + blocks : (int64_t)tiles * ksplit;
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

int convt_split_plan(const int *stages, int tiles, int blocks, int ksplit,
                     convt_split_segment *seg, int *begin)
{
    if (tiles < 0 || blocks < 1 ||
        (ksplit != CONVT_SPLIT_STREAM && (ksplit < 2 || ksplit > CONVT_SPLIT_K_MAX)))
        return -1;
    for (int t = 0; t < tiles; t++)
        if (stages[t] < 0)
            return -1;
    return ksplit == CONVT_SPLIT_STREAM ? plan_stream(stages, tiles, blocks, seg, begin)
                                        : plan_parts(stages, tiles, blocks, ksplit, seg, begin);
}
