/* compare --best: what a kernel change did to each variant at its best.
 *
 * compare judges launch by launch. A change to a kernel is read by its
 * best launch on each layer instead (results/notes.md quotes "1.022x the
 * time on few-channels' 20 (layer, variant) pairs"): per (shape key,
 * variant, tier) present in both runs, the fastest ok record on each side
 * (status ok and a median; pruned launches, which the selection never
 * picks, are left out), their medians and launches, the ratio current /
 * baseline; then each variant's geometric mean of its ratios, and all of
 * them together. No verdict and no bootstrap: the launch-by-launch report
 * judges noise; this one says where the best of each variant moved. */
#ifndef CONVT_SRC_COMPARE_BEST_H
#define CONVT_SRC_COMPARE_BEST_H

#include <stdbool.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cJSON cJSON;

typedef struct convt_compare_best_summary {
    int pairs;        /* (shape, variant, tier) groups with an ok record on both sides */
    double geomean;   /* of current / baseline over them (NaN where none) */
} convt_compare_best_summary;

/* Writes the report to out (a markdown table with md); 0, or -1 when out of
 * memory. */
int convt_compare_best(const cJSON *baseline, const cJSON *current, bool md, FILE *out,
                       convt_compare_best_summary *sum);

#ifdef __cplusplus
}
#endif
#endif
