/* The sweep file: which shapes, which variants with which launch knobs, how
 * to measure and validate, where to write. Parsed with cJSON into plain C
 * values; every error names the file, the JSON path and what was expected,
 * e.g. "configs/x.json: shapes[3].stride[1]: expected an integer >= 1, got 0".
 * Unknown keys are errors: a typo must never fall back to a default.
 * The keys are documented in README.md ("Sweep files"). */
#ifndef CONVT_SRC_SWEEP_CONFIG_H
#define CONVT_SRC_SWEEP_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "errors.h"
#include "problem.h"
#include "validate.h"
#include "variant.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cJSON cJSON;

typedef enum convt_backend_request {
    CONVT_WANT_AUTO = 0,  /* CUDA when a device is there, else the CPU */
    CONVT_WANT_CPU,
    CONVT_WANT_CUDA
} convt_backend_request;

typedef struct convt_measure_settings {
    int warmup;            /* untimed launches before the first sample */
    int min_samples, max_samples;
    double min_time_s;     /* keep sampling at least this long */
    double max_time_s;     /* budget per run; sampling stops when spent */
    double target_noise;   /* stop once the robust relative noise is below this */
    bool cold_cache;       /* flush the last-level cache before every sample */
    double hang_timeout_s; /* a step longer than this is a hang: the orchestrator kills the worker */
    double batch_below_us; /* runs shorter than this are timed in batches (0: never) */
    /* Samples are taken in this many rounds: every run of a shape gets a
     * round before any gets the next, and the shape's buffers move to new
     * memory between rounds, so the noise recorded includes what moves a
     * median from one run of the sweep to the next (measure.h). */
    int rounds;
    /* After the first round, a launch more than this many times slower than
     * its variant's fastest launch on the shape stops, recorded `pruned`
     * with its first round's timing (measure.h, convt_prune_runs); 0: off. */
    double prune;
} convt_measure_settings;

enum { CONVT_MAX_ROUNDS = 16 };

typedef struct convt_validation_settings {
    int trials;                      /* independent input draws each run is validated on */
    double cpu_reference_max_gflop;  /* larger problems use the GPU float64 reference */
    int spot_checks;                 /* points of the GPU reference checked on the CPU */
    convt_tolerance tol[CONVT_TIER_COUNT];
} convt_validation_settings;

typedef struct convt_knob_override {
    const convt_variant *variant;
    int knob;
    int n;
    int64_t values[CONVT_MAX_KNOB_VALUES];
} convt_knob_override;

typedef struct convt_config {
    char *path;                /* the file read, for messages */
    char *output;              /* results JSON */
    char *selection;           /* selection table JSON */
    uint64_t seed;
    convt_backend_request backend;
    int n_patterns;
    char **patterns;           /* variant names or globs */
    int n_overrides;
    convt_knob_override *overrides;
    convt_measure_settings measure;
    convt_validation_settings validation;
    size_t workspace_limit;    /* bytes a variant may use as workspace */
    int n_shapes;
    convt_problem *shapes;
    cJSON *json;               /* the file as read, recorded in the results */
    /* What the file asks for that this binary cannot run (a variant it was
     * built without), one sentence each, naming the file and the JSON path:
     * such variants are skipped, not refused. */
    int n_notes;
    char **notes;
} convt_config;

/* The largest seed a JSON number holds exactly (2^53 - 1); a config gives a
 * larger one as a decimal string, "seed": "12345678901234567890". */
#define CONVT_SEED_EXACT_MAX ((UINT64_C(1) << 53) - 1)

/* Defaults for everything a file may leave out. */
void convt_config_init(convt_config *cfg);
/* Reads and checks path; on failure e holds one message that starts with the
 * path. On success the caller owns cfg and frees it with convt_config_finish. */
int convt_config_load(const char *path, convt_config *cfg, convt_err *e);
/* The same from text; `path` is used in messages only. */
int convt_config_parse(const char *text, const char *path, convt_config *cfg, convt_err *e);
void convt_config_finish(convt_config *cfg);

/* A seed as the command line or a config string gives it: decimal digits
 * only (no sign, no leading zeros, no spaces), 0 to 2^64 - 1. 0 or -1. */
int convt_parse_seed(const char *text, uint64_t *seed);

/* The results file and the selection table are neither the config file
 * itself nor each other (checked again after --out replaced them). 0, or -1
 * with a sentence in e saying which would overwrite what. */
int convt_config_check_outputs(const convt_config *cfg, convt_err *e);

/* Where the selection table of results file `output` goes:
 * "results/x.json" -> "results/x.selection.json". malloc'd; the caller frees. */
char *convt_selection_path(const char *output);

/* The knob values a sweep tries for knob k of v: the override or the defaults. */
int convt_config_knob_values(const convt_config *cfg, const convt_variant *v, int k,
                             const int64_t **values);
/* True when v's name matches one of the config's variant patterns. */
bool convt_config_wants(const convt_config *cfg, const convt_variant *v);

#ifdef __cplusplus
}
#endif
#endif
