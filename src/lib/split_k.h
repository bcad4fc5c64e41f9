/* Split-K (polyphase_wgmma_splitk_tf32, kernels/cuda_polyphase_igemm.cu):
 * a tile's walk over K, ktiles pipeline stages (tap rows, then chunks of
 * bk input channels within a row), cut into ksplit parts, each part the
 * work of one block, the parts' sums added into the output by atomics.
 * For short layers of many channels, whose tiles are too few to fill the
 * SMs (a 16-long sequence of 1024 -> 512 channels: 72 tiles on 132 SMs).
 *
 * Part p of a tile takes stages [convt_split_begin(p), convt_split_begin(p
 * + 1)): together the parts take every stage once, and two parts differ by
 * one stage at most. The kernel, its host side and tests/test_split_k.c
 * share what is here. */
#ifndef CONVT_SRC_LIB_SPLIT_K_H
#define CONVT_SRC_LIB_SPLIT_K_H

#include <stdint.h>

#include "hostdevice.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The most parts a tile is cut into (knob ksplit). */
#define CONVT_SPLIT_K_MAX 8

/* The first stage of part `part` (0 <= part <= ksplit; part = ksplit:
 * ktiles, the end of the last). */
CONVT_HD int convt_split_begin(int ktiles, int ksplit, int part)
{
    return (int)((int64_t)ktiles * part / ksplit);
}

/* Where stage kt starts: its tap row and its first input channel (a
 * multiple of bk; chunks = ceil(cin_g / bk) stages a row). */
CONVT_HD void convt_split_stage(int kt, int chunks, int bk, int *row, int *ci0)
{
    *row = kt / chunks;
    *ci0 = (kt % chunks) * bk;
}

/* A block's part of a tile's walk: stages [kt0, kt1), the first at tap
 * row `row`, input channel ci0. */
typedef struct convt_split_part {
    int kt0, kt1, row, ci0;
} convt_split_part;

CONVT_HD convt_split_part convt_split_part_of(int ktiles, int chunks, int bk, int ksplit, int part)
{
    convt_split_part s;
    s.kt0 = convt_split_begin(ktiles, ksplit, part);
    s.kt1 = convt_split_begin(ktiles, ksplit, part + 1);
    convt_split_stage(s.kt0, chunks, bk, &s.row, &s.ci0);
    return s;
}

#ifdef __cplusplus
}
#endif
#endif
