/* Results: one record per (shape, variant, launch), in a JSON document that
 * also says what ran where (DESIGN.md, "Records"). The document is rewritten
 * atomically (temporary file, fsync, rename) after every shape, so a crash
 * keeps everything that finished. */
#ifndef CONVT_SRC_RESULTS_H
#define CONVT_SRC_RESULTS_H

#include <stdbool.h>

#include "backend.h"
#include "measure.h"
#include "sweep_config.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The version of the results document's layout; merge refuses files of a
 * newer one. 2: timing.samples_ms (raw samples by round); 3: "seed" as a
 * decimal string (exact to 64 bits), "seed_number" beside it when a double
 * holds it; "complete", "config_hash". */
#define CONVT_RESULTS_SCHEMA 3

typedef enum convt_status {
    CONVT_STATUS_OK,
    CONVT_STATUS_SKIPPED,  /* supports() said no, or the shape does not fit: reason says why */
    CONVT_STATUS_FAILED,   /* an error while preparing or running: reason holds it */
    CONVT_STATUS_WRONG,    /* ran, but validation failed: reason and errors say how */
    CONVT_STATUS_PRUNED    /* validated, then timed for the first round only: more than
                              measure.prune times its variant's fastest launch (reason) */
} convt_status;

const char *convt_status_name(convt_status s);

typedef struct convt_record {
    const convt_problem *problem;
    /* what the variant was given in the problem's place (convt_problem_for:
     * the same outputs, e.g. a wider stride along an input of one
     * position); the problem itself where equal; zeroed (no "ran_as") in
     * a record made by hand */
    convt_problem ran_as;
    const convt_variant *variant;
    convt_launch launch;
    convt_status status;
    char reason[1024];
    char detail[256];          /* variant's own note (e.g. cuDNN algorithm) */
    /* validation */
    bool validated;
    const char *reference;     /* "cpu_f64" or "gpu_f64" */
    int trials;
    convt_error_stats errors;  /* worst trial */
    convt_tolerance tol;
    int spot_checks;
    double spot_max_diff;      /* GPU reference vs CPU, relative to magnitude */
    /* timing */
    bool timed;
    convt_timing timing;
    /* The raw samples (per launch, ms) in the order taken, and where each
     * round ends: samples[round_end[r-1] .. round_end[r]) is round r. Owned
     * by the record's maker; NULL when not kept. */
    double *sample_ms;
    int sample_rounds;
    int sample_round_end[CONVT_MAX_ROUNDS];
    double prepare_ms;
    size_t workspace;
} convt_record;

typedef struct cJSON cJSON;

/* The document's head: tool, git revision, time, host, backend, device and
 * ceilings (as the worker reported them), the config as read, the seed.
 * Caller owns the result (cJSON_Delete). */
cJSON *convt_results_create(const convt_config *cfg, const char *backend_name,
                            const cJSON *device, const cJSON *ceilings);
/* What the document says of the device (the worker sends it). */
cJSON *convt_device_to_json(const convt_device_info *dev);
/* Appends rec's JSON (shape, variant, launch, status, errors, timing,
 * throughput, floor) to the document's "records". */
void convt_results_add(cJSON *doc, const convt_record *rec, const convt_ceilings *ceil);
/* The same record as a new JSON object (the caller owns it): what a worker
 * sends, and the orchestrator's record of a run a worker did not finish. */
cJSON *convt_record_to_json(const convt_record *rec, const convt_ceilings *ceil);
/* Writes doc to path atomically; creates the directory if missing. */
/* Records the run's drift (measure.h) and adds it to the noise of every
 * timed record: noise = sqrt(within^2 + between^2 + drift^2); target_met
 * follows. Records written before this call lack noise_drift. */
void convt_results_add_drift(cJSON *doc, const convt_drift *d, double target_noise);
int convt_results_write(const cJSON *doc, const char *path, convt_err *e);

/* The floor of p in tier t: max(bytes / copy rate, FLOPs / GEMM rate). */
double convt_floor_ms(const convt_problem *p, convt_tier t, const convt_ceilings *c);

/* The shape as JSON in the config's own vocabulary, plus its key and output. */
cJSON *convt_problem_to_json(const convt_problem *p);

#ifdef __cplusplus
}
#endif
#endif
