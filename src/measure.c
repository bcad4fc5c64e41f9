#include "measure.h"

#include <math.h>
#include <stdlib.h>
#include <time.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median_sorted(const double *v, int n)
{
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Linear interpolation between order statistics (NumPy's default). */
static double quantile_sorted(const double *v, int n, double q)
{
    double pos = q * (n - 1);
    int lo = (int)pos;
    return lo + 1 < n ? v[lo] + (pos - lo) * (v[lo + 1] - v[lo]) : v[lo];
}

void convt_timing_from_samples(double *v, int n, convt_timing *t)
{
    t->samples = n;
    if (n == 0) {
        t->median_ms = t->min_ms = t->max_ms = t->mean_ms = t->stddev_ms = NAN;
        t->noise = INFINITY;
        return;
    }
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    double sum = 0;
    for (int i = 0; i < n; i++)
        sum += v[i];
    t->mean_ms = sum / n;
    double ss = 0;
    for (int i = 0; i < n; i++)
        ss += (v[i] - t->mean_ms) * (v[i] - t->mean_ms);
    t->stddev_ms = n > 1 ? sqrt(ss / (n - 1)) : 0.0;
    t->min_ms = v[0];
    t->max_ms = v[n - 1];
    t->median_ms = median_sorted(v, n);
    /* Interquartile range scaled to match stddev for Gaussian noise: one
     * preempted sample does not inflate it the way it inflates stddev, and,
     * unlike the median absolute deviation, a bimodal run (two clock states)
     * cannot hide behind a majority of identical samples. */
    double iqr = quantile_sorted(v, n, 0.75) - quantile_sorted(v, n, 0.25);
    t->noise = t->median_ms > 0 ? iqr / 1.349 / t->median_ms : 0.0;
}

static double wall_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int convt_measure(const convt_backend *be, const convt_measure_settings *s, convt_enqueue_fn run,
                  void *arg, convt_timing *out, convt_err *e)
{
    double start = wall_s();
    for (int i = 0; i < s->warmup; i++)
        if (run(arg, e))
            return -1;
    if (be->synchronize(e))
        return -1;
    double *samples = malloc((size_t)s->max_samples * sizeof *samples);
    double *scratch = malloc((size_t)s->max_samples * sizeof *scratch);
    if (!samples || !scratch) {
        free(samples);
        free(scratch);
        return convt_fail(e, "out of memory for %d samples", s->max_samples);
    }
    int n = 0, rc = -1, batch = 1;
    convt_timing t = {0};
    /* A launch shorter than batch_below_us is below what one pair of timer
     * marks resolves (event resolution and launch overhead are microseconds):
     * time `batch` back-to-back launches per sample instead and divide, with
     * enough launches that a sample lasts about BATCH_SAMPLE_US. The cache is
     * then flushed once per sample, so only the first launch of a batch is cold. */
    enum { BATCH_SAMPLE_US = 200, BATCH_MAX = 100 };
    bool held = true;
    if (s->batch_below_us > 0) {
        double probe = NAN;
        for (int tries = 0; isnan(probe) && tries < 2; tries++) {
            if ((s->cold_cache && be->flush_cache(e)) || be->timer_start(held, e) ||
                run(arg, e) || be->timer_stop(&probe, e))
                goto out;
            held = held && !isnan(probe); /* a hold that gave up: time unheld (below) */
        }
        if (isnan(probe)) {
            convt_fail(e, "the backend could not time a sample");
            goto out;
        }
        if (probe * 1e3 < s->batch_below_us) {
            double want = BATCH_SAMPLE_US / (probe * 1e3 > 0.1 ? probe * 1e3 : 0.1);
            batch = want > BATCH_MAX ? BATCH_MAX : (int)ceil(want);
        }
    }
    int clocked = 0, throttled = 0;
    unsigned mhz_min = 0, mhz_max = 0;
    while (n < s->max_samples) {
        if (s->cold_cache && be->flush_cache(e))
            goto out;
        convt_clock_reading clk;
        if (be->read_clock && be->read_clock(&clk) == 0) {
            mhz_min = clocked == 0 || clk.sm_mhz < mhz_min ? clk.sm_mhz : mhz_min;
            mhz_max = clk.sm_mhz > mhz_max ? clk.sm_mhz : mhz_max;
            throttled += clk.throttled;
            clocked++;
        }
        double ms;
        if (be->timer_start(held, e))
            goto out;
        for (int i = 0; i < batch; i++)
            if (run(arg, e))
                goto out;
        if (be->timer_stop(&ms, e))
            goto out;
        if (isnan(ms)) {
            /* The hold gave up before the host had enqueued the sample: the
             * variant synchronises inside its launch, or the queue was full.
             * The sample is thrown away and the run is timed unheld: its
             * samples then include the host's time inside the call. */
            if (!held) {
                convt_fail(e, "the backend could not time a sample");
                goto out;
            }
            held = false;
            continue;
        }
        samples[n++] = ms / batch;
        double spent = wall_s() - start;
        if (n < s->min_samples || spent < s->min_time_s)
            continue;
        if (spent >= s->max_time_s)
            break;
        for (int i = 0; i < n; i++)
            scratch[i] = samples[i];
        convt_timing_from_samples(scratch, n, &t);
        if (t.noise <= s->target_noise)
            break;
    }
    convt_timing_from_samples(samples, n, &t);
    t.target_met = t.noise <= s->target_noise;
    t.spent_s = wall_s() - start;
    t.cold_cache = s->cold_cache;
    t.batch = batch;
    t.held = held;
    t.clock_samples = clocked;
    t.sm_mhz_min = mhz_min;
    t.sm_mhz_max = mhz_max;
    t.throttled_samples = throttled;
    *out = t;
    rc = 0;
out:
    free(samples);
    free(scratch);
    return rc;
}
