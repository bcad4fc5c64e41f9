/* The insides of libconvt's dispatch objects (include/convt/convt.h),
 * shared by table.c (selection tables), dispatch.c (contexts and plans)
 * and tune.c (run-time tuning). */
#ifndef CONVT_SRC_LIB_DISPATCH_IMPL_H
#define CONVT_SRC_LIB_DISPATCH_IMPL_H

#include <pthread.h>
#include <stdint.h>

#include "convt.h"

typedef struct cJSON cJSON;

#define CONVT_CTX_MAX_PLUGINS 16

struct convt_ctx {
    int device;                   /* CUDA device, or -1: the CPU */
    convt_backend_kind kind;
    convt_device_info dev;
    convt_handles handles;
    size_t workspace_limit;
    pthread_mutex_t lock;         /* the plan cache, the plugins, the handles */
    pthread_mutex_t exec_lock;    /* a launch sets the shared handles' stream, then enqueues */
    convt_plan **plans;           /* the cache: one per (table, tier, shape key) */
    int n_plans, cap_plans;
    void *plugin_dl[CONVT_CTX_MAX_PLUGINS];
    const convt_plugin *plugins[CONVT_CTX_MAX_PLUGINS];
    char *plugin_paths[CONVT_CTX_MAX_PLUGINS];
    int n_plugins;
};

/* One row of a selection table: a measured winner. */
typedef struct convt_table_row {
    char key[256];
    char name[64];
    convt_tier tier;
    convt_problem shape;
    const convt_variant *variant;
    convt_launch launch;
    char launch_key[128];
    double median_ms;
} convt_table_row;

struct convt_table {
    convt_ctx *ctx;
    uint64_t id;                  /* unique in the process: the plan cache's key, not the address */
    char path[1024];
    char device[128];
    cJSON *doc;                   /* as read, and as tuning extends it */
    convt_table_row *rows;
    int n_rows, cap_rows;
    int left_out;                 /* rows this context cannot run */
    char left_out_why[256];       /* the first one's reason */
    char tune_path[1024];         /* "": no run-time tuning */
    pthread_mutex_t lock;         /* rows and doc, as tuning adds to them */
};

struct convt_plan {
    convt_ctx *ctx;
    uint64_t table_id;
    char key[256];
    convt_problem problem;
    convt_problem as;             /* what the variant is given (convt_problem_for) */
    convt_tier tier;
    const convt_variant *variant;
    convt_launch launch;
    void *state;
    size_t workspace;
    const char *rule;             /* "exact", "nearest", "heuristic", "tuned" */
    char why[512];
    int refs;
};

/* The variant named `name` that ctx can run (built in, or a plugin's, on
 * ctx's backend); NULL otherwise. */
const convt_variant *convt_ctx_variant(const convt_ctx *ctx, const char *name);

/* A table row from a selection's JSON entry: 0, or -1 with the reason why
 * ctx cannot use it in e. */
int convt_table_row_parse(const convt_ctx *ctx, const cJSON *sel, convt_table_row *row,
                          convt_err *e);
/* Appends a row (the lock held by the caller). */
int convt_table_add_row(convt_table *t, const convt_table_row *row, convt_err *e);

/* Measures problem p with convt-bench and adds the winners of both tiers
 * to t (and to its file): tune.c. */
int convt_tune_shape(convt_table *t, const convt_problem *p, convt_err *e);

/* The shape as a config's JSON object (the vocabulary of sweep files). */
cJSON *convt_problem_to_config_json(const convt_problem *p);

/* One entry of the heuristic's order: a variant, tried at its first default
 * launch with up to two knobs set, and why it is tried. */
typedef struct convt_heuristic_step {
    const char *variant;
    int n_knobs;
    const char *knob[2];
    int64_t value[2];
    const char *why;
} convt_heuristic_step;

/* The most steps an order has (its rules give 6 at most). */
enum { CONVT_HEURISTIC_MAX_STEPS = 16 };

/* The heuristic's order for a shape and tier on a backend (dispatch.c),
 * before looking up which of them this binary has: names only, a function
 * of the shape alone, so that tests read the CUDA order without a GPU.
 * Returns how many steps it wrote (at most max). */
int convt_heuristic_order(const convt_problem *p, convt_tier tier, convt_backend_kind kind,
                          convt_heuristic_step *out, int max);

#endif
