#include "stats.h"

#include <math.h>
#include <stdlib.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void convt_sort(double *v, int n)
{
    if (n > 1)
        qsort(v, (size_t)n, sizeof *v, cmp_double);
}

double convt_median_sorted(const double *v, int n)
{
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double convt_median(double *v, int n)
{
    convt_sort(v, n);
    return convt_median_sorted(v, n);
}

double convt_quantile_sorted(const double *v, int n, double q)
{
    double pos = q * (n - 1);
    int lo = (int)pos;
    return lo + 1 < n ? v[lo] + (pos - lo) * (v[lo + 1] - v[lo]) : v[lo];
}

double convt_rank_sorted(const double *v, int n, double q)
{
    int i = (int)ceil(q * n) - 1;
    return v[i < 0 ? 0 : i >= n ? n - 1 : i];
}

double convt_robust_sigma_sorted(const double *v, int n)
{
    return (convt_quantile_sorted(v, n, 0.75) - convt_quantile_sorted(v, n, 0.25)) / 1.349;
}

void convt_moments(const double *v, int n, double *mean, double *sd, double *min, double *max)
{
    double sum = 0, ss = 0, lo = INFINITY, hi = -INFINITY;
    for (int i = 0; i < n; i++) {
        sum += v[i];
        lo = v[i] < lo ? v[i] : lo;
        hi = v[i] > hi ? v[i] : hi;
    }
    double m = n > 0 ? sum / n : NAN;
    for (int i = 0; i < n; i++)
        ss += (v[i] - m) * (v[i] - m);
    if (mean)
        *mean = m;
    if (sd)
        *sd = n > 1 ? sqrt(ss / (n - 1)) : 0.0;
    if (min)
        *min = lo;
    if (max)
        *max = hi;
}
