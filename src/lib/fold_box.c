/* The in-place weights' box of a folded block: what a TMA map can take
 * (src/lib/fold_box.h). */
#include "fold_box.h"

#include <stdio.h>

const char *convt_fold_box_check(const convt_fold *f, const convt_fold_box *b, int bk, char *buf,
                                 size_t len)
{
    if (f->ktaps % 4 != 0) {
        snprintf(buf, len, "the kernel's %d taps are no multiple of 4: a TMA map's rows must be "
                 "multiples of 16 bytes", f->ktaps);
        return buf;
    }
    if (f->ktaps > CONVT_FOLD_BOX_MAX_EXTENT || b->ncb > CONVT_FOLD_BOX_MAX_EXTENT ||
        bk > CONVT_FOLD_BOX_MAX_EXTENT) {
        snprintf(buf, len, "a box of %d taps x %d channels x %d input channels: TMA boxes reach "
                 "%d along each dimension", f->ktaps, b->ncb, bk, CONVT_FOLD_BOX_MAX_EXTENT);
        return buf;
    }
    return NULL;
}
