#include "measure.h"
#include "stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void moments(const double *v, int n, convt_timing *t)
{
    convt_moments(v, n, &t->mean_ms, &t->stddev_ms, &t->min_ms, &t->max_ms);
}

void convt_timing_from_samples(double *v, int n, convt_timing *t)
{
    t->samples = n;
    t->rounds = n > 0;
    t->noise_between = 0;
    if (n == 0) {
        t->median_ms = t->min_ms = t->max_ms = t->mean_ms = t->stddev_ms = NAN;
        t->noise = t->noise_within = INFINITY;
        return;
    }
    convt_sort(v, n);
    moments(v, n, t);
    t->median_ms = convt_median_sorted(v, n);
    t->round_median_ms[0] = t->median_ms;
    t->noise = t->noise_within = t->median_ms > 0 ? convt_robust_sigma_sorted(v, n) / t->median_ms : 0.0;
}

static double wall_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* A round's share of a total, rounded up: rounds together take at least it. */
static int share_up(int total, int rounds)
{
    return (total + rounds - 1) / rounds;
}

int convt_measure_rounds(const convt_measure_settings *s)
{
    return s->rounds > 0 ? s->rounds : 1;
}

/* Samples a round may take: its share of max_samples, never under its share
 * of min_samples. */
static int round_max_samples(const convt_measure_settings *s)
{
    int min_n = share_up(s->min_samples, convt_measure_rounds(s)), max_n = share_up(s->max_samples, convt_measure_rounds(s));
    return max_n < min_n ? min_n : max_n;
}

int convt_sampling_init(convt_sampling *acc, const convt_measure_settings *s, convt_err *e)
{
    memset(acc, 0, sizeof *acc);
    acc->cap = convt_measure_rounds(s) * round_max_samples(s);
    acc->batch = 0; /* not probed yet */
    acc->held = true;
    if (!(acc->samples = malloc((size_t)acc->cap * sizeof *acc->samples)))
        return convt_fail(e, "out of memory for %d samples", acc->cap);
    return 0;
}

void convt_sampling_free(convt_sampling *acc)
{
    free(acc->samples);
    acc->samples = NULL;
}

static void note_clock(convt_sampling *acc, const convt_clock_reading *before,
                       const convt_clock_reading *after)
{
    unsigned lo = before->sm_mhz < after->sm_mhz ? before->sm_mhz : after->sm_mhz;
    unsigned hi = before->sm_mhz > after->sm_mhz ? before->sm_mhz : after->sm_mhz;
    acc->mhz_min = acc->clocked == 0 || lo < acc->mhz_min ? lo : acc->mhz_min;
    acc->mhz_max = hi > acc->mhz_max ? hi : acc->mhz_max;
    acc->throttled += before->throttled || after->throttled;
    acc->clocked++;
}

/* One sample: the cache flushed when asked (outside the timer), then
 * `launches` launches between the timer marks. With `clocks`, the clock is
 * read before and after (the clock drops under load and is back up by the
 * time the next sample starts) and noted there. *ms is NaN when the backend
 * cannot vouch for the sample (a hold that gave up). */
static int time_sample(const convt_backend *be, const convt_measure_settings *s,
                       convt_enqueue_fn run, void *arg, int launches, bool held,
                       convt_sampling *clocks, double *ms, convt_err *e)
{
    if (s->cold_cache && be->flush_cache(e))
        return -1;
    convt_clock_reading before, after;
    bool clocked = clocks && be->read_clock && be->read_clock(&before) == 0;
    if (be->timer_start(held, e))
        return -1;
    for (int i = 0; i < launches; i++)
        if (run(arg, e))
            return -1;
    if (be->timer_stop(ms, e))
        return -1;
    if (clocked && be->read_clock(&after) == 0)
        note_clock(clocks, &before, &after);
    return 0;
}

/* Decides the batch size from probe launches; see convt_measure_round. */
static int probe_batch(const convt_backend *be, const convt_measure_settings *s,
                       convt_enqueue_fn run, void *arg, convt_sampling *acc, convt_err *e)
{
    /* A launch shorter than batch_below_us is below what one pair of timer
     * marks resolves (event resolution and launch overhead are microseconds):
     * time `batch` back-to-back launches per sample instead and divide, with
     * enough launches that a sample lasts about BATCH_SAMPLE_US. The cache is
     * then flushed once per sample, so only the first launch of a batch is cold.
     *
     * A batched time (one cold launch, the rest warm) is not a single cold
     * launch's time, so the choice must not flip between two runs of the same
     * kernel: the probe is the median of PROBES launches, not one launch that
     * may be an outlier (on the H100 one run batched a 17 us kernel and the
     * next timed it alone, 18% slower), and the batch size is a power of two,
     * so a small change in the probe leaves it alone.
     *
     * Once more than half the probes are at or above the line, the median
     * is too, and the rest could not change the decision (one launch per
     * sample): probing stops there. A 100-ms launch then costs three
     * probes, not five. */
    enum { BATCH_SAMPLE_US = 200, BATCH_MAX = 128, PROBES = 5 };
    acc->batch = 1;
    if (s->batch_below_us <= 0)
        return 0;
    double probes[PROBES];
    int n = 0, at_or_above = 0;
    for (int tries = 0; n < PROBES && tries < PROBES + 2; tries++) {
        double ms;
        if (time_sample(be, s, run, arg, 1, acc->held, NULL, &ms, e))
            return -1;
        if (isnan(ms)) {
            acc->held = false; /* a hold that gave up: time unheld from now on */
            continue;
        }
        probes[n++] = ms;
        if (ms * 1e3 >= s->batch_below_us && ++at_or_above > PROBES / 2)
            return 0;
    }
    if (n == 0)
        return convt_fail(e, "the backend could not time a sample");
    convt_sort(probes, n);
    double us = convt_median_sorted(probes, n) * 1e3;
    if (us < s->batch_below_us) {
        double want = BATCH_SAMPLE_US / (us > 0.1 ? us : 0.1);
        while (acc->batch < want && acc->batch < BATCH_MAX)
            acc->batch *= 2;
    }
    return 0;
}

int convt_measure_round(const convt_backend *be, const convt_measure_settings *s,
                        convt_enqueue_fn run, void *arg, convt_sampling *acc, convt_err *e)
{
    int rounds = convt_measure_rounds(s);
    if (acc->rounds >= rounds)
        return convt_fail(e, "a round more than measure.rounds = %d", rounds);
    double start = wall_s();
    int warmup = acc->rounds == 0 ? s->warmup : (s->warmup > 0);
    for (int i = 0; i < warmup; i++)
        if (run(arg, e))
            return -1;
    if (be->synchronize(e))
        return -1;
    if (acc->batch == 0 && probe_batch(be, s, run, arg, acc, e))
        return -1;
    int min_n = share_up(s->min_samples, rounds), max_n = round_max_samples(s);
    if (max_n > acc->cap - acc->n)
        max_n = acc->cap - acc->n;
    double min_time = s->min_time_s / rounds, max_time = s->max_time_s / rounds;
    double *mine = acc->samples + acc->n;
    double scratch[64];
    int n = 0;
    while (n < max_n) {
        double ms;
        if (time_sample(be, s, run, arg, acc->batch, acc->held, acc, &ms, e))
            return -1;
        if (isnan(ms)) {
            /* The hold gave up before the host had enqueued the sample: the
             * variant synchronises inside its launch, or the queue was full.
             * The sample is thrown away and the run is timed unheld: its
             * samples then include the host's time inside the call. */
            if (!acc->held)
                return convt_fail(e, "the backend could not time a sample");
            acc->held = false;
            continue;
        }
        mine[n++] = ms / acc->batch;
        double spent = wall_s() - start;
        if (n < min_n || spent < min_time)
            continue;
        if (spent >= max_time)
            break;
        /* The round's own noise: past 64 samples the target is all but met
         * or the time budget decides, so the check looks at the last 64. */
        int k = n < 64 ? n : 64;
        memcpy(scratch, mine + n - k, (size_t)k * sizeof *scratch);
        convt_timing t;
        convt_timing_from_samples(scratch, k, &t);
        if (t.noise <= s->target_noise)
            break;
    }
    acc->n += n;
    acc->round_end[acc->rounds++] = acc->n;
    acc->spent_s += wall_s() - start;
    return 0;
}

void convt_sampling_finish(const convt_sampling *acc, const convt_measure_settings *s,
                           convt_timing *out)
{
    convt_timing t = {0};
    int n = acc->n;
    double *all = malloc((size_t)(n > 0 ? n : 1) * sizeof *all);
    double *dev = malloc((size_t)(n > 0 ? n : 1) * sizeof *dev);
    if (!all || !dev || n == 0) {
        convt_timing_from_samples(all, 0, &t);
    } else {
        memcpy(all, acc->samples, (size_t)n * sizeof *all);
        /* Each round's median, and every sample's deviation from it. */
        double msum = 0;
        for (int r = 0, begin = 0; r < acc->rounds; begin = acc->round_end[r++]) {
            int k = acc->round_end[r] - begin;
            memcpy(dev + begin, acc->samples + begin, (size_t)k * sizeof *dev);
            convt_sort(dev + begin, k);
            double m = convt_median_sorted(dev + begin, k); /* k >= 1: every round samples */
            t.round_median_ms[r] = m;
            msum += m;
            for (int i = 0; i < k; i++)
                dev[begin + i] = acc->samples[begin + i] - m;
        }
        convt_sort(all, n);
        t.samples = n;
        moments(all, n, &t);
        t.median_ms = convt_median_sorted(all, n);
        t.rounds = acc->rounds;
        convt_sort(dev, n);
        t.noise_within = t.median_ms > 0 ? convt_robust_sigma_sorted(dev, n) / t.median_ms : 0.0;
        double between = 0;
        if (acc->rounds > 1) {
            double mean = msum / acc->rounds, ss = 0;
            for (int r = 0; r < acc->rounds; r++)
                ss += (t.round_median_ms[r] - mean) * (t.round_median_ms[r] - mean);
            between = sqrt(ss / (acc->rounds - 1));
        }
        t.noise_between = t.median_ms > 0 ? between / t.median_ms : 0.0;
        t.noise = convt_noise_total(t.noise_within, t.noise_between, 0);
    }
    free(all);
    free(dev);
    t.target_met = t.noise <= s->target_noise;
    t.spent_s = acc->spent_s;
    t.cold_cache = s->cold_cache;
    t.batch = acc->batch > 0 ? acc->batch : 1;
    t.held = acc->held;
    t.placements = 1;
    t.clock_samples = acc->clocked;
    t.sm_mhz_min = acc->mhz_min;
    t.sm_mhz_max = acc->mhz_max;
    t.throttled_samples = acc->throttled;
    *out = t;
}

double convt_sampling_round_median(const convt_sampling *acc, int r)
{
    if (r < 0 || r >= acc->rounds)
        return NAN;
    int begin = r > 0 ? acc->round_end[r - 1] : 0, k = acc->round_end[r] - begin;
    if (k <= 0)
        return NAN;
    double *v = malloc((size_t)k * sizeof *v);
    if (!v)
        return NAN;
    memcpy(v, acc->samples + begin, (size_t)k * sizeof *v);
    convt_sort(v, k);
    double m = convt_median_sorted(v, k);
    free(v);
    return m;
}

int convt_prune_runs(const double *first_ms, const int *group, int n, double prune, bool *stop,
                     double *best_ms)
{
    int stopped = 0;
    for (int i = 0; i < n; i++) {
        double best = NAN;
        for (int j = 0; j < n; j++)
            if (group[j] == group[i] && isfinite(first_ms[j]) && !(first_ms[j] >= best))
                best = first_ms[j];
        best_ms[i] = best;
        /* best 0: a timer too coarse to resolve the fastest gives no ratio */
        stop[i] = prune > 0 && best > 0 && isfinite(first_ms[i]) && first_ms[i] > prune * best;
        stopped += stop[i];
    }
    return stopped;
}

double convt_noise_total(double within, double between, double drift)
{
    return sqrt(within * within + between * between + drift * drift);
}

void convt_drift_from_probes(const double *ms, int n, convt_drift *out)
{
    memset(out, 0, sizeof *out);
    out->probes = n;
    out->probe_ms = ms;
    out->median_ms = NAN;
    double *v = n > 0 ? malloc((size_t)n * sizeof *v) : NULL;
    if (!v)
        return;
    memcpy(v, ms, (size_t)n * sizeof *v);
    convt_sort(v, n);
    out->median_ms = convt_median_sorted(v, n);
    if (n >= 3 && out->median_ms > 0)
        out->relative = (convt_quantile_sorted(v, n, 0.9) - convt_quantile_sorted(v, n, 0.1)) / 2.563 /
                        out->median_ms;
    convt_timing m;
    moments(v, n, &m);
    free(v);
    out->relative_sd = n >= 3 && m.mean_ms > 0 ? m.stddev_ms / m.mean_ms : 0.0;
}

int convt_measure(const convt_backend *be, const convt_measure_settings *s, convt_enqueue_fn run,
                  void *arg, convt_timing *out, convt_err *e)
{
    convt_sampling acc;
    if (convt_sampling_init(&acc, s, e))
        return -1;
    int rc = 0;
    for (int r = 0; r < convt_measure_rounds(s) && rc == 0; r++)
        rc = convt_measure_round(be, s, run, arg, &acc, e);
    if (rc == 0)
        convt_sampling_finish(&acc, s, out);
    convt_sampling_free(&acc);
    return rc;
}
