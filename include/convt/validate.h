/* Validation verdicts: how far a float32 output is from the float64
 * reference, per precision tier (DESIGN.md, "Validation").
 *
 * Element i passes when |y_i - ref_i| <= atol + rtol * mag_i, where mag_i is
 * the sum of the magnitudes of the terms of ref_i: a float32 (or TF32)
 * summation of those terms in any order errs by at most a small multiple of
 * unit roundoff times mag_i, so the bound is tight for correct kernels and
 * independent of cancellation. The output passes when every element passes,
 * none is NaN or infinite, and the normwise error ||y - ref|| / ||ref|| is
 * at most the tier's normwise tolerance. */
#ifndef CONVT_SRC_VALIDATE_H
#define CONVT_SRC_VALIDATE_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum convt_tier { CONVT_TIER_FP32 = 0, CONVT_TIER_TF32 = 1, CONVT_TIER_COUNT } convt_tier;

const char *convt_tier_name(convt_tier t);
/* Returns -1 for an unknown name. */
int convt_tier_from_name(const char *name);

typedef struct convt_tolerance {
    double rtol;      /* relative to the magnitude of the element's terms */
    double atol;      /* absolute floor */
    double normwise;  /* bound on ||y - ref||_2 / ||ref||_2 */
} convt_tolerance;

/* Defaults: fp32 rtol 1e-5 (float32 unit roundoff is 6e-8; accumulation
 * errors stay well under 1e-5 of the magnitude sum up to ~10^5 terms),
 * normwise 1e-5; tf32 rtol 2e-3 (each TF32 operand rounds at 2^-11, so a
 * product errs by up to ~1e-3), normwise 2e-3 (cuDNN's TF32 lands ~3e-4). */
convt_tolerance convt_tolerance_default(convt_tier t);

/* Sums and extremes over the compared elements; partial results (e.g. one
 * per GPU block) combine with convt_error_merge. */
typedef struct convt_error_stats {
    int64_t count;        /* elements compared */
    int64_t nonfinite;    /* NaN or infinite outputs (an unwritten NaN-poisoned element counts here) */
    int64_t bad;          /* finite elements outside atol + rtol*mag */
    double err_sq;        /* sum (y - ref)^2 over finite elements */
    double ref_sq;        /* sum ref^2 */
    double max_abs_err;
    double worst_ratio;   /* max |y - ref| / (atol + rtol*mag); <= 1 passes */
    int64_t worst_index;  /* flat index of worst_ratio (first nonfinite if any) */
    double worst_y, worst_ref;
} convt_error_stats;

void convt_error_stats_init(convt_error_stats *s);
void convt_error_merge(convt_error_stats *into, const convt_error_stats *part);
/* Adds element i to s. */
void convt_error_add(convt_error_stats *s, const convt_tolerance *t, int64_t i, float y,
                     double ref, double mag);
/* The whole comparison on host arrays of count elements. */
void convt_compare_host(const float *y, const double *ref, const double *mag, int64_t count,
                        const convt_tolerance *t, convt_error_stats *out);

double convt_normwise_error(const convt_error_stats *s);
bool convt_error_passes(const convt_error_stats *s, const convt_tolerance *t);
/* One line saying why a comparison failed (or "within tolerance"). */
void convt_error_describe(const convt_error_stats *s, const convt_tolerance *t, char *buf,
                          unsigned len);

#ifdef __cplusplus
}
#endif
#endif
