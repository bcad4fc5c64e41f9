/* A problem as JSON in the sweep files' vocabulary (n, cin, cout, groups,
 * bias, in, k, stride, pad, out_pad, dil), and back: how results, selection
 * tables and run-time tuning's configs write shapes, in one place. */
#ifndef CONVT_SRC_LIB_PROBLEM_JSON_H
#define CONVT_SRC_LIB_PROBLEM_JSON_H

#include <stdbool.h>

#include "errors.h"
#include "problem.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cJSON cJSON;

/* The shape; with `derived`, also its key, dims, output shape, GFLOP and
 * minimum GB (what results and tables record; a config must not have them). */
cJSON *convt_problem_json(const convt_problem *p, bool derived);
/* Reads the fields above (derived ones ignored); 0, or -1 with e naming the
 * field. The problem is checked (convt_problem_check). */
int convt_problem_from_json(const cJSON *o, convt_problem *p, convt_err *e);

#ifdef __cplusplus
}
#endif
#endif
