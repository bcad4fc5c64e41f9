#include "validate.h"
#include "validate_core.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const char *const tier_names[CONVT_TIER_COUNT] = {"fp32", "tf32"};

const char *convt_tier_name(convt_tier t)
{
    return (unsigned)t < CONVT_TIER_COUNT ? tier_names[t] : "?";
}

int convt_tier_from_name(const char *name)
{
    for (int t = 0; t < CONVT_TIER_COUNT; t++)
        if (!strcmp(name, tier_names[t]))
            return t;
    return -1;
}

convt_tolerance convt_tolerance_default(convt_tier t)
{
    if (t == CONVT_TIER_TF32)
        return (convt_tolerance){.rtol = 2e-3, .atol = 1e-6, .normwise = 2e-3};
    return (convt_tolerance){.rtol = 1e-5, .atol = 1e-6, .normwise = 1e-5};
}

void convt_error_stats_init(convt_error_stats *s) { convt_stats_clear(s); }

void convt_error_merge(convt_error_stats *into, const convt_error_stats *part)
{
    convt_stats_merge(into, part);
}

void convt_error_add(convt_error_stats *s, const convt_tolerance *t, int64_t i, float y,
                     double ref, double mag)
{
    convt_stats_add(s, t->rtol, t->atol, i, y, ref, mag);
}

void convt_compare_host(const float *y, const double *ref, const double *mag, int64_t count,
                        const convt_tolerance *t, convt_error_stats *out)
{
    convt_error_stats_init(out);
    for (int64_t i = 0; i < count; i++)
        convt_error_add(out, t, i, y[i], ref[i], mag[i]);
}

double convt_normwise_error(const convt_error_stats *s)
{
    if (s->nonfinite)
        return INFINITY;
    if (s->ref_sq == 0.0)
        return s->err_sq == 0.0 ? 0.0 : INFINITY;
    return sqrt(s->err_sq / s->ref_sq);
}

bool convt_error_passes(const convt_error_stats *s, const convt_tolerance *t)
{
    return s->count > 0 && s->nonfinite == 0 && s->bad == 0 &&
           convt_normwise_error(s) <= t->normwise;
}

void convt_error_describe(const convt_error_stats *s, const convt_tolerance *t, char *buf,
                          unsigned len)
{
    if (s->count == 0)
        snprintf(buf, len, "nothing was compared");
    else if (s->nonfinite)
        snprintf(buf, len,
                 "%lld of %lld outputs are NaN or infinite (never written, or overflowed); "
                 "first at flat index %lld (reference %.6g)",
                 (long long)s->nonfinite, (long long)s->count, (long long)s->worst_index,
                 s->worst_ref);
    else if (s->bad)
        snprintf(buf, len,
                 "%lld of %lld outputs outside atol %.1e + rtol %.1e x magnitude; worst at "
                 "flat index %lld: got %.9g, reference %.9g (%.3g x tolerance); normwise "
                 "error %.3e",
                 (long long)s->bad, (long long)s->count, t->atol, t->rtol,
                 (long long)s->worst_index, s->worst_y, s->worst_ref, s->worst_ratio,
                 convt_normwise_error(s));
    else if (!convt_error_passes(s, t))
        snprintf(buf, len, "normwise error %.3e exceeds %.1e", convt_normwise_error(s),
                 t->normwise);
    else
        snprintf(buf, len, "within tolerance: normwise %.3e, worst %.3g x tolerance",
                 convt_normwise_error(s), s->worst_ratio);
}
