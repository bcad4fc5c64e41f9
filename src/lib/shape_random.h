/* Random valid problems over every parameter, for tests and for sweeps
 * ("random" in a config). Deterministic in the seed. */
#ifndef CONVT_SRC_SHAPE_RANDOM_H
#define CONVT_SRC_SHAPE_RANDOM_H

#include <stdint.h>

#include "problem.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct convt_random_spec {
    unsigned dims_mask;        /* bit d-1 set: d spatial dims allowed */
    int64_t max_output_elems;  /* cap on N*C_out*prod(L_out) */
    int64_t max_channels;      /* cap on cin and cout */
} convt_random_spec;

/* The i-th random problem of stream `seed`: groups from 1 to depthwise,
 * stride 1..4 (sometimes larger than the kernel), dilation 1..3, padding up
 * to what keeps the output non-empty, output_padding where allowed, bias
 * half of the time, N from 1. Always passes convt_problem_check. */
convt_problem convt_random_problem(uint64_t seed, uint64_t i, const convt_random_spec *spec);

#ifdef __cplusplus
}
#endif
#endif
