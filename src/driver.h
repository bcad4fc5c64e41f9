/* The sweep: for each shape, inputs from the seed and a float64 reference;
 * for each variant and launch configuration: supported? -> prepare -> run ->
 * validate -> time -> record. Results are written after every shape. */
#ifndef CONVT_SRC_DRIVER_H
#define CONVT_SRC_DRIVER_H

#include <stdbool.h>
#include <stdio.h>

#include "backend.h"
#include "sweep_config.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cJSON cJSON;

typedef struct convt_run_options {
    const char *dump_dir;   /* write .npy files of every run here (NULL: no dump) */
    bool quiet;             /* no progress lines */
    const cJSON *previous_selection; /* breaks ties in favour of its choices (select.h); NULL: none */
} convt_run_options;

typedef struct convt_run_summary {
    int ok, skipped, failed, wrong;
} convt_run_summary;

/* Runs the whole sweep; -1 only for what stops the sweep itself (results
 * cannot be written, the device cannot be recovered). A variant that fails
 * or is wrong is a record, not an error. */
int convt_run(const convt_config *cfg, const convt_backend *be, const convt_device_info *dev,
              const convt_run_options *opt, convt_run_summary *sum, convt_err *e);

/* --dry-run: the plan, one line per (shape, variant, launch), with the reason
 * of every skip. Returns the number of runs that would execute. */
int convt_plan_print(const convt_config *cfg, const convt_backend *be,
                     const convt_device_info *dev, FILE *out);

#ifdef __cplusplus
}
#endif
#endif
