#include "bootstrap.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hostdevice.h"
#include "stats.h"


static int total(const convt_round_samples *s)
{
    return s->rounds > 0 ? s->end[s->rounds - 1] : 0;
}


/* Uniform in [0, n): splitmix64 steps, reduced without a visible bias for
 * the small n here (rounds and samples number in the tens). */
static int draw(uint64_t *state, int n)
{
    *state += 0x9e3779b97f4a7c15ull;
    return (int)(convt_mix64(*state) % (uint64_t)n);
}

/* The most samples a replicate can draw: as many rounds as s has, each of
 * the longest round's length (rounds are drawn with replacement, so a
 * replicate may hold the longest round several times). */
static size_t replicate_size(const convt_round_samples *s)
{
    size_t longest = 0;
    for (int r = 0, begin = 0; r < s->rounds; begin = s->end[r++])
        if ((size_t)(s->end[r] - begin) > longest)
            longest = (size_t)(s->end[r] - begin);
    return (size_t)s->rounds * longest; /* rounds, lengths: ints; no overflow in size_t */
}

/* A replicate of more samples than this is refused (the caller falls back to
 * its noise rule): real runs take at most a few thousand, and a file that
 * claims one round of a million beside thousands of others would ask for
 * gigabytes per replicate. */
#define MAX_REPLICATE (1u << 22)

/* One replicate's median: rounds with replacement, then samples within
 * each chosen round with replacement. buf holds replicate_size(s) doubles. */
static double replicate(const convt_round_samples *s, uint64_t *state, double *buf)
{
    int k = 0;
    for (int r = 0; r < s->rounds; r++) {
        int pick = draw(state, s->rounds);
        int begin = pick ? s->end[pick - 1] : 0, len = s->end[pick] - begin;
        for (int i = 0; i < len; i++)
            buf[k++] = s->v[begin + draw(state, len)];
    }
    return convt_median(buf, k);
}

/* Rounds must be non-empty and in order, the samples finite and positive. */
static int valid(const convt_round_samples *s)
{
    if (!s || !s->v || !s->end || s->rounds < 1)
        return 0;
    for (int r = 0, begin = 0; r < s->rounds; begin = s->end[r++])
        if (s->end[r] <= begin)
            return 0;
    for (int i = 0; i < total(s); i++)
        if (!(s->v[i] > 0) || !isfinite(s->v[i]))
            return 0;
    return 1;
}

int convt_bootstrap_median_ratio(const convt_round_samples *a, const convt_round_samples *b,
                                 double drift_a, double drift_b, double confidence,
                                 int replicates, uint64_t seed, convt_ratio_interval *out)
{
    if (!valid(a) || !valid(b) || replicates < 10 || !(confidence > 0 && confidence < 1))
        return -1;
    int na = total(a), nb = total(b);
    size_t room = replicate_size(a) > replicate_size(b) ? replicate_size(a) : replicate_size(b);
    if (room > MAX_REPLICATE)
        return -1;
    double *buf = malloc(room * sizeof *buf);
    double *ratio = malloc((size_t)replicates * sizeof *ratio);
    if (!buf || !ratio) {
        free(buf);
        free(ratio);
        return -1;
    }
    memcpy(buf, a->v, (size_t)na * sizeof *buf);
    double ma = convt_median(buf, na);
    memcpy(buf, b->v, (size_t)nb * sizeof *buf);
    out->point = convt_median(buf, nb) / ma;
    uint64_t state = seed;
    for (int i = 0; i < replicates; i++) {
        double ra = replicate(a, &state, buf);
        ratio[i] = replicate(b, &state, buf) / ra;
    }
    convt_sort(ratio, replicates);
    double tail = (1 - confidence) / 2;
    int ilo = (int)floor(tail * (replicates - 1)), ihi = (int)ceil((1 - tail) * (replicates - 1));
    double widen = exp(CONVT_DRIFT_SIGMAS * sqrt(drift_a * drift_a + drift_b * drift_b));
    out->lo = ratio[ilo] / widen;
    out->hi = ratio[ihi] * widen;
    free(buf);
    free(ratio);
    return 0;
}
