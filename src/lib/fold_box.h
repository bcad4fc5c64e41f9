/* The weights of a folded block read in place (session 33's next step, not
 * yet a kernel): a stage of the folded wgmma kernel needs, for a chunk of
 * bk input channels and a block of w_rows folded channels co0 ..
 * co0 + w_rows - 1 of a group, every weight W[ci][cf][jlin] =
 * w[convt_fold_weight_index(f, ci, cf, convt_fold_tap_base(f, jlin))].
 * Folded channel cf is phase cf % S of original channel cf / S, so the
 * block's rows are original channels c_lo = co0 / S up to
 * (co0 + w_rows - 1) / S, and every weight it needs lies in the box of w
 * {all ktaps, ncb channels from c_lo, bk input channels from ci0}: one
 * TMA copy (a 4-D map {ktaps, cout_g, cin_g, groups}) where the repack
 * (pack_weights_stages) now writes a 57 MB image for bigvgan_up1 every
 * call. The box lands [ci][c][k], channels-major, so the consumers would
 * load A into registers (wgmma's register-A form) at convt_fold_box_index.
 *
 * The host (C11) and the kernels would share what is here;
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

/* A block's box. ncb is at least the channels any block of w_rows folded
 * rows touches, (w_rows - 1) / S + 2, rounded up where a few more make
 * the pitch 8 or 24 floats past a multiple of 32: the 4 lanes of a quad,
 * one input channel (a pitch) apart each, then read 4 different groups of
 * 8 banks. */
typedef struct convt_fold_box {
    int ncb;   /* original channels in the box */
    int pitch; /* floats from one input channel of the box to the next: ncb x ktaps */
} convt_fold_box;

CONVT_HD convt_fold_box convt_fold_box_of(const convt_fold *f, int w_rows)
{
    convt_fold_box b;
    const int need = (w_rows - 1) / f->S + 2;
    b.ncb = need;
    for (int extra = 0; extra <= 8; extra++) {
        const int m = (need + extra) * f->ktaps % 32;
        if (m == 8 || m == 24) {
            b.ncb = need + extra;
            break;
        }
    }
    b.pitch = b.ncb * f->ktaps;
    return b;
}

/* The first original channel of the block whose first folded row is co0. */
CONVT_HD int convt_fold_box_c_lo(const convt_fold *f, int co0) { return co0 / f->S; }

/* Where W[ci0 + ci_local][cf][jlin] lies in the box of the block from
 * co0 (cf in the block, ci_local < bk), in floats from the box's start:
 * input channel, then cf's term of w's index (its channel and phase) less
 * the box's first channel's, then the tap's (convt_fold_tap_base). */
CONVT_HD int64_t convt_fold_box_index(const convt_fold *f, const convt_fold_box *b, int co0, int cf,
                                      int ci_local, int tap_base)
{
    const int64_t cf_term = convt_fold_weight_index(f, 0, cf, 0);
    return (int64_t)ci_local * b->pitch + cf_term - (int64_t)convt_fold_box_c_lo(f, co0) * f->ktaps +
           tap_base;
}

/* NULL where a TMA map can take the box: a row of taps a multiple of 16
 * bytes (ktaps a multiple of 4: TMA's strides are), every extent within
 * CONVT_FOLD_BOX_MAX_EXTENT; otherwise a sentence in buf. */
const char *convt_fold_box_check(const convt_fold *f, const convt_fold_box *b, int bk, char *buf,
                                 size_t len);

#ifdef __cplusplus
}
#endif

#endif /* CONVT_SRC_LIB_FOLD_BOX_H */
