/* The stride phases folded into the output channels (fold_phases.h): which
 * problems fold, and the folded problem. */
#include "fold_phases.h"

#include <stdio.h>

/* m: the strides a kernel of k taps spans, padded with zero taps to whole
 * strides (fold_phases.h) */
static int64_t whole_strides(int64_t k, int64_t s) { return (k + s - 1) / s; }

double convt_fold_present(const convt_problem *p, int inner)
{
    double present = 1.0;
    for (int d = 0; d < p->dims; d++)
        if (convt_fold_folds(p, inner, d))
            present *= (double)p->k[d] / (double)(whole_strides(p->k[d], p->stride[d]) * p->stride[d]);
    return present;
}

const char *convt_fold_check(const convt_problem *p, int inner, char *buf, size_t len)
{
    if (inner < 0 || inner > 3) {
        snprintf(buf, len, "%d innermost dimensions folded: 1 to 3, or all (%d)", inner, CONVT_FOLD_ALL);
        return buf;
    }
    int64_t S = 1;
    for (int d = 0; d < p->dims; d++) {
        if (!convt_fold_folds(p, inner, d))
            continue; /* kept as it is: the folded problem's phases */
        if (p->dil[d] != 1) {
            snprintf(buf, len, "dil[%d] = %lld: folding the phases needs dilation 1", d,
                     (long long)p->dil[d]);
            return buf;
        }
        /* the kernel padded with zero taps to m whole strides */
        const int64_t m = whole_strides(p->k[d], p->stride[d]), extra = m * p->stride[d] - p->k[d];
        if (p->out_pad[d] > p->pad[d] + extra) {
            snprintf(buf, len,
                     "out_pad[%d] = %lld exceeds pad[%d] + %lld = %lld: the folded positions "
                     "would not reach the last outputs",
                     d, (long long)p->out_pad[d], d, (long long)extra, (long long)(p->pad[d] + extra));
            return buf;
        }
        /* every folded position and original output index stays far inside an int */
        if (p->in[d] + p->k[d] > ((int64_t)1 << 30) / p->stride[d]) {
            snprintf(buf, len, "in[%d] = %lld is too long to fold in 32-bit positions", d,
                     (long long)p->in[d]);
            return buf;
        }
        S *= p->stride[d];
    }
    if (S == 1) {
        if (inner == CONVT_FOLD_ALL || inner >= p->dims)
            snprintf(buf, len, "stride 1 along every dimension: one phase, nothing to fold");
        else if (inner == 1)
            snprintf(buf, len, "stride 1 along the innermost dimension: one phase there, nothing "
                     "to fold");
        else
            snprintf(buf, len, "stride 1 along the %d innermost dimensions: one phase there, "
                     "nothing to fold", inner);
        return buf;
    }
    if (S > CONVT_FOLD_MAX_PHASES) {
        snprintf(buf, len,
                 "%lld stride phases: folding takes 2 to %d (the folded kernel's limit, "
                 "checked up to there)",
                 (long long)S, CONVT_FOLD_MAX_PHASES);
        return buf;
    }
    const double present = convt_fold_present(p, inner); /* the share of the padded kernel's taps that are w's */
    if (present < CONVT_FOLD_MIN_PRESENT) {
        snprintf(buf, len,
                 "the kernel padded to whole strides would be %.0f%% zero taps: folding takes at "
                 "most %.0f%%",
                 100.0 * (1.0 - present), 100.0 * (1.0 - CONVT_FOLD_MIN_PRESENT));
        return buf;
    }
    return NULL;
}

convt_problem convt_fold_problem(const convt_problem *p, int inner)
{
    convt_problem f = *p;
    int64_t S = 1;
    for (int d = 0; d < p->dims; d++) {
        if (!convt_fold_folds(p, inner, d))
            continue;
        S *= p->stride[d];
        f.k[d] = whole_strides(p->k[d], p->stride[d]);
        f.stride[d] = 1;
        f.pad[d] = 0;
        f.out_pad[d] = 0;
        f.dil[d] = 1;
    }
    f.cout = p->cout * S;
    return f;
}

/* The least k with 2^k >= v. */
static int ceil_log2(int v)
{
    int k = 0;
    while ((1 << k) < v)
        k++;
    return k;
}

convt_fold convt_fold_of(const convt_problem *p, int inner)
{
    const convt_shape3 s = convt_problem_as_3d(p);
    const int lead = 3 - p->dims; /* convt_problem_as_3d's: p's dimension d is s's d + lead */
    convt_fold f;
    f.S = 1;
    for (int d = 0; d < 3; d++) {
        /* a dimension left alone (a partial fold's, or one convt_problem_as_3d
         * adds) maps each output to itself: stride and pad stay in the
         * folded problem */
        const bool folded = d >= lead && convt_fold_folds(p, inner, d - lead);
        f.s[d] = folded ? (int)s.stride[d] : 1;
        f.lg[d] = ceil_log2(f.s[d]);
        f.k[d] = (int)s.k[d];
        f.m[d] = (int)whole_strides(s.k[d], f.s[d]);
        f.pad[d] = folded ? (int)s.pad[d] : 0;
        f.out[d] = (int)s.out[d];
        f.S *= f.s[d];
    }
    f.lgS = ceil_log2(f.S);
    f.ktaps = f.k[0] * f.k[1] * f.k[2];
    f.cout_g = (int)(p->cout / p->groups);
    f.out_plane = s.out[0] * s.out[1] * s.out[2];
    return f;
}

convt_fold convt_fold_identity(const convt_problem *p)
{
    convt_fold f = convt_fold_of(p, CONVT_FOLD_ALL); /* k, pad, out, ktaps and cout_g as p has them */
    f.S = 1;
    f.lgS = 0;
    for (int d = 0; d < 3; d++) {
        f.s[d] = 1;
        f.lg[d] = 0;
        f.m[d] = f.k[d];
    }
    return f;
}
