/* The input rows a tile of neighbouring output lines reads
 * (src/lib/line_tiles.h, which direct_grouped_staged's kernel calls to stage
 * them and its host code to size shared memory for them), against every
 * tap of every output of every tile, on 2000 random dimensions (extents,
 * kernels, dilations, strides, pads and out_pads, tiles of 1 to 32 lines):
 * every row an output of the tile reads lies in [lo, hi], lo and hi lie in
 * the input, and [lo, hi] holds at most convt_tile_rows_max rows, the rows
 * the kernel's shared memory has room for. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "hostdevice.h"
#include "line_tiles.h"
#include "test_util.h"

static uint64_t rng_state = 4242;
static int pick(int lo, int hi) { return (int)convt_next_in(&rng_state, lo, hi); }

static void every_read_row_is_staged_and_fits(void **state)
{
    (void)state;
    int dims = 0, tiles = 0, reads = 0;
    while (dims < 2000) {
        const int in = pick(1, 40), taps = pick(1, 9), dil = pick(1, 4), stride = pick(1, 5);
        const int pad = pick(0, dil * (taps - 1));
        const int out_pad = pick(0, (stride > dil ? stride : dil) - 1);
        const int out = (int)out_extent(in, taps, stride, pad, dil, out_pad);
        if (out < 1)
            continue;
        dims++;
        const int lines = 1 << pick(0, 5);
        const int64_t room = convt_tile_rows_max(lines, taps, dil, stride, in);
        for (int first = 0; first < out; first += lines, tiles++) {
            int lo, hi;
            convt_tile_rows(first, lines, out, pad, taps, dil, stride, in, &lo, &hi);
            if (hi >= lo) {
                assert_true(lo >= 0 && hi <= in - 1);
                if (hi - lo + 1 > room)
                    fail_msg("in %d taps %d dil %d stride %d pad %d out %d lines %d first %d: "
                             "rows %d..%d, room for %lld", in, taps, dil, stride, pad, out, lines,
                             first, lo, hi, (long long)room);
            }
            for (int o = first; o < first + lines && o < out; o++)
                for (int k = 0; k < taps; k++) {
                    const int t = o + pad - k * dil;
                    if (t < 0 || t % stride)
                        continue;
                    const int i = t / stride;
                    if (i >= in)
                        continue;
                    reads++;
                    if (i < lo || i > hi)
                        fail_msg("in %d taps %d dil %d stride %d pad %d out %d lines %d: output "
                                 "%d tap %d reads row %d outside the tile's %d..%d", in, taps,
                                 dil, stride, pad, out, lines, o, k, i, lo, hi);
                }
        }
    }
    assert_true(tiles > 2000 && reads > 10000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_read_row_is_staged_and_fits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
