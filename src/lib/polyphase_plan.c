#include "polyphase_plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stride_phase.h"

void convt_phase_plan_free(convt_phase_plan *pl)
{
    free(pl->phases);
    free(pl->taps);
    memset(pl, 0, sizeof *pl);
}

/* Whether some tap of dimension d reaches residue ph. */
static bool reach_of(const convt_shape3 *s, int d, int64_t ph)
{
    int64_t off;
    for (int64_t k = 0; k < s->k[d]; k++)
        if (convt_tap_reaches_phase(k, ph, s->stride[d], s->dil[d], &off))
            return true;
    return false;
}

int convt_phase_plan_make(const convt_problem *p, int bm, convt_phase_plan *pl, char *why,
                          size_t why_len)
{
    convt_shape3 s = convt_problem_as_3d(p);
    memset(pl, 0, sizeof *pl);
    int64_t nph = s.stride[0] * s.stride[1] * s.stride[2];
    if (nph > (1 << 20)) {
        snprintf(why, why_len, "%lld stride phases are more than this variant plans for",
                 (long long)nph);
        return -1;
    }
    pl->phases = (convt_phase_desc *)calloc((size_t)nph, sizeof *pl->phases);
    pl->taps = (convt_phase_tap *)calloc((size_t)(s.k[0] * s.k[1] * s.k[2]), sizeof *pl->taps);
    if (!pl->phases || !pl->taps) {
        convt_phase_plan_free(pl);
        snprintf(why, why_len, "out of host memory for the phase plan");
        return -1;
    }
    for (int64_t idx = 0; idx < nph; idx++) {
        convt_phase_desc *d = &pl->phases[idx];
        int64_t rest = idx;
        int64_t m = p->n;
        for (int dim = 2; dim >= 0; dim--) {
            int64_t st = s.stride[dim];
            d->ph[dim] = (int)(rest % st);
            rest /= st;
            /* o = q*st + ph - pad in [0, out) */
            int64_t qmin = convt_ceil_div(s.pad[dim] - d->ph[dim], st);
            int64_t qmax = convt_floor_div(s.out[dim] - 1 + s.pad[dim] - d->ph[dim], st);
            int64_t cnt = qmax >= qmin ? qmax - qmin + 1 : 0;
            d->q_min[dim] = (int)qmin;
            d->q_count[dim] = (int)cnt;
            d->q_div[dim] = convt_fastdiv_make(cnt > 0 ? (uint32_t)cnt : 1);
            m *= cnt;
        }
        d->m_count = (int)m; /* supports() bounds it under 2^31 */
        d->m_tiles = (int)((m + bm - 1) / bm);
        d->tap_begin = pl->ntaps_total;
        for (int64_t k0 = 0; k0 < s.k[0]; k0++)
            for (int64_t k1 = 0; k1 < s.k[1]; k1++)
                for (int64_t k2 = 0; k2 < s.k[2]; k2++) {
                    int64_t k[3] = {k0, k1, k2}, off[3];
                    bool reaches = true;
                    for (int dim = 0; dim < 3 && reaches; dim++)
                        reaches = convt_tap_reaches_phase(k[dim], d->ph[dim], s.stride[dim],
                                                          s.dil[dim], &off[dim]);
                    if (!reaches)
                        continue;
                    convt_phase_tap t;
                    for (int dim = 0; dim < 3; dim++)
                        t.off[dim] = (int)off[dim];
                    t.lin = (int)((k0 * s.k[1] + k1) * s.k[2] + k2);
                    pl->taps[pl->ntaps_total++] = t;
                    d->ntaps++;
                }
    }
    /* Phases that no tap reaches receive the bias (or zero) only. Taps are
     * separable, so a phase has none exactly when some dimension's residue
     * has none; when dimension 0's or 1's has none, whole rows along the
     * innermost dimension get no tap (kb81: 2 of every 5 rows, kb77: 3 of
     * every 4). Their phases leave the launch, and the output is filled
     * first by coalesced stores: written by the GEMM's epilogue they cost one
     * scattered 4-byte store per element (kb77: 1.18 ms with them, 0.60
     * without). Phases empty only along the innermost dimension stay in the
     * launch: their stores complete the sectors of the phases beside them,
     * where without them those phases write partial sectors (kb79, 1-D
     * stride 2: 8% slower when its empty phase was left out). */
    int kept = 0;
    int64_t tiles = 0;
    for (int64_t idx = 0; idx < nph; idx++) {
        const convt_phase_desc *d = &pl->phases[idx];
        bool row_empty = d->ntaps == 0 && (!reach_of(&s, 0, d->ph[0]) || !reach_of(&s, 1, d->ph[1]));
        if (row_empty) {
            pl->prefill |= d->m_count > 0;
            continue;
        }
        if (d->m_tiles > tiles)
            tiles = d->m_tiles;
        pl->phases[kept++] = *d;
    }
    if (tiles * kept > 0x7fffffff) {
        convt_phase_plan_free(pl);
        snprintf(why, why_len, "more than 2^31-1 M tiles");
        return -1;
    }
    pl->nphases = kept;
    pl->m_tiles = (int)tiles;
    return 0;
}

int convt_phase_plan_rows(const convt_phase_plan *pl, int plane, convt_phase_tap_row **rows,
                          int **row_begin)
{
    /* at most one row per tap */
    *rows = (convt_phase_tap_row *)malloc(sizeof **rows * (size_t)(pl->ntaps_total ? pl->ntaps_total : 1));
    *row_begin = (int *)malloc(sizeof **row_begin * (size_t)(pl->nphases + 1));
    if (!*rows || !*row_begin) {
        free(*rows);
        free(*row_begin);
        *rows = NULL;
        *row_begin = NULL;
        return -1;
    }
    int n = 0;
    for (int i = 0; i < pl->nphases; i++) {
        const convt_phase_desc *d = &pl->phases[i];
        (*row_begin)[i] = n;
        for (int t = d->tap_begin; t < d->tap_begin + d->ntaps; t++) {
            const convt_phase_tap *tap = &pl->taps[t];
            convt_phase_tap_row *r = n > (*row_begin)[i] ? &(*rows)[n - 1] : NULL;
            /* taps are listed by k0, k1, k2: a plane's (one off[0]) and a
             * row's (one off[0] and off[1]) are consecutive */
            if (r && r->off[0] == tap->off[0] && (plane || r->off[1] == tap->off[1])) {
                r->ntaps++;
                if (tap->off[1] > r->off[1])
                    r->off[1] = tap->off[1];
                if (tap->off[1] < r->off1_min)
                    r->off1_min = tap->off[1];
                if (tap->off[2] < r->off2_min)
                    r->off2_min = tap->off[2];
                if (tap->off[2] > r->off2_max)
                    r->off2_max = tap->off[2];
                continue;
            }
            (*rows)[n++] = (convt_phase_tap_row){.off = {tap->off[0], tap->off[1]},
                                                 .off1_min = tap->off[1],
                                                 .off2_min = tap->off[2],
                                                 .off2_max = tap->off[2],
                                                 .tap_begin = t,
                                                 .ntaps = 1};
        }
    }
    (*row_begin)[pl->nphases] = n;
    return 0;
}
