/* The in-place weights' box of a folded block (src/lib/fold_box.h), over
 * random shapes that fold and that a box takes (1-3 dimensions, stride 1
 * along dimension 0 in 3-D, 2 to 16 phases, kernels of 1 to 3 strides,
 * groups, channel counts that fill no block): for the first two blocks of
 * 64 or 128 folded rows and the last, every row and tap, and a chunk's
 * first and last input channel, the box index lies in the box, in the row
 * of its input channel, among the box's channels and within the row's e0
 * taps, and the float there, read as the box lands ([ci][c][k] from the
 * block's first channel and the tap row's x0), is the weight
 * convt_fold_weight_index names. The box's pitch is rounded for the banks
 * by at most 8 channels; the check refuses what a TMA map cannot take. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "fold_box.h"
#include "fold_phases.h"
#include "problem.h"

static uint64_t rng_state = 33;
static int64_t pick(int64_t lo, int64_t hi) { return convt_next_in(&rng_state, lo, hi); }

/* A random problem that folds, with up to 300 original channels a group
 * (several blocks of folded rows). */
static convt_problem random_foldable_wide(void)
{
    for (;;) {
        convt_problem p = convt_problem_default((int)pick(1, 3));
        p.n = 1;
        p.groups = pick(1, 2);
        p.cin = p.groups * pick(1, 40);
        p.cout = p.groups * pick(1, 300);
        int64_t S = 1;
        for (int d = 0; d < p.dims; d++) {
            p.stride[d] = d == 0 && p.dims == 3 ? 1 : pick(1, p.dims == 1 ? 16 : p.dims == 2 ? 5 : 3);
            p.k[d] = p.stride[d] * pick(1, 3);
            p.in[d] = pick(1, 9);
            S *= p.stride[d];
        }
        char why[200];
        if (S < 2 || S > CONVT_FOLD_MAX_PHASES || convt_problem_check(&p, why, sizeof why) ||
            convt_fold_check(&p, CONVT_FOLD_ALL, why, sizeof why))
            continue;
        return p;
    }
}

static void every_index_is_the_weight_it_names(void **state)
{
    (void)state;
    int64_t checked = 0;
    for (int shape = 0; shape < 60; shape++) {
        const convt_problem p = random_foldable_wide();
        const convt_fold f = convt_fold_of(&p, CONVT_FOLD_ALL);
        const int cin_g = (int)(p.cin / p.groups), rows = f.cout_g * f.S;
        const int taps = f.m[0] * f.m[1] * f.m[2];
        for (int w_rows = 64; w_rows <= 128; w_rows *= 2) {
            const convt_fold_box b = convt_fold_box_of(&f, w_rows);
            assert_int_equal(b.pitch, b.ncb * b.e0);
            assert_int_equal(b.e0, f.s[1] * f.k[2]);
            for (int bk = 16; bk <= 32; bk *= 2)
                for (int pb = 0; pb < 3; pb++) {
                    /* blocks 0 and 1, and the last (partial where rows is no multiple) */
                    const int nblocks = (rows + w_rows - 1) / w_rows;
                    const int blk = pb < 2 ? pb : nblocks - 1;
                    if (blk >= nblocks || (pb == 2 && blk <= 1))
                        continue;
                    const int co0 = blk * w_rows;
                    const int c_lo = convt_fold_box_c_lo(&f, co0);
                    const int ci0 = (int)pick(0, (cin_g - 1) / bk) * bk; /* a chunk of the group */
                    const int g = (int)pick(0, p.groups - 1);
                    for (int cf = co0; cf < co0 + w_rows && cf < rows; cf++)
                        for (int jlin = 0; jlin < taps; jlin++)
                            for (int ci_local = 0; ci_local < bk; ci_local += bk - 1) {
                                const int tb = convt_fold_tap_base(&f, jlin), x0 = convt_fold_box_x0(&f, jlin);
                                const int64_t at = convt_fold_box_index(&f, &b, co0, cf, ci_local, jlin);
                                assert_true(at >= 0 && at < (int64_t)bk * b.pitch);
                                const int64_t in_row = at % b.pitch;
                                assert_int_equal(at / b.pitch, ci_local);
                                const int c = c_lo + (int)(in_row / b.e0), k = x0 + (int)(in_row % b.e0);
                                assert_true(c - c_lo < b.ncb && c < f.cout_g);
                                assert_true(x0 >= 0 && x0 + b.e0 <= f.ktaps);
                                const int64_t ci = (int64_t)g * cin_g + ci0 + ci_local;
                                assert_int_equal((ci * f.cout_g + c) * f.ktaps + k,
                                                 convt_fold_weight_index(&f, ci, cf, tb));
                                checked++;
                            }
                }
        }
    }
    assert_true(checked > 100000);
}

/* The channels a block's rows touch, counted: the most over every block
 * of the group (its first row a multiple of w_rows). */
static int channels_touched(const convt_fold *f, int w_rows)
{
    const int rows = f->cout_g * f->S;
    int most = 0;
    for (int co0 = 0; co0 < rows + f->S * w_rows; co0 += w_rows) {
        const int n = (co0 + w_rows - 1) / f->S - co0 / f->S + 1;
        most = n > most ? n : most;
    }
    return most;
}

static void the_box_holds_every_block_and_is_rounded_for_the_banks(void **state)
{
    (void)state;
    for (int shape = 0; shape < 200; shape++) {
        const convt_problem p = random_foldable_wide();
        const convt_fold f = convt_fold_of(&p, CONVT_FOLD_ALL);
        for (int w_rows = 64; w_rows <= 128; w_rows *= 2) {
            const convt_fold_box b = convt_fold_box_of(&f, w_rows);
            const int need = convt_fold_box_need(&f, w_rows);
            /* the count is what the blocks touch (over S blocks the first
             * row takes every residue it can) */
            assert_int_equal(need, channels_touched(&f, w_rows));
            assert_true(b.ncb >= need && b.ncb <= need + (need >= 8 ? need / 8 : 0) + 1);
            bool reachable = false; /* an eighth more channels at most give 8 or 24 past 32 */
            for (int extra = 0; extra <= 8 && 8 * extra <= need; extra++)
                reachable |= (need + extra) * b.e0 % 32 == 8 || (need + extra) * b.e0 % 32 == 24;
            if (reachable)
                assert_true(b.pitch % 32 == 8 || b.pitch % 32 == 24);
            else if (b.ncb != need)
                assert_true(b.ncb == need + 1 && need * b.e0 % 32 == 0 && b.pitch % 32 == 16);
        }
    }
    /* bigvgan_up1's fold (k 12, stride 6): 128 rows touch at most 22
     * channels (their first row's phase is 0, 2 or 4), a pitch of 264
     * floats, 8 past 32; session 34's first form took 26 (312) */
    convt_problem voc = convt_problem_default(1);
    voc.n = 4, voc.cin = 1536, voc.cout = 768, voc.in[0] = 64, voc.k[0] = 12, voc.stride[0] = 6,
    voc.pad[0] = 3;
    convt_fold f = convt_fold_of(&voc, CONVT_FOLD_ALL);
    convt_fold_box b = convt_fold_box_of(&f, 128);
    assert_int_equal(b.ncb, 22);
    assert_int_equal(b.pitch, 264);
    /* its bytes at bk 32, as the copy counts them and as a stage holds them
     * (a multiple of 128: already one here) */
    assert_int_equal(convt_fold_box_bytes(&b, 32), 32 * 264 * 4);
    assert_int_equal(convt_fold_box_stage_bytes(&b, 32), 32 * 264 * 4);
    const convt_fold_box odd = {.e0 = 3, .ncb = 1, .pitch = 3};
    assert_int_equal(convt_fold_box_bytes(&odd, 1), 12);
    assert_int_equal(convt_fold_box_stage_bytes(&odd, 1), 128);
    /* a vocoder's k 16 stride 8: 16 channels, 256 floats (4-way), one more: 272 (2-way) */
    voc.k[0] = 16, voc.stride[0] = 8, voc.pad[0] = 4;
    f = convt_fold_of(&voc, CONVT_FOLD_ALL);
    b = convt_fold_box_of(&f, 128);
    assert_int_equal(b.ncb, 17);
    assert_int_equal(b.pitch, 272);
}

static void the_check_names_what_tma_cannot_take(void **state)
{
    (void)state;
    char why[200];
    convt_problem p = convt_problem_default(1); /* k 12, stride 6: 12 taps */
    p.cin = 64, p.cout = 32, p.in[0] = 50, p.k[0] = 12, p.stride[0] = 6;
    convt_fold f = convt_fold_of(&p, CONVT_FOLD_ALL);
    convt_fold_box b = convt_fold_box_of(&f, 128);
    assert_null(convt_fold_box_check(&f, &b, 32, why, sizeof why));
    p.k[0] = 10, p.stride[0] = 5; /* EnCodec's: 10 taps, rows of 40 bytes */
    f = convt_fold_of(&p, CONVT_FOLD_ALL);
    b = convt_fold_box_of(&f, 128);
    assert_non_null(convt_fold_box_check(&f, &b, 32, why, sizeof why));
    assert_non_null(strstr(why, "10 taps (a row's box 10) are no multiple of 4"));
    p.k[0] = 12, p.stride[0] = 6;
    f = convt_fold_of(&p, CONVT_FOLD_ALL);
    b = convt_fold_box_of(&f, 128);
    assert_non_null(convt_fold_box_check(&f, &b, 512, why, sizeof why));
    assert_non_null(strstr(why, "TMA boxes reach 256"));
    /* 2-D, k 4 x 4, stride 2 x 2: a tap row's box is 2 x 4 taps of 16 */
    convt_problem q = convt_problem_default(2);
    q.cin = 16, q.cout = 16, q.in[0] = q.in[1] = 8, q.k[0] = q.k[1] = 4, q.stride[0] = q.stride[1] = 2;
    f = convt_fold_of(&q, CONVT_FOLD_ALL);
    b = convt_fold_box_of(&f, 64);
    assert_int_equal(b.e0, 8);
    assert_null(convt_fold_box_check(&f, &b, 32, why, sizeof why));
    /* 3-D, stride 2 along dimension 0: a row's weights are two stretches */
    convt_problem v = convt_problem_default(3);
    v.cin = 16, v.cout = 16;
    for (int d = 0; d < 3; d++)
        v.in[d] = 4, v.k[d] = 2, v.stride[d] = 2;
    f = convt_fold_of(&v, CONVT_FOLD_ALL);
    b = convt_fold_box_of(&f, 64);
    assert_non_null(convt_fold_box_check(&f, &b, 32, why, sizeof why));
    assert_non_null(strstr(why, "stride 2 along dimension 0"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_index_is_the_weight_it_names),
        cmocka_unit_test(the_box_holds_every_block_and_is_rounded_for_the_banks),
        cmocka_unit_test(the_check_names_what_tma_cannot_take),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
