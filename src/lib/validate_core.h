/* The per-element comparison and the merge of partial statistics, written
 * once for the host (validate.c) and the GPU (backend_cuda.cu). */
#ifndef CONVT_SRC_VALIDATE_CORE_H
#define CONVT_SRC_VALIDATE_CORE_H

#include <math.h>

#include "hostdevice.h"
#include "validate.h"

CONVT_HD void convt_stats_clear(convt_error_stats *s)
{
    s->count = s->nonfinite = s->bad = 0;
    s->err_sq = s->ref_sq = s->max_abs_err = s->worst_ratio = 0.0;
    s->worst_index = -1;
    s->worst_y = s->worst_ref = 0.0;
}

/* Order of "worse": any nonfinite beats any finite; among equals, the larger
 * ratio; among equal ratios, the smaller index (so results are reproducible). */
CONVT_HD int convt_stats_worse(const convt_error_stats *a, const convt_error_stats *b)
{
    if (a->worst_index < 0)
        return 0;
    if (b->worst_index < 0)
        return 1;
    if ((a->nonfinite > 0) != (b->nonfinite > 0))
        return a->nonfinite > 0;
    if (a->nonfinite > 0)
        return a->worst_index < b->worst_index;
    if (a->worst_ratio != b->worst_ratio)
        return a->worst_ratio > b->worst_ratio;
    return a->worst_index < b->worst_index;
}

CONVT_HD void convt_stats_merge(convt_error_stats *into, const convt_error_stats *part)
{
    if (convt_stats_worse(part, into)) {
        into->worst_ratio = part->worst_ratio;
        into->worst_index = part->worst_index;
        into->worst_y = part->worst_y;
        into->worst_ref = part->worst_ref;
    }
    into->count += part->count;
    into->nonfinite += part->nonfinite;
    into->bad += part->bad;
    into->err_sq += part->err_sq;
    into->ref_sq += part->ref_sq;
    into->max_abs_err = fmax(into->max_abs_err, part->max_abs_err);
}

CONVT_HD void convt_stats_add(convt_error_stats *s, double rtol, double atol, int64_t i,
                              float y, double ref, double mag)
{
    convt_error_stats one;
    convt_stats_clear(&one);
    one.count = 1;
    one.ref_sq = ref * ref;
    one.worst_index = i;
    one.worst_y = y;
    one.worst_ref = ref;
    if (!isfinite(y)) {
        one.nonfinite = 1;
        one.worst_ratio = INFINITY;
    } else {
        double err = fabs((double)y - ref);
        one.err_sq = err * err;
        one.max_abs_err = err;
        one.worst_ratio = err / (atol + rtol * mag);
        one.bad = one.worst_ratio > 1.0;
    }
    convt_stats_merge(s, &one);
}

#endif
