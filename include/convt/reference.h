/* The float64 reference: the gather form of DESIGN.md, written for
 * obviousness, not speed. Every output point is an independent sum, so the
 * same point function serves the full reference (tests, CPU backend) and the
 * spot checks of the GPU reference. */
#ifndef CONVT_SRC_REFERENCE_H
#define CONVT_SRC_REFERENCE_H

#include "problem.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One output element y[idx] (flat index in [0, convt_y_elems)) in float64,
 * and the sum of the magnitudes of its terms (|b| + sum |x*w|), which bounds
 * the rounding error any float32 summation order can make. b may be NULL
 * when the problem has no bias. */
void convt_reference_point(const convt_problem *p, const float *x, const float *w,
                           const float *b, int64_t idx, double *value, double *magnitude);

/* Every output element; ref and mag (either may be NULL) hold
 * convt_y_elems(p) doubles each, owned by the caller. Parallel over outputs
 * with OpenMP when built with it. */
void convt_reference(const convt_problem *p, const float *x, const float *w, const float *b,
                     double *ref, double *mag);

#ifdef __cplusplus
}
#endif
#endif
