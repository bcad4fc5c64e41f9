/* Timing one run: warm-up, then samples until the noise is low enough or the
 * budget is spent (nvbench's habit), each sample a pair of backend timer
 * marks around one launch (or, for runs too short to resolve, a batch of
 * launches divided by its size), the cache flushed before it when asked.
 *
 * The samples are taken in rounds, seconds apart and (in the driver) on
 * buffers moved to new memory. Samples taken back to back agree with each
 * other far better than with a second run of the sweep: on the H100, 374
 * KernelBench records moved by 0.1% (median) to 3.5% between two runs while
 * their within-run noise was mostly under 0.1%. The spread of the rounds'
 * medians is that between-run part, measured inside one run. */
#ifndef CONVT_SRC_MEASURE_H
#define CONVT_SRC_MEASURE_H

#include <stdbool.h>

#include "backend.h"
#include "errors.h"
#include "sweep_config.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct convt_timing {
    int samples;
    double median_ms, min_ms, max_ms, mean_ms, stddev_ms;
    /* Relative noise of one sample: sqrt(within^2 + between^2). within is the
     * interquartile range of the samples about their round's median, / 1.349
     * / median (robust); between is the standard deviation of the rounds'
     * medians / median (0 with one round). */
    double noise, noise_within, noise_between;
    int rounds;
    double round_median_ms[CONVT_MAX_ROUNDS];
    int placements;      /* distinct buffer placements the rounds ran on (driver) */
    bool target_met;     /* noise <= target when sampling stopped */
    double spent_s;      /* wall time spent sampling, warm-up included */
    bool cold_cache;
    bool held;           /* GPU work held until enqueued (backend.h); false: host time included */
    int batch;           /* launches per sample: 1, or more for runs under batch_below_us */
    /* Device clock read before each sample, where the backend can (NVML). */
    int clock_samples;   /* samples with a reading; 0: none could be read */
    unsigned sm_mhz_min, sm_mhz_max;
    int throttled_samples; /* taken while power, thermal or hardware slowdown was active */
} convt_timing;

/* Order statistics and moments of n samples (sorted in place), as one round:
 * noise = noise_within. */
void convt_timing_from_samples(double *samples, int n, convt_timing *out);

/* Enqueues one launch of the work being timed. */
typedef int (*convt_enqueue_fn)(void *arg, convt_err *e);

/* The samples of one run across its rounds. The caller runs the rounds
 * (convt_measure_round) when it likes, e.g. interleaved with other runs,
 * and turns them into a timing at the end (convt_sampling_finish). */
typedef struct convt_sampling {
    double *samples;     /* per launch, in the order taken */
    int n, cap;
    int rounds;
    int round_end[CONVT_MAX_ROUNDS]; /* samples[round_end[r-1] .. round_end[r]) */
    int batch;           /* fixed by the first round's probe */
    bool held;           /* false once a hold gave up: the later rounds are unheld too */
    double spent_s;
    int clocked, throttled;
    unsigned mhz_min, mhz_max;
} convt_sampling;

/* s->rounds, or 1 where it is unset (0). */
int convt_measure_rounds(const convt_measure_settings *s);

int convt_sampling_init(convt_sampling *acc, const convt_measure_settings *s, convt_err *e);
void convt_sampling_free(convt_sampling *acc);
/* One round: warm-up (the whole of s->warmup in the first round, one launch
 * in later ones), then samples until the round's share of min_samples and
 * min_time_s is reached and its own noise is under the target, or its share
 * of max_samples or max_time_s is spent. */
int convt_measure_round(const convt_backend *be, const convt_measure_settings *s,
                        convt_enqueue_fn run, void *arg, convt_sampling *acc, convt_err *e);
void convt_sampling_finish(const convt_sampling *acc, const convt_measure_settings *s,
                           convt_timing *out);

/* The median of round r's samples (NaN if it has none). */
double convt_sampling_round_median(const convt_sampling *acc, int r);

/* measure.prune: which runs stop after their first round. A run whose
 * first-round median is more than `prune` times the fastest first-round
 * median of its group (the launches of one variant on one shape) stops;
 * prune = 1.5 leaves a margin far above the spread of rounds (under 3% on
 * the H100), so a launch that could still be its variant's fastest is
 * never stopped. The rule compares launches of a variant only, never
 * variants with each other: every variant's best launch, vendors'
 * included, gets every round, and the fastest vendor record a speedup is
 * quoted against is as well measured as before.
 *
 * first_ms[i] is run i's first-round median (NaN: left alone), group[i]
 * its group; a group whose fastest is 0 (a timer too coarse) keeps all.
 * Sets stop[i], and best_ms[i] to the fastest first-round median of i's
 * group. Returns how many stop. */
int convt_prune_runs(const double *first_ms, const int *group, int n, double prune, bool *stop,
                     double *best_ms);

/* The device's drift over a whole run, from the clock probe's times
 * (backend.h) taken at the start of every round of every shape. A GPU moves
 * between clock steps (15 MHz, 0.8% at 1980 MHz) with its temperature over
 * seconds to minutes: on the H100, a shape timed twice was 0.77% slower in
 * one run for every variant alike, while its rounds, seconds apart, agreed
 * to 0.01%. Such a shift is invisible inside a shape and shows in the probe.
 *
 * The drift is a robust scale: the probes' interdecile range / 2.563 /
 * median (the stddev for Gaussian noise). A state that lasts a tenth of the
 * run or more widens it; a probe that caught a momentary power cap does not,
 * since such moments do not move a record's median of many samples either.
 * The plain relative stddev is recorded beside it. */
typedef struct convt_drift {
    int probes;
    double median_ms;    /* of the probe times */
    double relative;     /* interdecile range / 2.563 / median; 0 with fewer than 3 probes */
    double relative_sd;  /* stddev / mean, outliers and all */
    const double *probe_ms;      /* the probes in the order taken (not owned) */
    const unsigned *probe_mhz;   /* SM clock read after each probe, 0 where unknown */
} convt_drift;

void convt_drift_from_probes(const double *ms, int n, convt_drift *out);
/* A record's noise: its three parts are independent, so they add in squares. */
double convt_noise_total(double within, double between, double drift);

/* All of s->rounds back to back, for a caller with one thing to time. */
int convt_measure(const convt_backend *be, const convt_measure_settings *s, convt_enqueue_fn run,
                  void *arg, convt_timing *out, convt_err *e);

#ifdef __cplusplus
}
#endif
#endif
