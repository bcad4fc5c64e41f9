/* compare: today's results against a stored baseline, for CI.
 *
 * Records match by (shape key, variant, launch, tier). Each matched pair
 * gets a verdict from a bootstrap interval of the ratio current / baseline
 * of their medians (bootstrap.h: rounds and samples resampled, widened by
 * both runs' drift; CONVT_COMPARE_CONFIDENCE, CONVT_COMPARE_REPLICATES),
 * against the threshold t:
 *   slower     the whole interval above 1 + t   (a regression: exit 1)
 *   faster     the whole interval below 1 - t
 *   same       the whole interval inside [1 - t, 1 + t]
 *   ambiguous  otherwise: the data cannot tell (exit 1 with
 *              --fail-on-ambiguous)
 * Records without raw samples (results schema 1) fall back to the noise
 * rule: slower when the median got slower by more than max(t, the sum of
 * the relative noises both runs recorded).
 * A record that was ok and is now wrong or failed is a regression whatever
 * its time. Per shape and tier, the winners (each run's selection, select.h)
 * are judged the same way. Records present on one side only are listed, not
 * judged; so are records whose variant chose differently on the two sides
 * (their `detail` differs, e.g. cuDNN's search picked another algorithm):
 * they timed another kernel. */
#ifndef CONVT_SRC_COMPARE_H
#define CONVT_SRC_COMPARE_H

#include <stdbool.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cJSON cJSON;

#define CONVT_COMPARE_CONFIDENCE 0.95
#define CONVT_COMPARE_REPLICATES 2000

typedef struct convt_compare_options {
    double threshold;   /* relative, e.g. 0.05 for 5% */
    bool markdown;      /* a markdown table instead of plain text */
    bool strict;        /* refuse different GPUs or toolkits instead of warning */
    bool fail_on_ambiguous; /* for the caller's exit status: ambiguous counts as failing */
} convt_compare_options;

typedef struct convt_compare_summary {
    int matched, regressed, improved, unchanged, ambiguous;
    int redefined;             /* detail differs (another algorithm): shown, not judged */
    int turned_bad;            /* ok in the baseline, wrong or failed now */
    int winners_regressed, winners_ambiguous;
    int winners_compared;      /* (shape, tier) rows with a winner in both runs */
    int winners_changed;       /* ... whose winner is another record */
    int winners_changed_untied; /* ... though neither run declared a tie */
    int only_baseline, only_current;
    bool environment_differs;  /* device, driver, runtime or cuDNN */
    /* Run-to-run spread over the records ok on both sides: |current/baseline - 1|. */
    int spread_count;
    double spread_median, spread_p95, spread_max;
    double within_noise;       /* fraction whose change is within the two runs' recorded noise */
} convt_compare_summary;

/* Writes the report to out; returns 0 when the environments may be compared
 * (always, unless strict and they differ: then -1 and nothing is judged). */
int convt_compare(const cJSON *baseline, const cJSON *current, const convt_compare_options *opt,
                  FILE *out, convt_compare_summary *sum);

#ifdef __cplusplus
}
#endif
#endif
