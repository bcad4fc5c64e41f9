/* The in-place weights' box of a folded block: what a TMA map can take
 * (src/lib/fold_box.h). */
#include "fold_box.h"

#include <stdio.h>

const char *convt_fold_box_check(const convt_fold *f, const convt_fold_box *b, int bk, char *buf,
                                 size_t len)
{
    if (f->s[0] != 1) {
        snprintf(buf, len, "stride %d along dimension 0 of a 3-D fold: a tap row's weights are %d "
                 "stretches of w, no one box", f->s[0], f->s[0]);
        return buf;
    }
    if (f->ktaps % 4 != 0 || b->e0 % 4 != 0) {
        snprintf(buf, len, "the kernel's %d taps (a row's box %d) are no multiple of 4: a TMA map's "
                 "rows must be multiples of 16 bytes", f->ktaps, b->e0);
        return buf;
    }
    if (b->e0 > CONVT_FOLD_BOX_MAX_EXTENT || b->ncb > CONVT_FOLD_BOX_MAX_EXTENT ||
        bk > CONVT_FOLD_BOX_MAX_EXTENT) {
        snprintf(buf, len, "a box of %d taps x %d channels x %d input channels: TMA boxes reach "
                 "%d along each dimension", b->e0, b->ncb, bk, CONVT_FOLD_BOX_MAX_EXTENT);
        return buf;
    }
    return NULL;
}
