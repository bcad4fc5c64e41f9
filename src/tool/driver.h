/* The sweep: for each shape, inputs from the seed and a float64 reference;
 * for each variant and launch configuration: supported? -> prepare -> run ->
 * validate -> time -> record. The process the user starts (the
 * orchestrator) plans and records; a worker process owns the device and
 * does the work (DESIGN.md, "Processes"). */
#ifndef CONVT_SRC_DRIVER_H
#define CONVT_SRC_DRIVER_H

#include <stdbool.h>
#include <stdio.h>

#include "backend.h"
#include "device_list.h"
#include "results.h"
#include "sweep_config.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cJSON cJSON;

typedef struct convt_run_options {
    const char *dump_dir;   /* write .npy files of every run here (NULL: no dump) */
    bool quiet;             /* no progress lines */
    const cJSON *previous_selection; /* breaks ties in favour of its choices (select.h); NULL: none */
    bool resume;            /* continue cfg->output: run only what it lacks */
    /* What a worker is started with (orchestrator.c): the config file, the
     * backend asked for ("auto", "cpu", "cuda"), the seed as given. */
    const char *config_path;
    const char *backend;
    const char *worker_exe; /* the convt-bench binary; NULL: this program */
    const char *shard;      /* "I/N" (shard.h), already applied to cfg; NULL: all */
    convt_device_list devices; /* --devices; n == 0 and !all: device 0 */
    int worker_device;      /* a worker: the device it opens */
} convt_run_options;

typedef struct convt_run_summary {
    int ok, skipped, failed, wrong;
    int pruned;             /* validated, timed one round, slower than measure.prune allows */
    int worker_deaths;      /* workers that died or were killed (hung) */
    int interrupted;        /* the signal that stopped the sweep, 0 if none */
    int resumed;            /* records kept from the file resumed */
} convt_run_summary;

/* The orchestrator (orchestrator.c): runs the whole sweep through worker
 * processes, so that a run that crashes or hangs costs its own record;
 * -1 only for what stops the sweep itself (results cannot be written, no
 * worker can start, --resume of a file of another config or device). A
 * variant that fails or is wrong is a record, not an error. */
int convt_run(const convt_config *cfg, const convt_run_options *opt, convt_run_summary *sum,
              convt_err *e);

/* What --resume and the workers check: FNV-1a of the config as read, the
 * seed and the shard ("all" when NULL), as 16 hex digits. */
void convt_config_hash(const convt_config *cfg, const char *shard, char *buf, size_t len);

/* The worker (driver.c): owns the backend, runs the shapes the orchestrator
 * asks for on stdin and reports on stdout (worker_io.h). Returns its exit
 * status. */
int convt_worker_serve(const convt_config *cfg, const convt_backend *be,
                       const convt_device_info *dev, const convt_run_options *opt);

/* The plan of shape si on a backend: one record per (variant, launch) with
 * problem, variant and launch set, in the order a worker numbers them.
 * *records is malloc'd (the caller frees it). */
int convt_shape_plan(const convt_config *cfg, convt_backend_kind kind, int si,
                     convt_record **records, int *n);

/* --dry-run: the plan, one line per (shape, variant, launch), with the reason
 * of every skip. Returns the number of runs that would execute. */
int convt_plan_print(const convt_config *cfg, const convt_backend *be,
                     const convt_device_info *dev, FILE *out);

#ifdef __cplusplus
}
#endif
#endif
