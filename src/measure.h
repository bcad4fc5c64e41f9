/* Timing one run: warm-up, then samples until the noise is low enough or the
 * budget is spent (nvbench's habit), each sample a pair of backend timer
 * marks around one launch (or, for runs too short to resolve, a batch of
 * launches divided by its size), the cache flushed before it when asked. */
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
    double noise;        /* IQR / 1.349 / median: robust relative noise */
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

/* Order statistics and moments of n samples (sorted in place). */
void convt_timing_from_samples(double *samples, int n, convt_timing *out);

/* Enqueues one launch of the work being timed. */
typedef int (*convt_enqueue_fn)(void *arg, convt_err *e);

int convt_measure(const convt_backend *be, const convt_measure_settings *s, convt_enqueue_fn run,
                  void *arg, convt_timing *out, convt_err *e);

#ifdef __cplusplus
}
#endif
#endif
