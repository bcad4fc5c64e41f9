/* A stride-1 dimension folded in pairs into the channels (row_fold.h):
 * which problems row-fold, the row-folded problem and W''s map. */
#include "row_fold.h"

#include <stdio.h>

#include "fold_phases.h"

const char *convt_row_fold_check(const convt_problem *p, char *buf, size_t len)
{
    if (p->dims < 2) {
        snprintf(buf, len, "a %d-D shape: the row fold pairs the rows of dimension dims - 2, "
                 "which 2-D and 3-D shapes have", p->dims);
        return buf;
    }
    const int d = p->dims - 2;
    if (p->stride[d] != 1) {
        snprintf(buf, len, "stride[%d] = %lld: the row fold pairs the rows of a stride-1 dimension",
                 d, (long long)p->stride[d]);
        return buf;
    }
    if (p->dil[d] != 1) {
        snprintf(buf, len, "dil[%d] = %lld: the row fold needs dilation 1 along dimension %d", d,
                 (long long)p->dil[d], d);
        return buf;
    }
    if (p->in[d] % 2 != 0) {
        snprintf(buf, len, "in[%d] = %lld is odd: the row fold pairs the input's rows", d,
                 (long long)p->in[d]);
        return buf;
    }
    if (p->cout / p->groups > CONVT_ROW_FOLD_MAX_COUT_G) {
        snprintf(buf, len, "%lld output channels a group: the row fold is for %d or fewer (twice "
                 "as many then fill wgmma's M of 64; above, it was measured to lose)",
                 (long long)(p->cout / p->groups), CONVT_ROW_FOLD_MAX_COUT_G);
        return buf;
    }
    if (p->cin > INT32_MAX / 2) {
        snprintf(buf, len, "cin = %lld: twice that many channels would not fit the kernels' int",
                 (long long)p->cin);
        return buf;
    }
    const convt_problem q = convt_row_fold_problem(p);
    char why[200];
    if (convt_problem_check(&q, why, sizeof why)) {
        snprintf(buf, len, "the row-folded problem is no transposed convolution: %s", why);
        return buf;
    }
    if (convt_fold_check(&q, CONVT_FOLD_ALL, why, sizeof why)) {
        snprintf(buf, len, "the row-folded problem does not fold its phases: %s", why);
        return buf;
    }
    /* W' is zero at one of its k + 1 taps along D for each parity: of the
     * folded kernel, the fold's share times k / (k + 1) is w's */
    const double present = convt_fold_present(&q, CONVT_FOLD_ALL) * (double)p->k[d] / (double)(p->k[d] + 1);
    if (present < CONVT_FOLD_MIN_PRESENT) {
        snprintf(buf, len,
                 "the row-folded kernel would be %.0f%% zero taps: folding takes at most %.0f%%",
                 100.0 * (1.0 - present), 100.0 * (1.0 - CONVT_FOLD_MIN_PRESENT));
        return buf;
    }
    const convt_fold f = convt_fold_of(&q, CONVT_FOLD_ALL);
    if (!convt_fold_pow2(&f)) {
        snprintf(buf, len, "%d phases once the rows are folded: the row fold's kernels are "
                 "compiled for a power of two", f.S);
        return buf;
    }
    return NULL;
}

convt_problem convt_row_fold_problem(const convt_problem *p)
{
    convt_problem q = *p;
    const int d = p->dims - 2;
    q.cin = 2 * p->cin;
    q.in[d] = p->in[d] / 2;
    q.stride[d] = 2;
    q.k[d] = p->k[d] + 1;
    return q;
}

convt_row_fold_w convt_row_fold_w_of(const convt_problem *p)
{
    const convt_shape3 s = convt_problem_as_3d(p);
    const convt_problem q = convt_row_fold_problem(p);
    convt_row_fold_w m;
    for (int i = 0; i < 3; i++)
        m.k[i] = (int)s.k[i];
    m.cout_g = (int)(p->cout / p->groups);
    m.elems = convt_w_elems(&q);
    return m;
}
