/* The statistics of timing samples, in one place: sorting, medians,
 * quantiles, the robust spread, mean and standard deviation. measure.c
 * (records), bootstrap.c (compare's intervals) and compare.c (run-to-run
 * spread) use these; tools/torch_baseline.py mirrors them. */
#ifndef CONVT_SRC_TOOL_STATS_H
#define CONVT_SRC_TOOL_STATS_H

#ifdef __cplusplus
extern "C" {
#endif

/* Sorts v[0..n) ascending. */
void convt_sort(double *v, int n);
/* The median of sorted v (the mean of the middle two for even n); n >= 1. */
double convt_median_sorted(const double *v, int n);
/* Sorts v, then its median. */
double convt_median(double *v, int n);
/* The q-quantile of sorted v by linear interpolation between order
 * statistics (NumPy's default); n >= 1. */
double convt_quantile_sorted(const double *v, int n, double q);
/* The nearest-rank q-quantile of sorted v: v[ceil(q n) - 1]; n >= 1. */
double convt_rank_sorted(const double *v, int n, double q);
/* Interquartile range / 1.349 of sorted v: the standard deviation for
 * Gaussian noise, but one preempted sample does not inflate it, and, unlike
 * the median absolute deviation, a bimodal run (two clock states) cannot hide
 * behind a majority of identical samples. */
double convt_robust_sigma_sorted(const double *v, int n);
/* Mean, sample standard deviation (0 for n = 1), minimum and maximum; any
 * output pointer may be NULL. */
void convt_moments(const double *v, int n, double *mean, double *sd, double *min, double *max);

#ifdef __cplusplus
}
#endif
#endif
