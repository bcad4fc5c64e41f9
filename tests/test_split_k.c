/* Split-K's cut of a tile's K walk (src/lib/split_k.h): for every walk of
 * 0 to 300 stages and every ksplit from 1 to the most, the parts take every
 * stage exactly once, in order, and differ in length by one at most; and
 * the (tap row, first channel) a part starts at is where the kernels' walk
 * (channel chunks of bk, then the next row) stands at that stage. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(parts_take_every_stage_once),
        cmocka_unit_test(a_part_starts_where_the_walk_stands),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
