#include "driver.h"
#include "variant_set.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "build_config.h"
#include "hostdevice.h"
#include "measure.h"
#include "npy.h"
#include "reference.h"
#include "results.h"
#include "round_order.h"
#include "select.h"
#include "worker_io.h"

#if CONVT_HAVE_NVTX
#include <nvtx3/nvToolsExt.h>
#define RANGE_PUSH(name) nvtxRangePushA(name)
#define RANGE_POP() nvtxRangePop()
#else
#define RANGE_PUSH(name) ((void)(name))
#define RANGE_POP() ((void)0)
#endif

// ----------------------------------------------------------------------------
// the plan: every (variant, launch) of one shape

typedef struct entry {
    convt_record rec;   /* its variant and launch say what this entry runs; rec.ran_as
                         * the problem the variant is given (convt_problem_for) */
    int index;          /* in the shape's plan: how the orchestrator names it */
    void *state;
    convt_sampling sampling; /* its samples, over the rounds of timing */
    bool done;   /* final status decided (skipped, failed, wrong) */
    /* measure.prune stopped it after round 1 (why says why); final only
     * once its variant has a launch that got every round (time_all) */
    bool pruned;
    char why_pruned[256];
    int placements, placed_at; /* buffer placements its rounds ran on; the last */
} entry;

/* Appends every launch in the product of v's knob value lists. */
static int expand(const convt_config *cfg, const convt_variant *v, entry **list, int *n)
{
    int count[CONVT_MAX_KNOBS], at[CONVT_MAX_KNOBS] = {0};
    const int64_t *vals[CONVT_MAX_KNOBS];
    for (int k = 0; k < v->n_knobs; k++)
        count[k] = convt_config_knob_values(cfg, v, k, &vals[k]);
    for (;;) {
        entry *grown = realloc(*list, (size_t)(*n + 1) * sizeof **list);
        if (!grown)
            return -1;
        *list = grown;
        entry *en = &(*list)[(*n)++];
        memset(en, 0, sizeof *en);
        en->rec.variant = v;
        for (int k = 0; k < v->n_knobs; k++)
            en->rec.launch.value[k] = vals[k][at[k]];
        int k = v->n_knobs - 1;
        while (k >= 0 && ++at[k] == count[k])
            at[k--] = 0;
        if (k < 0)
            return 0;
    }
}

/* Shape si's entries: each record's problem, and what its variant is given
 * (convt_problem_for), which the records of a crash say too. */
static int plan_shape(const convt_config *cfg, convt_backend_kind kind, int si, entry **list,
                      int *n)
{
    *list = NULL;
    *n = 0;
    for (const convt_variant *const *v = convt_tool_variants(); *v; v++)
        if ((*v)->backend == kind && convt_config_wants(cfg, *v) && expand(cfg, *v, list, n))
            return -1;
    for (int i = 0; i < *n; i++) {
        entry *en = &(*list)[i];
        en->index = i;
        en->rec.problem = &cfg->shapes[si];
        en->rec.ran_as = convt_problem_for(en->rec.variant, &cfg->shapes[si]);
    }
    return 0;
}

int convt_shape_plan(const convt_config *cfg, convt_backend_kind kind, int si,
                     convt_record **records, int *n)
{
    entry *list;
    if (plan_shape(cfg, kind, si, &list, n)) {
        free(list);
        return -1;
    }
    *records = malloc((size_t)(*n ? *n : 1) * sizeof **records);
    if (!*records) {
        free(list);
        return -1;
    }
    for (int i = 0; i < *n; i++)
        (*records)[i] = list[i].rec;
    free(list);
    return 0;
}

int convt_plan_print(const convt_config *cfg, const convt_backend *be,
                     const convt_device_info *dev, FILE *out)
{
    convt_context ctx = {.stream = NULL, .dev = dev, .workspace_limit = cfg->workspace_limit};
    int runs = 0;
    for (int s = 0; s < cfg->n_shapes; s++) {
        const convt_problem *p = &cfg->shapes[s];
        char key[256];
        convt_problem_key(p, key, sizeof key);
        fprintf(out, "%s  (%s)  %.3f GFLOP, %.3f GB\n", p->name, key, convt_flops(p) / 1e9,
                convt_min_bytes(p) / 1e9);
        entry *list;
        int n;
        if (plan_shape(cfg, be->kind, s, &list, &n))
            return -1;
        for (int i = 0; i < n; i++) {
            char launch[256], why[512] = "";
            convt_launch_format(list[i].rec.variant, &list[i].rec.launch, launch, sizeof launch);
            bool ok = list[i].rec.variant->supports(&list[i].rec.ran_as, &list[i].rec.launch, &ctx,
                                                    why, sizeof why);
            fprintf(out, "  %-16s %-5s %-24s %s%s\n", list[i].rec.variant->name,
                    convt_tier_name(list[i].rec.variant->tier), launch, ok ? "run" : "skip: ",
                    ok ? "" : why);
            runs += ok;
        }
        if (n == 0)
            fprintf(out, "  (no variant of the %s backend matches the config's \"variants\")\n",
                    be->name);
        free(list);
    }
    return runs;
}

// ----------------------------------------------------------------------------
// one shape's buffers

typedef struct shape_buffers {
    float *x, *w, *b, *y;
    double *ref, *mag;
    void *workspace;
} shape_buffers;

static void free_buffers(const convt_backend *be, shape_buffers *sb)
{
    be->release(sb->x);
    be->release(sb->w);
    be->release(sb->b);
    be->release(sb->y);
    be->release(sb->ref);
    be->release(sb->mag);
    be->release(sb->workspace);
    memset(sb, 0, sizeof *sb);
}

static double shape_bytes(const convt_problem *p)
{
    return 4.0 * (convt_x_elems(p) + convt_w_elems(p) + convt_b_elems(p) + convt_y_elems(p)) +
           16.0 * convt_y_elems(p);
}

/* The tensors a launch reads and writes: x, w, b (with bias), y. */
static int alloc_tensors(const convt_backend *be, const convt_problem *p, shape_buffers *sb,
                         convt_err *e)
{
    if (!(sb->x = be->alloc(4 * (size_t)convt_x_elems(p), e)) ||
        !(sb->w = be->alloc(4 * (size_t)convt_w_elems(p), e)) ||
        (p->bias && !(sb->b = be->alloc(4 * (size_t)convt_b_elems(p), e))) ||
        !(sb->y = be->alloc(4 * (size_t)convt_y_elems(p), e)))
        return -1;
    return 0;
}

static int alloc_buffers(const convt_backend *be, const convt_problem *p, shape_buffers *sb,
                         convt_err *e)
{
    memset(sb, 0, sizeof *sb);
    if (alloc_tensors(be, p, sb, e) ||
        !(sb->ref = be->alloc(8 * (size_t)convt_y_elems(p), e)) ||
        !(sb->mag = be->alloc(8 * (size_t)convt_y_elems(p), e))) {
        free_buffers(be, sb);
        return -1;
    }
    return 0;
}

/* Seeds of (config seed, shape, trial, tensor): independent streams. */
static uint64_t tensor_seed(uint64_t seed, int shape, int trial, int tensor)
{
    return convt_mix64(convt_mix64(convt_mix64(seed) ^ (uint64_t)shape) ^
                       ((uint64_t)trial * 31 + (uint64_t)tensor));
}

static int fill_inputs(const convt_backend *be, const convt_problem *p, const shape_buffers *sb,
                       uint64_t seed, int shape, int trial, convt_err *e)
{
    /* Uniform in [-1, 1): signed values make index bugs visible (a wrong
     * tap changes the sum, rather than shifting a sum of positives). */
    if (be->fill_uniform(sb->x, convt_x_elems(p), tensor_seed(seed, shape, trial, 1), -1, 1, e) ||
        be->fill_uniform(sb->w, convt_w_elems(p), tensor_seed(seed, shape, trial, 2), -1, 1, e) ||
        (p->bias &&
         be->fill_uniform(sb->b, convt_b_elems(p), tensor_seed(seed, shape, trial, 3), -1, 1, e)))
        return -1;
    return be->synchronize(e);
}

/* Moves what the timed launches touch (inputs, output, workspace) to new
 * memory holding the same values (the inputs are drawn again from their
 * seeds). The new buffers are taken while the old are held, so they cannot
 * reuse the old pages. On failure (memory short) the old buffers stay. */
static int move_buffers(const convt_backend *be, const convt_config *cfg, const convt_problem *p,
                        int si, size_t ws_bytes, shape_buffers *sb, convt_err *e)
{
    shape_buffers nb = {0};
    if (alloc_tensors(be, p, &nb, e) || (ws_bytes && !(nb.workspace = be->alloc(ws_bytes, e))) ||
        fill_inputs(be, p, &nb, cfg->seed, si, cfg->validation.trials - 1, e)) {
        free_buffers(be, &nb);
        return -1;
    }
    shape_buffers old = {sb->x, sb->w, sb->b, sb->y, NULL, NULL, sb->workspace};
    free_buffers(be, &old);
    sb->x = nb.x;
    sb->w = nb.w;
    sb->b = nb.b;
    sb->y = nb.y;
    sb->workspace = nb.workspace;
    return 0;
}

typedef struct host_inputs {
    float *x, *w, *b;
} host_inputs;

static void free_host(host_inputs *h)
{
    free(h->x);
    free(h->w);
    free(h->b);
    memset(h, 0, sizeof *h);
}

static int download_inputs(const convt_backend *be, const convt_problem *p,
                           const shape_buffers *sb, host_inputs *h, convt_err *e)
{
    memset(h, 0, sizeof *h);
    size_t xb = 4 * (size_t)convt_x_elems(p), wb = 4 * (size_t)convt_w_elems(p),
           bb = 4 * (size_t)convt_b_elems(p);
    h->x = malloc(xb);
    h->w = malloc(wb);
    h->b = p->bias ? malloc(bb) : NULL;
    if (!h->x || !h->w || (p->bias && !h->b)) {
        free_host(h);
        return convt_fail(e, "out of host memory copying the inputs (%.2f GiB)",
                          (xb + wb + bb) / 1073741824.0);
    }
    if (be->to_host(h->x, sb->x, xb, e) || be->to_host(h->w, sb->w, wb, e) ||
        (p->bias && be->to_host(h->b, sb->b, bb, e))) {
        free_host(h);
        return -1;
    }
    return 0;
}

/* The float64 reference into sb->ref/mag. Small problems (and every problem
 * on the CPU backend) use the CPU reference; larger ones the GPU kernel,
 * whose points are then spot-checked against the CPU at random indices. */
static int make_reference(const convt_backend *be, const convt_config *cfg,
                          const convt_problem *p, const shape_buffers *sb, int shape, int trial,
                          const char **which, int *spots, double *spot_max, convt_err *e)
{
    convt_tensors t = {sb->x, sb->w, sb->b, sb->y};
    *spots = 0;
    *spot_max = 0;
    if (be->kind == CONVT_BACKEND_CPU) {
        *which = "cpu_f64";
        return be->reference(p, &t, sb->ref, sb->mag, e);
    }
    host_inputs h;
    if (download_inputs(be, p, sb, &h, e))
        return -1;
    int rc = -1;
    int64_t count = convt_y_elems(p);
    if (convt_flops(p) <= cfg->validation.cpu_reference_max_gflop * 1e9) {
        *which = "cpu_f64";
        double *ref = malloc(8 * (size_t)count), *mag = malloc(8 * (size_t)count);
        if (!ref || !mag)
            convt_fail(e, "out of host memory for the reference");
        else {
            convt_reference(p, h.x, h.w, h.b, ref, mag);
            rc = be->to_device(sb->ref, ref, 8 * (size_t)count, e) ||
                 be->to_device(sb->mag, mag, 8 * (size_t)count, e);
        }
        free(ref);
        free(mag);
        free_host(&h);
        return rc ? -1 : 0;
    }
    *which = "gpu_f64";
    if (be->reference(p, &t, sb->ref, sb->mag, e))
        goto out;
    uint64_t r = tensor_seed(cfg->seed, shape, trial, 9);
    for (int i = 0; i < cfg->validation.spot_checks; i++) {
        r = convt_mix64(r);
        /* The last element too: the corner where tiling bugs live. */
        int64_t idx = i == 0 ? count - 1 : (int64_t)(r % (uint64_t)count);
        double gpu, gpu_mag, cpu, cpu_mag;
        if (be->to_host(&gpu, sb->ref + idx, 8, e) || be->to_host(&gpu_mag, sb->mag + idx, 8, e))
            goto out;
        convt_reference_point(p, h.x, h.w, h.b, idx, &cpu, &cpu_mag);
        double diff = fabs(gpu - cpu) / (cpu_mag > 0 ? cpu_mag : 1.0);
        if (diff > *spot_max)
            *spot_max = diff;
        if (!(diff <= 1e-12)) {
            convt_fail(e, "the GPU float64 reference disagrees with the CPU reference at flat "
                          "index %lld: %.17g vs %.17g",
                       (long long)idx, gpu, cpu);
            goto out;
        }
        (*spots)++;
    }
    rc = 0;
out:
    free_host(&h);
    return rc;
}

// ----------------------------------------------------------------------------
// --dump

static void sanitize(const char *in, char *out, size_t len)
{
    size_t i = 0;
    for (; in[i] && i + 1 < len; i++)
        out[i] = (isalnum((unsigned char)in[i]) || in[i] == '-' || in[i] == '_' || in[i] == '.')
                     ? in[i]
                     : '_';
    out[i] = 0;
}

static int dump_array(const convt_backend *be, const char *dir, const char *file,
                      const void *dev_ptr, convt_npy_type type, int ndim, const int64_t *shape,
                      convt_err *e)
{
    int64_t count = 1;
    for (int i = 0; i < ndim; i++)
        count *= shape[i];
    size_t bytes = (size_t)count * (type == CONVT_NPY_F32 ? 4 : 8);
    void *host = malloc(bytes ? bytes : 1);
    if (!host)
        return convt_fail(e, "out of host memory dumping %s", file);
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    int rc = be->to_host(host, dev_ptr, bytes, e) ||
             convt_npy_write(path, type, host, ndim, shape, e);
    free(host);
    return rc ? -1 : 0;
}

static int shape_dump_dir(const char *root, const convt_problem *p, char *dir, size_t len,
                          convt_err *e)
{
    char name[128];
    sanitize(p->name, name, sizeof name);
    snprintf(dir, len, "%s/%s", root, name);
    if ((mkdir(root, 0777) && errno != EEXIST) || (mkdir(dir, 0777) && errno != EEXIST))
        return convt_fail(e, "%s: cannot create directory: %s", dir, strerror(errno));
    return 0;
}

static int dump_inputs(const convt_backend *be, const char *dir, const convt_problem *p,
                       const shape_buffers *sb, convt_err *e)
{
    int64_t xs[5] = {p->n, p->cin}, ws[5] = {p->cin, p->cout / p->groups}, bs[1] = {p->cout},
            ys[5] = {p->n, p->cout};
    for (int d = 0; d < p->dims; d++) {
        xs[2 + d] = p->in[d];
        ws[2 + d] = p->k[d];
        ys[2 + d] = convt_out_size(p, d);
    }
    return dump_array(be, dir, "x.npy", sb->x, CONVT_NPY_F32, 2 + p->dims, xs, e) ||
                   dump_array(be, dir, "w.npy", sb->w, CONVT_NPY_F32, 2 + p->dims, ws, e) ||
                   (p->bias && dump_array(be, dir, "b.npy", sb->b, CONVT_NPY_F32, 1, bs, e)) ||
                   dump_array(be, dir, "reference.npy", sb->ref, CONVT_NPY_F64, 2 + p->dims, ys,
                              e)
               ? -1
               : 0;
}

static int dump_output(const convt_backend *be, const char *dir, const convt_problem *p,
                       const entry *en, const shape_buffers *sb, convt_err *e)
{
    int64_t ys[5] = {p->n, p->cout};
    for (int d = 0; d < p->dims; d++)
        ys[2 + d] = convt_out_size(p, d);
    char launch[256], file[400], safe[400];
    convt_launch_format(en->rec.variant, &en->rec.launch, launch, sizeof launch);
    snprintf(file, sizeof file, "%s__%s", en->rec.variant->name, launch);
    sanitize(file, safe, sizeof safe - 4);
    strcat(safe, ".npy");
    return dump_array(be, dir, safe, sb->y, CONVT_NPY_F32, 2 + p->dims, ys, e);
}

// ----------------------------------------------------------------------------
// one shape

typedef struct launch_closure {
    const entry *en;
    const convt_tensors *t;
    const shape_buffers *sb;
    const convt_context *ctx;
} launch_closure;

static int enqueue(void *arg, convt_err *e)
{
    const launch_closure *c = arg;
    return c->en->rec.variant->launch(&c->en->rec.ran_as, &c->en->rec.launch, c->t,
                                      c->sb->workspace, c->en->state, c->ctx, e);
}

/* Final status of an entry: reason = prefix + message. */
static void finish(entry *en, convt_status s, const char *prefix, const char *msg)
{
    en->rec.status = s;
    snprintf(en->rec.reason, sizeof en->rec.reason, "%s%s", prefix, msg);
    en->done = true;
}

static double wall_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

// ----------------------------------------------------------------------------
// the worker's messages to the orchestrator (worker_io.h), one JSON per line

/* The orchestrator's pipe (the worker's original stdout); NULL outside a
 * worker, e.g. in the GPU tests that call the driver directly. */
static FILE *channel;

static void send_message(cJSON *msg)
{
    if (channel) {
        char *text = cJSON_PrintUnformatted(msg);
        bool sent = text && fputs(text, channel) >= 0 && fputc('\n', channel) != EOF &&
                    fflush(channel) == 0;
        free(text);
        if (!sent)
            _exit(5); /* the orchestrator is gone: nobody to work for */
    }
    cJSON_Delete(msg);
}

/* Says which blocking step of which run starts, and how long it may take:
 * the orchestrator kills a worker that outlives it and records the run as
 * hung in that step. */
static void arm(const convt_config *cfg, double extra_s, const convt_problem *p, const entry *en,
                const char *step)
{
    char what[512], launch[256] = "";
    if (en)
        convt_launch_format(en->rec.variant, &en->rec.launch, launch, sizeof launch);
    snprintf(what, sizeof what, "%s of %s%s%s%s%s", step, p->name, en ? " / " : "",
             en ? en->rec.variant->name : "", en ? " " : "", launch);
    cJSON *m = cJSON_CreateObject();
    cJSON_AddStringToObject(m, "step", what);
    cJSON_AddStringToObject(m, "kind", step);
    cJSON_AddNumberToObject(m, "entry", en ? en->index : -1);
    cJSON_AddNumberToObject(m, "timeout_s", cfg->measure.hang_timeout_s + extra_s);
    send_message(m);
}

/* The step is over: the worker is between steps (allocating, filling). */
static void disarm(void)
{
    cJSON *m = cJSON_CreateObject();
    cJSON_AddBoolToObject(m, "idle", true);
    send_message(m);
}

enum { SHAPE_OK = 0, SHAPE_LOST = 1 };

/* The clock probe's times over the whole run (measure.h: convt_drift). */
typedef struct drift_log {
    double *ms;
    unsigned *mhz;   /* SM clock read after the probe; 0 where unknown */
    int n, cap;
    bool failed;  /* the probe failed once: no drift for this run */
    bool report;  /* send each probe to the orchestrator */
} drift_log;

/* Times the backend's clock probe three times and logs the median. */
static void probe_clock(const convt_backend *be, drift_log *log)
{
    if (!be->clock_probe || log->failed || log->n == log->cap)
        return;
    double ms[3];
    convt_err e = {{0}};
    for (int i = 0; i < 3; i++)
        if (be->timer_start(false, &e) || be->clock_probe(&e) || be->timer_stop(&ms[i], &e) ||
            isnan(ms[i])) {
            fprintf(stderr, "convt-bench: warning: the clock probe failed (%s); the noise "
                            "recorded leaves out the device's drift\n",
                    e.msg[0] ? e.msg : "no time");
            log->failed = true;
            return;
        }
    double lo = fmin(ms[0], fmin(ms[1], ms[2])), hi = fmax(ms[0], fmax(ms[1], ms[2]));
    convt_clock_reading clk;
    log->mhz[log->n] = be->read_clock && be->read_clock(&clk) == 0 ? clk.sm_mhz : 0;
    log->ms[log->n++] = ms[0] + ms[1] + ms[2] - lo - hi;
    if (log->report) {
        cJSON *m = cJSON_CreateObject();
        cJSON_AddNumberToObject(m, "probe_ms", log->ms[log->n - 1]);
        cJSON_AddNumberToObject(m, "probe_mhz", log->mhz[log->n - 1]);
        send_message(m);
    }
    if (log->n == log->cap) /* the worker reports each probe and keeps none */
        log->n = 0;
}

/* The vendor-library handles of this worker process's variants: made on
 * first use, never remade (a worker whose context is lost exits). */
static convt_handles worker_handles;

/* One shape's run through its steps (run_shape): what every step reads
 * and what it leaves for the next. */
typedef struct shape_run {
    const convt_config *cfg;
    const convt_backend *be;
    const convt_run_options *opt;
    const convt_problem *p;
    int si;
    entry *list;
    int n;
    drift_log *drift;
    convt_context ctx;
    shape_buffers sb;
    convt_tensors t;
    launch_closure clo;
    size_t ws_max;
    char dump_dir[4096];
    int result;        /* SHAPE_OK, or SHAPE_LOST once the context is gone */
    convt_err e;
} shape_run;

/* Every entry not yet done ends with this status and reason. */
static void finish_rest(shape_run *r, convt_status status, const char *prefix, const char *msg)
{
    for (int i = 0; i < r->n; i++)
        if (!r->list[i].done)
            finish(&r->list[i], status, prefix, msg);
}

/* True (and the shape's result SHAPE_LOST) when the device context is gone:
 * the step stops and the rest is the next worker's. */
static bool lost(shape_run *r)
{
    if (!r->be->lost())
        return false;
    r->result = SHAPE_LOST;
    return true;
}

/* Step 1: what cannot run here is skipped with its reason; false when
 * nothing is left to run (no inputs, no reference). */
static bool skip_what_cannot_run(shape_run *r)
{
    for (int i = 0; i < r->n; i++) {
        entry *en = &r->list[i];
        char why[512] = "";
        if (!en->done &&
            !en->rec.variant->supports(&en->rec.ran_as, &en->rec.launch, &r->ctx, why, sizeof why))
            finish(en, CONVT_STATUS_SKIPPED, "", why);
    }
    int live = 0;
    for (int i = 0; i < r->n; i++)
        live += !r->list[i].done;
    if (!live)
        return false;
    const convt_problem *p = r->p;
    char why[256];
    /* On the CPU backend the reference is always the CPU's: the config's
     * limit on its size holds there as it does for choosing it on a GPU. */
    if (r->be->kind == CONVT_BACKEND_CPU &&
        convt_flops(p) > r->cfg->validation.cpu_reference_max_gflop * 1e9) {
        snprintf(why, sizeof why,
                 "the float64 CPU reference would take %.1f GFLOP, above "
                 "validation.cpu_reference_max_gflop = %g, and the CPU backend has no other",
                 convt_flops(p) / 1e9, r->cfg->validation.cpu_reference_max_gflop);
        finish_rest(r, CONVT_STATUS_SKIPPED, "", why);
        return false;
    }
    double need = shape_bytes(p), have = (double)r->be->free_bytes();
    if (need > 0.92 * have) {
        snprintf(why, sizeof why,
                 "the shape needs %.2f GiB (inputs, output, float64 reference), %.2f GiB free",
                 need / 1073741824.0, have / 1073741824.0);
        finish_rest(r, CONVT_STATUS_SKIPPED, "", why);
        return false;
    }
    return true;
}

/* Step 2: the shape's buffers, and the inputs of trial 0 (before prepare:
 * a search such as cudnnFind runs on real data). */
static bool set_up_buffers(shape_run *r)
{
    if (alloc_buffers(r->be, r->p, &r->sb, &r->e)) {
        finish_rest(r, CONVT_STATUS_FAILED, "allocating the shape's buffers: ", r->e.msg);
        lost(r);
        return false;
    }
    r->t = (convt_tensors){r->sb.x, r->sb.w, r->sb.b, r->sb.y};
    r->clo = (launch_closure){NULL, &r->t, &r->sb, &r->ctx};
    if (fill_inputs(r->be, r->p, &r->sb, r->cfg->seed, r->si, 0, &r->e)) {
        finish_rest(r, CONVT_STATUS_FAILED, "generating inputs: ", r->e.msg);
        lost(r);
        return false;
    }
    return true;
}

/* Step 3: every entry's prepare (its time recorded, never timed), its
 * workspace checked against the limit; one workspace for the largest. */
static bool prepare_all(shape_run *r)
{
    const convt_problem *p = r->p;
    convt_err *e = &r->e;
    for (int i = 0; i < r->n; i++) {
        entry *en = &r->list[i];
        if (en->done)
            continue;
        const convt_problem *as = &en->rec.ran_as;
        size_t ws = en->rec.variant->workspace_size ? en->rec.variant->workspace_size(as, &en->rec.launch) : 0;
        if (en->rec.variant->prepare) {
            double t0 = wall_ms();
            arm(r->cfg, 0, p, en, "prepare");
            e->skip = 0;
            int failed = en->rec.variant->prepare(as, &en->rec.launch, &r->t, &r->ctx, &en->state, &ws, e);
            disarm();
            if (failed) {
                /* skipped: the variant has nothing to run for this launch (convt_skip) */
                finish(en, e->skip ? CONVT_STATUS_SKIPPED : CONVT_STATUS_FAILED,
                       e->skip ? "" : "prepare: ", e->msg);
                if (lost(r))
                    return false;
                continue;
            }
            en->rec.prepare_ms = wall_ms() - t0;
            if (en->rec.variant->describe)
                en->rec.variant->describe(en->state, en->rec.detail, sizeof en->rec.detail);
        }
        if (ws > r->cfg->workspace_limit) {
            char why[256];
            snprintf(why, sizeof why, "needs %.1f MiB of workspace, above the limit of %.1f MiB "
                     "(workspace_limit_mb)", ws / 1048576.0, r->cfg->workspace_limit / 1048576.0);
            finish(en, CONVT_STATUS_SKIPPED, "", why);
            continue;
        }
        en->rec.workspace = ws;
        if (ws > r->ws_max)
            r->ws_max = ws;
    }
    if (r->ws_max && !(r->sb.workspace = r->be->alloc(r->ws_max, e))) {
        for (int i = 0; i < r->n; i++)
            if (!r->list[i].done && r->list[i].rec.workspace)
                finish(&r->list[i], CONVT_STATUS_FAILED, "allocating the workspace: ", e->msg);
        if (lost(r))
            return false;
    }
    return true;
}

/* One validation run of an entry on this trial's inputs, compared with the
 * reference: its record keeps the worst trial; outside tolerance, wrong. */
static bool validate_entry(shape_run *r, entry *en, int trial, const char *which, int spots,
                           double spot_max)
{
    const convt_problem *p = r->p;
    const convt_backend *be = r->be;
    convt_err *e = &r->e;
    convt_record *rec = &en->rec;
    char name[512], launch[256];
    convt_launch_format(rec->variant, &rec->launch, launch, sizeof launch);
    snprintf(name, sizeof name, "validate %s %s %s", p->name, rec->variant->name, launch);
    r->clo.en = en;
    RANGE_PUSH(name);
    arm(r->cfg, 0, p, en, "the validation run");
    int bad = be->fill_nan(r->sb.y, convt_y_elems(p), e) || enqueue(&r->clo, e) ||
              be->synchronize(e);
    disarm();
    RANGE_POP();
    if (bad) {
        finish(en, CONVT_STATUS_FAILED, "", e->msg);
        return !lost(r);
    }
    convt_error_stats st;
    rec->tol = r->cfg->validation.tol[rec->variant->tier];
    if (be->compare(r->sb.y, r->sb.ref, r->sb.mag, convt_y_elems(p), &rec->tol, &st, e)) {
        finish(en, CONVT_STATUS_FAILED, "comparing: ", e->msg);
        return !lost(r);
    }
    if (trial == 0 || convt_normwise_error(&st) > convt_normwise_error(&rec->errors))
        rec->errors = st;
    rec->validated = true;
    rec->reference = which;
    rec->trials = trial + 1;
    rec->spot_checks = spots;
    if (spot_max > rec->spot_max_diff)
        rec->spot_max_diff = spot_max;
    if (!convt_error_passes(&st, &rec->tol)) {
        char msg[512];
        convt_error_describe(&st, &rec->tol, msg, sizeof msg);
        rec->errors = st;
        finish(en, CONVT_STATUS_WRONG, "", msg);
    }
    return true;
}

/* Step 4: validation, every live entry on every trial's fresh inputs
 * against that trial's float64 reference. */
static bool validate_all(shape_run *r)
{
    const convt_config *cfg = r->cfg;
    const convt_problem *p = r->p;
    convt_err *e = &r->e;
    for (int trial = 0; trial < cfg->validation.trials; trial++) {
        if (trial > 0 && fill_inputs(r->be, p, &r->sb, cfg->seed, r->si, trial, e)) {
            finish_rest(r, CONVT_STATUS_FAILED, "generating inputs: ", e->msg);
            lost(r);
            return false;
        }
        const char *which = "";
        int spots;
        double spot_max;
        arm(cfg, 0, p, NULL, "the reference");
        int ref_failed = make_reference(r->be, cfg, p, &r->sb, r->si, trial, &which, &spots,
                                        &spot_max, e);
        disarm();
        if (ref_failed) {
            finish_rest(r, CONVT_STATUS_FAILED, "reference: ", e->msg);
            lost(r);
            return false;
        }
        bool last = trial == cfg->validation.trials - 1;
        if (last && r->opt->dump_dir &&
            (shape_dump_dir(r->opt->dump_dir, p, r->dump_dir, sizeof r->dump_dir, e) ||
             dump_inputs(r->be, r->dump_dir, p, &r->sb, e)))
            fprintf(stderr, "convt-bench: warning: --dump: %s\n", e->msg);
        for (int i = 0; i < r->n; i++) {
            entry *en = &r->list[i];
            if (en->done)
                continue;
            if (!validate_entry(r, en, trial, which, spots, spot_max))
                return false;
            if (last && r->opt->dump_dir && r->dump_dir[0] &&
                dump_output(r->be, r->dump_dir, p, en, &r->sb, e))
                fprintf(stderr, "convt-bench: warning: --dump: %s\n", e->msg);
        }
    }
    return true;
}

/* An entry's timing and raw samples go into its record (results.h, which
 * frees them), with its final status. */
static void keep_timing(entry *en, const convt_measure_settings *m, convt_status status,
                        const char *reason)
{
    convt_sampling_finish(&en->sampling, m, &en->rec.timing);
    en->rec.sample_ms = en->sampling.samples;
    en->rec.sample_rounds = en->sampling.rounds;
    memcpy(en->rec.sample_round_end, en->sampling.round_end, sizeof en->sampling.round_end);
    en->sampling.samples = NULL;
    en->rec.timing.placements = en->placements;
    en->rec.timed = true;
    finish(en, status, "", reason);
}

/* measure.prune, after the first round: the launches far slower than their
 * variant's fastest stop here (convt_prune_runs); time_all records them
 * `pruned` with that round's timing, or gives them their other rounds if
 * no launch of their variant got through every round. */
static void prune_slow_launches(shape_run *r)
{
    const convt_measure_settings *m = &r->cfg->measure;
    double *first = malloc((size_t)r->n * sizeof *first), *best = malloc((size_t)r->n * sizeof *best);
    int *group = malloc((size_t)r->n * sizeof *group);
    bool *stop = malloc((size_t)r->n * sizeof *stop);
    if (first && best && group && stop) {
        for (int i = 0; i < r->n; i++) {
            const entry *en = &r->list[i];
            first[i] = en->done ? NAN : convt_sampling_round_median(&en->sampling, 0);
            group[i] = i;
            for (int j = 0; j < i; j++) /* the first entry of the same variant names the group */
                if (r->list[j].rec.variant == en->rec.variant) {
                    group[i] = j;
                    break;
                }
        }
        convt_prune_runs(first, group, r->n, m->prune, stop, best);
        for (int i = 0; i < r->n; i++) {
            if (!stop[i])
                continue;
            entry *en = &r->list[i];
            en->pruned = true;
            snprintf(en->why_pruned, sizeof en->why_pruned,
                     "stopped after round 1 of %d: %.4g ms is %.2fx the fastest launch of %s "
                     "on this shape in that round (%.4g ms), above measure.prune = %g",
                     convt_measure_rounds(m), first[i], first[i] / best[i],
                     en->rec.variant->name, best[i], m->prune);
        }
    }
    /* out of host memory: nothing is pruned, every launch gets every round */
    free(first);
    free(best);
    free(group);
    free(stop);
}

/* Rounds first_round .. rounds - 1 of every entry neither done nor pruned
 * (measure.h): each gets a round before any gets the next, each round in
 * its own rotation of the list (round_order.h), and the
 * buffers move to new memory before every round but the first. After
 * round 1 of a first pass, measure.prune. False when the context is lost. */
static bool time_rounds(shape_run *r, int first_round, int *placement)
{
    const convt_config *cfg = r->cfg;
    const convt_problem *p = r->p;
    const convt_backend *be = r->be;
    convt_err *e = &r->e;
    int rounds = convt_measure_rounds(&cfg->measure);
    /* each round's order (round_order.h); without the memory, the list's */
    int *order = malloc((size_t)(r->n > 0 ? r->n : 1) * sizeof *order);
    bool *timed = malloc((size_t)(r->n > 0 ? r->n : 1) * sizeof *timed);
    if (!order || !timed) {
        free(order);
        free(timed);
        order = NULL;
        timed = NULL;
    }
    bool ok = true;
    for (int round = first_round; round < rounds; round++) {
        if (round == 1 && first_round == 0 && cfg->measure.prune > 0)
            prune_slow_launches(r);
        if (round > 0) {
            if (move_buffers(be, cfg, p, r->si, r->ws_max, &r->sb, e) == 0) {
                ++*placement;
                r->t = (convt_tensors){r->sb.x, r->sb.w, r->sb.b, r->sb.y};
            } else {
                if (lost(r)) {
                    ok = false;
                    break;
                }
                if (!r->opt->quiet)
                    fprintf(stderr, "convt-bench: %s: round %d runs on the same buffers as "
                                    "round %d: moving them failed: %s\n",
                            p->name, round + 1, round, e->msg);
            }
        }
        probe_clock(be, r->drift);
        if (lost(r)) {
            ok = false;
            break;
        }
        int m = r->n;
        if (order) {
            for (int i = 0; i < r->n; i++)
                timed[i] = !r->list[i].done && !r->list[i].pruned;
            m = convt_round_order(timed, r->n, round, rounds, order);
        }
        for (int j = 0; j < m && ok; j++) {
            entry *en = &r->list[order ? order[j] : j];
            if (en->done || en->pruned)
                continue;
            if (en->placed_at != *placement) {
                en->placements++;
                en->placed_at = *placement;
            }
            char name[512], launch[256];
            convt_launch_format(en->rec.variant, &en->rec.launch, launch, sizeof launch);
            snprintf(name, sizeof name, "%s %s %s round %d", p->name, en->rec.variant->name,
                     launch, round + 1);
            r->clo.en = en;
            RANGE_PUSH(name);
            arm(cfg, (cfg->measure.max_time_s + cfg->measure.min_time_s) / rounds, p, en,
                "timing");
            int bad = convt_measure_round(be, &cfg->measure, enqueue, &r->clo, &en->sampling, e);
            disarm();
            RANGE_POP();
            if (bad) {
                finish(en, CONVT_STATUS_FAILED, "while timing: ", e->msg);
                if (lost(r))
                    ok = false;
            }
        }
        if (!ok)
            break;
    }
    free(order);
    free(timed);
    return ok;
}

/* Pruned entries of a variant none of whose launches got through every
 * round (its fastest failed in a later round) are pruned no longer: the
 * variant would otherwise have no record to select. Returns how many. */
static int unprune_orphans(shape_run *r)
{
    int revived = 0;
    for (int i = 0; i < r->n; i++) {
        entry *en = &r->list[i];
        if (!en->pruned)
            continue;
        bool has_ok = false;
        for (int j = 0; j < r->n && !has_ok; j++)
            has_ok = r->list[j].rec.variant == en->rec.variant && r->list[j].done &&
                     r->list[j].rec.status == CONVT_STATUS_OK;
        if (!has_ok) {
            en->pruned = false;
            revived++;
        }
    }
    return revived;
}

/* Step 5: timing, on the last trial's inputs, in rounds (time_rounds). The
 * reference is done with: its memory makes room for the moves. Entries
 * that got every round are ok; pruned ones are recorded `pruned`, unless
 * no launch of their variant got every round: those get their other
 * rounds in a second pass. */
static bool time_all(shape_run *r)
{
    const convt_config *cfg = r->cfg;
    const convt_backend *be = r->be;
    convt_err *e = &r->e;
    be->release(r->sb.ref);
    be->release(r->sb.mag);
    r->sb.ref = r->sb.mag = NULL;
    for (int i = 0; i < r->n; i++)
        if (!r->list[i].done && convt_sampling_init(&r->list[i].sampling, &cfg->measure, e))
            finish(&r->list[i], CONVT_STATUS_FAILED, "", e->msg);
    int placement = 1;
    for (int pass = 0; pass < 2; pass++) {
        if (!time_rounds(r, pass == 0 ? 0 : 1, &placement))
            return false;
        /* every entry that got every round is ok */
        for (int i = 0; i < r->n; i++)
            if (!r->list[i].done && !r->list[i].pruned)
                keep_timing(&r->list[i], &cfg->measure, CONVT_STATUS_OK, "");
        if (pass > 0 || !unprune_orphans(r))
            break;
    }
    for (int i = 0; i < r->n; i++)
        if (!r->list[i].done && r->list[i].pruned)
            keep_timing(&r->list[i], &cfg->measure, CONVT_STATUS_PRUNED, r->list[i].why_pruned);
    return true;
}

/* Runs every entry not yet done, step by step: skip what cannot run, set
 * up the buffers, prepare, validate, time. Returns SHAPE_LOST when the
 * device context was lost (the entry responsible is marked failed), so the
 * caller can leave the rest to a new worker. */
static int run_shape(const convt_config *cfg, const convt_backend *be,
                     const convt_device_info *dev, const convt_run_options *opt, int si,
                     entry *list, int n, drift_log *drift)
{
    shape_run *r = calloc(1, sizeof *r);
    if (!r) {
        for (int i = 0; i < n; i++)
            if (!list[i].done)
                finish(&list[i], CONVT_STATUS_FAILED, "", "out of host memory");
        return SHAPE_OK;
    }
    *r = (shape_run){.cfg = cfg, .be = be, .opt = opt, .p = &cfg->shapes[si], .si = si,
                     .list = list, .n = n, .drift = drift, .result = SHAPE_OK};
    r->ctx = (convt_context){.stream = be->stream(), .dev = dev,
                             .workspace_limit = cfg->workspace_limit, .handles = &worker_handles};
    if (skip_what_cannot_run(r) && set_up_buffers(r) && prepare_all(r) && validate_all(r))
        time_all(r);
    for (int i = 0; i < n; i++) {
        convt_sampling_free(&list[i].sampling);
        if (list[i].state && list[i].rec.variant->release)
            list[i].rec.variant->release(list[i].state);
        list[i].state = NULL;
    }
    free_buffers(be, &r->sb);
    int result = r->result;
    free(r);
    return result;
}

// ----------------------------------------------------------------------------
// the worker: runs shapes as the orchestrator asks (orchestrator.c)

static cJSON *ceilings_json(const convt_ceilings *c)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "copy_gbps", c->copy_gbps);
    cJSON_AddNumberToObject(o, "fp32_gflops", c->gemm_gflops[CONVT_TIER_FP32]);
    cJSON_AddNumberToObject(o, "tf32_gflops", c->gemm_gflops[CONVT_TIER_TF32]);
    cJSON_AddStringToObject(o, "method", c->method);
    return o;
}

static void ceilings_from_json(const cJSON *o, convt_ceilings *c)
{
    memset(c, 0, sizeof *c);
    const cJSON *v;
    if ((v = cJSON_GetObjectItemCaseSensitive(o, "copy_gbps")) && cJSON_IsNumber(v))
        c->copy_gbps = v->valuedouble;
    if ((v = cJSON_GetObjectItemCaseSensitive(o, "fp32_gflops")) && cJSON_IsNumber(v))
        c->gemm_gflops[CONVT_TIER_FP32] = v->valuedouble;
    if ((v = cJSON_GetObjectItemCaseSensitive(o, "tf32_gflops")) && cJSON_IsNumber(v))
        c->gemm_gflops[CONVT_TIER_TF32] = v->valuedouble;
    if ((v = cJSON_GetObjectItemCaseSensitive(o, "method")) && cJSON_IsString(v))
        snprintf(c->method, sizeof c->method, "%s", v->valuestring);
}

/* Reads one request line from the orchestrator; NULL at end of input. */
static cJSON *read_request(FILE *in)
{
    char *line = NULL;
    size_t cap = 0;
    ssize_t n = getline(&line, &cap, in);
    cJSON *msg = n > 0 ? cJSON_Parse(line) : NULL;
    free(line);
    return msg;
}

int convt_worker_serve(const convt_config *cfg, const convt_backend *be,
                       const convt_device_info *dev, const convt_run_options *opt)
{
    /* A worker whose orchestrator died (kill -9) must not run on holding the
     * device: the kernel kills it with its parent. */
    pid_t parent = getppid();
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent)
        return 5;
    /* The protocol gets the real stdout; anything a library prints to
     * stdout goes to stderr instead of into the pipe. */
    int fd = dup(1);
    if (fd < 0 || dup2(2, 1) < 0 || !(channel = fdopen(fd, "w"))) {
        fprintf(stderr, "convt-bench worker: cannot set up its pipe: %s\n", strerror(errno));
        return 3;
    }
    drift_log drift = {0};
    drift.cap = 64;
    drift.ms = malloc((size_t)drift.cap * sizeof *drift.ms);
    drift.mhz = malloc((size_t)drift.cap * sizeof *drift.mhz);
    if (!drift.ms || !drift.mhz)
        return 3;
    convt_ceilings ceil = {0};
    cJSON *first = read_request(stdin); /* {"ceilings": ...} or {"measure_ceilings": true} */
    const cJSON *given = cJSON_GetObjectItemCaseSensitive(first, "ceilings");
    convt_err e = {{0}};
    if (given) {
        ceilings_from_json(given, &ceil);
    } else if (be->measure_ceilings(&ceil, &e)) {
        fprintf(stderr, "convt-bench: warning: measuring ceilings failed: %s\n", e.msg);
        memset(&ceil, 0, sizeof ceil);
        snprintf(ceil.method, sizeof ceil.method, "not measured: %s", e.msg);
    } else if (!opt->quiet) {
        fprintf(stderr, "convt-bench: copy %.0f GB/s, fp32 %.1f GFLOP/s, tf32 %.1f GFLOP/s\n",
                ceil.copy_gbps, ceil.gemm_gflops[CONVT_TIER_FP32],
                ceil.gemm_gflops[CONVT_TIER_TF32]);
    }
    cJSON_Delete(first);
    cJSON *hello = cJSON_CreateObject();
    cJSON_AddStringToObject(hello, "backend", be->name);
    char hash[32];
    convt_config_hash(cfg, opt->shard, hash, sizeof hash);
    cJSON_AddStringToObject(hello, "config_hash", hash);
    cJSON_AddItemToObject(hello, "device", convt_device_to_json(dev));
    cJSON_AddItemToObject(hello, "ceilings", ceilings_json(&ceil));
    cJSON *wrap = cJSON_CreateObject();
    cJSON_AddItemToObject(wrap, "hello", hello);
    send_message(wrap);
    if (!given) {
        drift.report = false;
        probe_clock(be, &drift); /* a first probe warms it up; not reported */
        drift.n = 0;
    }

    int rc = 0;
    for (cJSON *req; (req = read_request(stdin));) {
        const cJSON *run = cJSON_GetObjectItemCaseSensitive(req, "run");
        const cJSON *skip = cJSON_GetObjectItemCaseSensitive(req, "skip");
        int si = cJSON_IsNumber(run) ? (int)run->valuedouble : -1;
        entry *list = NULL;
        int n = 0;
        if (si < 0 || si >= cfg->n_shapes || plan_shape(cfg, be->kind, si, &list, &n)) {
            cJSON_Delete(req);
            rc = 3;
            break;
        }
        for (const cJSON *k = skip ? skip->child : NULL; k; k = k->next)
            if (cJSON_IsNumber(k) && k->valuedouble >= 0 && k->valuedouble < n)
                list[(int)k->valuedouble].done = true;
        bool *already = calloc((size_t)(n ? n : 1), sizeof *already);
        for (int i = 0; already && i < n; i++)
            already[i] = list[i].done;
        drift.report = true;
        int lost = run_shape(cfg, be, dev, opt, si, list, n, &drift) == SHAPE_LOST;
        for (int i = 0; i < n; i++) {
            if (already && !already[i] && list[i].done) {
                cJSON *m = cJSON_CreateObject();
                cJSON_AddNumberToObject(m, "entry", i);
                cJSON_AddItemToObject(m, "record", convt_record_to_json(&list[i].rec, &ceil));
                send_message(m);
            }
            free(list[i].rec.sample_ms);
        }
        free(already);
        free(list);
        cJSON *done = cJSON_CreateObject();
        cJSON_AddNumberToObject(done, "shape_done", si);
        cJSON_AddBoolToObject(done, "lost", lost);
        send_message(done);
        cJSON_Delete(req);
        if (lost) { /* a context with a sticky error stays broken: a new worker goes on */
            rc = 4;
            break;
        }
    }
    free(drift.ms);
    free(drift.mhz);
    fclose(channel);
    channel = NULL;
    return rc;
}
