/* Deliberately wrong transposed convolutions: each of DESIGN.md's classic
 * bugs, written once for the CPU and the GPU. The tests show that validation
 * reports every one as wrong on a shape where it matters, and that the
 * bug-free version (PLANTED_NONE) passes on the same data. */
#ifndef CONVT_TESTS_PLANTED_BUGS_H
#define CONVT_TESTS_PLANTED_BUGS_H

#include "hostdevice.h"
#include "problem.h"

typedef enum planted_bug {
    PLANTED_NONE,
    PLANTED_NO_DIVISIBILITY,      /* t/stride used without testing t % stride */
    PLANTED_TRUNCATING_DIVISION,  /* negative t let through: i >= 0 tested after t/stride */
    PLANTED_PADDING_TWICE,        /* t = o + 2*pad - k*dil */
    PLANTED_OUT_PAD_IN_INDEX,     /* t = o + pad - out_pad - k*dil */
    PLANTED_WEIGHT_CONV_LAYOUT,   /* w read as [C_out][C_in/groups] (Conv's layout) */
    PLANTED_GROUPS_IGNORED,       /* every input channel summed, whatever the group */
    PLANTED_LAST_TILE_UNWRITTEN,  /* the grid rounds down: the last partial tile is never written */
    PLANTED_NO_ZERO_FILL,         /* scatter form accumulating into an output never cleared */
    PLANTED_COUNT
} planted_bug;

static const char *const planted_bug_names[PLANTED_COUNT] = {
    "none", "no divisibility test", "i >= 0 tested after truncating division",
    "padding applied twice", "output_padding in the index math", "weight in Conv layout",
    "groups ignored", "last tile not written", "output never zero-filled"};

#define PLANTED_TILE 64

CONVT_HD int64_t planted_src(planted_bug bug, int64_t o, int64_t k, int64_t stride, int64_t pad,
                             int64_t dil, int64_t in, int64_t out_pad)
{
    int64_t t = o + pad - k * dil;
    if (bug == PLANTED_PADDING_TWICE)
        t += pad;
    if (bug == PLANTED_OUT_PAD_IN_INDEX)
        t -= out_pad;
    if (bug == PLANTED_NO_DIVISIBILITY) {
        if (t < 0)
            return -1;
    } else if (bug == PLANTED_TRUNCATING_DIVISION) {
        if (t >= 0 && t % stride != 0)
            return -1;
        int64_t i = t / stride; /* -1/2 == 0: t = -1 passes as input 0 */
        return i >= 0 && i < in ? i : -1;
    } else if (t < 0 || t % stride != 0) {
        return -1;
    }
    int64_t i = t / stride;
    return i < in ? i : -1;
}

/* Output element idx computed with `bug` planted (gather form). */
CONVT_HD float planted_point(planted_bug bug, const convt_problem *p, const convt_shape3 *s,
                             const int64_t *out_pad3, const float *x, const float *w,
                             const float *b, int64_t idx)
{
    int64_t o2 = idx % s->out[2], r = idx / s->out[2];
    int64_t o1 = r % s->out[1];
    r /= s->out[1];
    int64_t o0 = r % s->out[0];
    r /= s->out[0];
    int64_t co = r % p->cout, n = r / p->cout;
    int64_t cin_g = p->cin / p->groups, cout_g = p->cout / p->groups;
    int64_t g = co / cout_g, col = co - g * cout_g, taps = s->k[0] * s->k[1] * s->k[2];
    int64_t ci0 = bug == PLANTED_GROUPS_IGNORED ? 0 : g * cin_g;
    int64_t ci1 = bug == PLANTED_GROUPS_IGNORED ? cin_g : (g + 1) * cin_g;
    float acc = b ? b[co] : 0.0f;
    for (int64_t ci = ci0; ci < ci1; ci++)
        for (int64_t k0 = 0; k0 < s->k[0]; k0++) {
            int64_t i0 = planted_src(bug, o0, k0, s->stride[0], s->pad[0], s->dil[0], s->in[0],
                                     out_pad3[0]);
            if (i0 < 0)
                continue;
            for (int64_t k1 = 0; k1 < s->k[1]; k1++) {
                int64_t i1 = planted_src(bug, o1, k1, s->stride[1], s->pad[1], s->dil[1],
                                         s->in[1], out_pad3[1]);
                if (i1 < 0)
                    continue;
                for (int64_t k2 = 0; k2 < s->k[2]; k2++) {
                    int64_t i2 = planted_src(bug, o2, k2, s->stride[2], s->pad[2], s->dil[2],
                                             s->in[2], out_pad3[2]);
                    if (i2 < 0)
                        continue;
                    int64_t k = (k0 * s->k[1] + k1) * s->k[2] + k2;
                    int64_t woff = bug == PLANTED_WEIGHT_CONV_LAYOUT
                                       ? ((g * cout_g + col) * cin_g + (ci - g * cin_g)) * taps + k
                                       : (ci * cout_g + col) * taps + k;
                    acc += x[((n * p->cin + ci) * s->in[0] + i0) * s->in[1] * s->in[2] +
                             i1 * s->in[2] + i2] *
                           w[woff];
                }
            }
        }
    return acc;
}

/* out_pad laid out like convt_shape3 (leading dims padded with 0). */
static inline void planted_out_pad3(const convt_problem *p, int64_t out[3])
{
    for (int d = 0; d < 3; d++) {
        int src = d - (3 - p->dims);
        out[d] = src >= 0 ? p->out_pad[src] : 0;
    }
}

/* Whether element idx of count is written under `bug` (the tile bug). */
CONVT_HD int planted_writes(planted_bug bug, int64_t idx, int64_t count)
{
    return bug != PLANTED_LAST_TILE_UNWRITTEN || idx < count / PLANTED_TILE * PLANTED_TILE;
}

#endif
