/* The variant interface: every way of computing a transposed convolution,
 * CPU or GPU, hand-written or vendor, is one `convt_variant` filled with
 * designated initialisers in its own file and listed once in
 * kernels/registry.c (in the spirit of dav1d's function tables and llm.c's
 * numbered kernels).
 *
 * Contract, which the driver relies on and the tests check:
 *  - supports() is pure and cheap; a false answer comes with a reason that a
 *    person can act on ("needs 70 KiB shared memory, the device allows 48").
 *  - prepare() (optional) does everything that may allocate, search or
 *    synchronise: algorithm searches, handle creation, attribute set-up. Its
 *    time is reported separately and never timed as part of the kernel.
 *  - launch() only enqueues work on ctx->stream: it never allocates and never
 *    synchronises, and it writes every output element itself (a zero- or
 *    bias-fill it needs is part of its own launch, so it is timed).
 *  - the tensors live in the memory of the variant's backend (device memory
 *    for CUDA variants, host memory for CPU ones). */
#ifndef CONVT_VARIANT_H
#define CONVT_VARIANT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "errors.h"
#include "problem.h"
#include "validate.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum convt_backend_kind { CONVT_BACKEND_CPU = 0, CONVT_BACKEND_CUDA = 1 } convt_backend_kind;
const char *convt_backend_kind_name(convt_backend_kind k);

#define CONVT_MAX_KNOBS 12
#define CONVT_MAX_KNOB_VALUES 16

/* A launch knob: a named integer the variant reads (block size, tile width,
 * ...) with the values a sweep tries when the config does not say. */
typedef struct convt_knob {
    const char *name;
    const char *help;
    int n_defaults;
    int64_t defaults[CONVT_MAX_KNOB_VALUES];
} convt_knob;

/* One launch configuration: value[i] belongs to the variant's knobs[i]. */
typedef struct convt_launch {
    int64_t value[CONVT_MAX_KNOBS];
} convt_launch;

/* What a variant may know about where it runs; filled by the backend. */
typedef struct convt_device_info {
    char name[128];
    convt_backend_kind backend;
    int sm_count;
    int cc_major, cc_minor;
    int sm_clock_mhz, mem_clock_mhz, mem_bus_bits;
    size_t global_mem, l2_bytes;
    size_t smem_per_block, smem_per_block_optin, smem_per_sm;
    int max_threads_per_block;
    int driver_version, runtime_version, cudnn_version, cublas_version;
    int cpu_threads;
    bool nvml;          /* clocks and throttle reasons readable (gpu_clocks.h) */
    int index;          /* which of the backend's devices (--devices) */
    int count;          /* how many devices the backend sees on this host */
    char pci_bus_id[32]; /* CUDA: "0000:3B:00.0"; empty on the CPU */
} convt_device_info;

/* Vendor-library handles the variants of one context share, owned by
 * whoever made the context (a libconvt context, a convt-bench worker): made
 * on first use, in prepare(), by convt_handles_cublas/_cudnn, and destroyed
 * with convt_handles_destroy. Nothing of a variant lives in a global. */
typedef struct convt_handles {
    void *cublas;                   /* cublasHandle_t, or NULL until asked for */
    void *cudnn;                    /* cudnnHandle_t, or NULL until asked for */
} convt_handles;

typedef struct convt_context {
    void *stream;                   /* cudaStream_t for CUDA variants, NULL on the CPU */
    const convt_device_info *dev;
    size_t workspace_limit;         /* bytes a variant may ask for (config) */
    convt_handles *handles;         /* NULL where no vendor library may be used */
} convt_context;

/* The context's cuBLAS / cuDNN handle, made on first use: 0, or -1 with e
 * set (no handles in the context, a build without the library, or the
 * library's own error). */
int convt_handles_cublas(const convt_context *ctx, void **handle, convt_err *e);
int convt_handles_cudnn(const convt_context *ctx, void **handle, convt_err *e);
/* Destroys what was made; with lost set (the CUDA context is gone with
 * them), only forgets them. */
void convt_handles_destroy(convt_handles *h, bool lost);

typedef struct convt_tensors {
    const float *x, *w, *b;         /* b is NULL when the problem has no bias */
    float *y;
} convt_tensors;

typedef struct convt_variant {
    const char *name;
    const char *summary;            /* the idea, in one line */
    convt_backend_kind backend;
    convt_tier tier;
    bool deterministic;             /* false when the summation order varies run to run */
    int n_knobs;
    convt_knob knobs[CONVT_MAX_KNOBS];

    /* True when the variant can run p with launch l; otherwise false with a
     * reason in why. */
    bool (*supports)(const convt_problem *p, const convt_launch *l, const convt_context *ctx,
                     char *why, size_t why_len);
    /* Workspace bytes launch() needs; NULL means none. prepare() may raise it. */
    size_t (*workspace_size)(const convt_problem *p, const convt_launch *l);
    /* Optional set-up for one (problem, launch): *state is the variant's own,
     * freed by release(); *workspace may be raised. 0 or -1 with e set; -1
     * through convt_skip() when there is nothing to run for this launch
     * (e.g. a vendor library offers fewer engines than the knob's index):
     * the run is then recorded as skipped with that reason, not failed. */
    int (*prepare)(const convt_problem *p, const convt_launch *l, const convt_tensors *t,
                   const convt_context *ctx, void **state, size_t *workspace, convt_err *e);
    /* Enqueues the computation of t->y. 0 or -1 with e set. */
    int (*launch)(const convt_problem *p, const convt_launch *l, const convt_tensors *t,
                  void *workspace, void *state, const convt_context *ctx, convt_err *e);
    /* Frees what prepare() made; accepts NULL. */
    void (*release)(void *state);
    /* Optional: facts about the prepared state worth recording (e.g. which
     * cuDNN algorithm was picked), as one short string. */
    void (*describe)(const void *state, char *buf, size_t len);
} convt_variant;

/* Plugins: a shared object built against these headers exports
 *
 *     CONVT_PLUGIN_EXPORT const convt_plugin convt_plugin_entry = {
 *         .abi_version = CONVT_VARIANT_ABI_VERSION, .name = "mine",
 *         .variants = (const convt_variant *const[]){&my_variant, NULL}};
 *
 * and `convt-bench --plugin mine.so` (or convt_ctx_load_plugin) validates,
 * times, selects and dispatches its variants like the built-in ones. The
 * ABI version changes whenever a struct of this header or of problem.h,
 * validate.h or errors.h changes layout; a plugin of another version is
 * refused, not called. */
#define CONVT_VARIANT_ABI_VERSION 3 /* 2: CONVT_MAX_KNOBS 6 -> 8; 3: 8 -> 12 */
#define CONVT_PLUGIN_SYMBOL "convt_plugin_entry"
#define CONVT_PLUGIN_EXPORT __attribute__((visibility("default")))

typedef struct convt_plugin {
    int abi_version;                          /* CONVT_VARIANT_ABI_VERSION it was built with */
    const char *name;
    const struct convt_variant *const *variants; /* NULL-terminated */
} convt_plugin;

/* All variants built into this binary, NULL-terminated, CPU ones first. */
extern const convt_variant *const convt_variants[];

/* Every variant of the project by name, built into this binary or not, with
 * the backend it runs on and what the build needs for it. A config naming a
 * variant this build lacks (the CUDA ones on a machine without the CUDA
 * Toolkit) is told so and runs without it; only a name that matches none of
 * these is an error. */
typedef struct convt_variant_name {
    const char *name;
    convt_backend_kind backend;
    const char *needs;              /* "the CUDA Toolkit", ...; NULL: always built */
} convt_variant_name;

/* Terminated by an entry whose name is NULL. */
extern const convt_variant_name convt_all_variant_names[];
/* The entry of `name`, or NULL when the project has no such variant. */
const convt_variant_name *convt_variant_name_find(const char *name);

const convt_variant *convt_variant_find(const char *name);
/* The problem v is given in p's place: convt_problem_equivalent(p) for the
 * project's own kernels built into this binary, p as asked for the vendor
 * baselines (cuDNN is timed on what a caller would hand it) and for
 * plugins (a user's kernel runs the shape its user named). The sweep and
 * the plans both call this, so that a table's timing is of what a plan
 * runs; a record whose variant ran another form says so ("ran_as"). */
convt_problem convt_problem_for(const convt_variant *v, const convt_problem *p);
/* Index of knob `name` in v, or -1. */
int convt_knob_index(const convt_variant *v, const char *name);
/* The value of knob `name` in launch l of v: how a variant decodes its
 * launch into a typed struct of its own (nvbench's state.get_int64("name")),
 * so that no code depends on the order of the knob list. A name v lacks is
 * a bug in v: it aborts, naming both. */
int64_t convt_launch_get(const convt_variant *v, const convt_launch *l, const char *name);
/* The launch whose knob i is the first default of knob i. */
convt_launch convt_launch_first_default(const convt_variant *v);
/* The check every CUDA variant makes of a thread-count knob: a multiple of
 * 32 (whole warps) within the device's limit; false with the reason in why. */
bool convt_check_block(int64_t threads, const char *knob, const convt_context *ctx, char *why,
                       size_t why_len);
/* The check of a layout with one (n, co) output row per block (on the
 * grid's y axis) holding its group's weights in shared memory: at most 65535
 * rows, at most 48 KiB of weights. `what` names the layout in the reason. */
bool convt_check_row_blocks(const convt_problem *p, const char *what, char *why,
                            size_t why_len);
/* "block=256,outs=2" (or "-" without knobs). */
void convt_launch_format(const convt_variant *v, const convt_launch *l, char *buf, size_t len);

#ifdef __cplusplus
}
#endif
#endif
