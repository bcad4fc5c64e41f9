/* The weights of a folded block read in place (polyphase_wgmma_fold_inplace_tf32,
 * kernels/polyphase_wgmma_inplace.cuh): a stage of the folded wgmma kernel
 * needs, for one tap row (the taps j2 = 0 .. m[2] - 1 of one (j0, j1)), a
 * chunk of bk input channels and a block of w_rows folded channels co0 ..
 * co0 + w_rows - 1 of a group, every weight W[ci][cf][jlin] =
 * w[convt_fold_weight_index(f, ci, cf, convt_fold_tap_base(f, jlin))].
 *
 * Folded channel cf is phase cf % S of original channel cf / S, so the
 * block's rows are original channels c_lo = co0 / S up to
 * (co0 + w_rows - 1) / S. Along w's tap index (k0, k1, k2), the row's
 * weights are x0 + (ph1 k[2] + ph2 + j2 s[2]) for ph1 < s[1], ph2 < s[2],
 * j2 < m[2], where x0 = (j0 k[1] + j1 s[1]) k[2]: one stretch of
 * e0 = s[1] k[2] taps, provided the phase has no part along dimension 0
 * (s[0] = 1: every 1-D and 2-D fold, and 3-D ones of stride 1 along
 * dimension 0). So the stage's weights are the box of w {e0 taps from x0,
 * ncb channels from c_lo, bk input channels from ci0} in group g: one TMA
 * copy of a 4-D map {ktaps, cout_g, cin_g, groups}, where the repack
 * (pack_weights_stages) wrote a 57 MB image for bigvgan_up1 every call.
 * The box lands [ci][c][k], so the consumers load their A fragments from it
 * into registers at convt_fold_box_row + convt_fold_box_tap +
 * ci_local x pitch.
 *
 * The host (C11) and the kernels share what is here;
 * tests/test_fold_box.c checks every index against convt_fold_weight_index. */
#ifndef CONVT_SRC_LIB_FOLD_BOX_H
#define CONVT_SRC_LIB_FOLD_BOX_H

#include <stddef.h>
#include <stdint.h>

#include "fold_phases.h"
#include "hostdevice.h"

#ifdef __cplusplus
extern "C" {
#endif

/* TMA's largest box extent along any dimension. */
#define CONVT_FOLD_BOX_MAX_EXTENT 256

/* A block's box. A block's first folded row co0 is a multiple of w_rows,
 * so co0 % S is a multiple of gcd(w_rows, S), at most S - gcd, and its
 * rows touch at most (S - gcd + w_rows - 1) / S + 1 original channels:
 * 22 for 128 rows at S = 6, 16 at S = 8 (session 34's first form counted
 * (w_rows - 1) / S + 2 and rounded for the banks up to 8 more: 26 at
 * S = 6, 22% more bytes than the rows' own weights on layers whose stages
 * wait on their bytes). That count is rounded up where at most an eighth
 * more channels make the pitch 8 or 24 floats past a multiple of 32 (the
 * 4 lanes of a quad, one input channel apart, then read 4 different
 * groups of 8 banks), or else by one where that turns a pitch of a
 * multiple of 32 (4-way conflicts) into 16 past one (2-way). */
typedef struct convt_fold_box {
    int e0;    /* taps along w's tap index a row's box spans: s[1] x k[2] */
    int ncb;   /* original channels in the box */
    int pitch; /* floats from one input channel of the box to the next: ncb x e0 */
} convt_fold_box;

/* The most original channels a block of w_rows folded rows touches. */
CONVT_HD int convt_fold_box_need(const convt_fold *f, int w_rows)
{
    int a = w_rows, b = f->S; /* gcd */
    while (b) {
        const int r = a % b;
        a = b;
        b = r;
    }
    return (f->S - a + w_rows - 1) / f->S + 1;
}

CONVT_HD convt_fold_box convt_fold_box_of(const convt_fold *f, int w_rows)
{
    convt_fold_box b;
    const int need = convt_fold_box_need(f, w_rows);
    b.e0 = f->s[1] * f->k[2];
    b.ncb = need;
    if (need * b.e0 % 32 != 8 && need * b.e0 % 32 != 24) {
        for (int extra = 1; extra <= 8 && 8 * extra <= need; extra++) {
            const int m = (need + extra) * b.e0 % 32;
            if (m == 8 || m == 24) {
                b.ncb = need + extra;
                break;
            }
        }
        if (b.ncb == need && need * b.e0 % 32 == 0 && (need + 1) * b.e0 % 32 == 16 && need >= 8)
            b.ncb = need + 1;
    }
    b.pitch = b.ncb * b.e0;
    return b;
}

/* The first original channel of the block whose first folded row is co0. */
CONVT_HD int convt_fold_box_c_lo(const convt_fold *f, int co0) { return co0 / f->S; }

/* Tap jlin's place past its row's first tap along w's tap index (j2 s[2]),
 * and that first tap (the box's x0). */
CONVT_HD int convt_fold_box_tap(const convt_fold *f, int jlin) { return jlin % f->m[2] * f->s[2]; }
CONVT_HD int convt_fold_box_x0(const convt_fold *f, int jlin)
{
    return convt_fold_tap_base(f, jlin) - convt_fold_box_tap(f, jlin);
}

/* Folded row cf's place in the box of the block from co0: its channel's
 * (past the box's first) and its phase's (along dimensions 1 and 2). */
CONVT_HD int convt_fold_box_row(const convt_fold *f, const convt_fold_box *b, int co0, int cf)
{
    int ph[3];
    convt_fold_phase(f, cf % f->S, ph);
    return (convt_fold_channel(f, cf) - convt_fold_box_c_lo(f, co0)) * b->e0 + ph[1] * f->k[2] + ph[2];
}

/* The box's bytes for bk input channels: what a stage's copy counts on
 * its barrier (the zeros past w included), and the stage's share of
 * shared memory, rounded up to 128 so that every stage's input tile and
 * box stay 128-byte aligned, as TMA's destination must be. The kernel and
 * the host (its shared-memory size) both take these. */
CONVT_HD int convt_fold_box_bytes(const convt_fold_box *b, int bk) { return bk * b->pitch * 4; }
CONVT_HD int convt_fold_box_stage_bytes(const convt_fold_box *b, int bk)
{
    return (convt_fold_box_bytes(b, bk) + 127) / 128 * 128;
}

/* Where W[ci0 + ci_local][cf][jlin] lies in the box of the block from co0
 * and jlin's row, in floats from the box's start. */
CONVT_HD int64_t convt_fold_box_index(const convt_fold *f, const convt_fold_box *b, int co0, int cf,
                                      int ci_local, int jlin)
{
    return (int64_t)ci_local * b->pitch + convt_fold_box_row(f, b, co0, cf) + convt_fold_box_tap(f, jlin);
}

/* NULL where a TMA map can take the box: no phase along dimension 0
 * (s[0] = 1), w's rows of taps and the box's a multiple of 16 bytes (TMA's
 * strides and inner extent are), every extent within
 * CONVT_FOLD_BOX_MAX_EXTENT; otherwise a sentence in buf. */
const char *convt_fold_box_check(const convt_fold *f, const convt_fold_box *b, int bk, char *buf,
                                 size_t len);

#ifdef __cplusplus
}
#endif

#endif /* CONVT_SRC_LIB_FOLD_BOX_H */
