/* The input rows a tile of neighbouring output lines reads, along one
 * spatial dimension: direct_grouped_staged stages them in shared memory
 * (its second-innermost dimension), and sizes that memory by the most rows
 * a tile can read. Written once for the kernel and its CPU test
 * (tests/test_line_tiles.c checks both against every tap of random tiles).
 *
 * Output o reads input i = (o + pad - k*dil) / stride where that divides
 * and lands in [0, in); over o = first .. last and k = 0 .. taps-1 the
 * rows lie in [ceil((first + pad - (taps-1)*dil) / stride),
 * floor((last + pad) / stride)]. */
#ifndef CONVT_SRC_LIB_LINE_TILES_H
#define CONVT_SRC_LIB_LINE_TILES_H

#include <stdint.h>

#include "hostdevice.h"
#include "stride_phase.h"

/* The rows [*lo, *hi] that outputs first .. last (last = min(first + lines,
 * out) - 1) read through taps 0 .. taps-1, dil apart, at stride and pad,
 * clamped to [0, in); none when *hi < *lo. */
CONVT_HD int convt_min_int(int a, int b) { return a < b ? a : b; }
CONVT_HD int convt_max_int(int a, int b) { return a > b ? a : b; }

CONVT_HD void convt_tile_rows(int first, int lines, int out, int pad, int taps, int dil,
                              int stride, int in, int *lo, int *hi)
{
    const int last = convt_min_int(first + lines, out) - 1;
    *lo = convt_max_int(0, (int)convt_ceil_div(first + pad - (int64_t)(taps - 1) * dil, stride));
    *hi = convt_min_int(in - 1, (int)convt_floor_div(last + pad, stride));
}

/* At least the rows any tile of `lines` reads: floor((lines - 1 + (taps -
 * 1) * dil) / stride) + 1 (the span of the rows' numerators over stride),
 * plus one spare, and at most in. */
CONVT_HD int64_t convt_tile_rows_max(int64_t lines, int64_t taps, int64_t dil, int64_t stride,
                                     int64_t in)
{
    const int64_t rows = (lines - 1 + (taps - 1) * dil) / stride + 2;
    return rows < in ? rows : in;
}

#endif /* CONVT_SRC_LIB_LINE_TILES_H */
