/* How sure is "B is slower than A"? A bootstrap interval of the ratio of
 * two records' medians, from their raw samples (timing.samples_ms).
 *
 * The samples of one record come in rounds taken seconds apart on buffers
 * moved to new memory (measure.h): samples inside a round agree with each
 * other better than with another round's, so resampling single samples
 * would claim a precision the run does not have. Each bootstrap replicate
 * therefore resamples at both levels: the rounds with replacement, then the
 * samples inside each chosen round with replacement; the replicate's median
 * is the median of all samples so drawn. The ratio current / baseline of
 * the two replicates' medians, over `replicates` replicates, gives the
 * percentile interval [lo, hi] at the chosen confidence.
 *
 * What no sample of one run can show, the device drifting between runs
 * (measure.h: convt_drift), widens the interval on the log scale by
 * CONVT_DRIFT_SIGMAS * sqrt(drift_a^2 + drift_b^2). One standard deviation,
 * not the confidence's 1.96: the drift is the clock probe's spread over a
 * whole run, while one record's rounds sit within seconds of it, and records
 * move less than it between runs. On the H100 (two back-to-back KernelBench
 * runs, 2026-11-23, drift 1.6% each) the records' run-to-run change had a
 * 95th percentile of 1.2%; widening by 1.96 drifts made 433 of 850 pairs
 * "ambiguous" at a 5% threshold, by one drift 66.
 *
 * The generator is seeded by the caller: the same files give the same
 * verdict every time. */
#ifndef CONVT_SRC_BOOTSTRAP_H
#define CONVT_SRC_BOOTSTRAP_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CONVT_DRIFT_SIGMAS 1.0

/* One record's samples: v[end[r-1] .. end[r]) is round r (end[-1] = 0). */
typedef struct convt_round_samples {
    const double *v;
    const int *end;
    int rounds;
} convt_round_samples;

typedef struct convt_ratio_interval {
    double lo, hi;     /* current / baseline, at the confidence asked */
    double point;      /* the ratio of the two plain medians */
} convt_ratio_interval;

/* 0, or -1 when either side has no samples or more than a replicate may
 * hold (4M). confidence e.g. 0.95. */
int convt_bootstrap_median_ratio(const convt_round_samples *baseline,
                                 const convt_round_samples *current, double drift_baseline,
                                 double drift_current, double confidence, int replicates,
                                 uint64_t seed, convt_ratio_interval *out);

#ifdef __cplusplus
}
#endif
#endif
