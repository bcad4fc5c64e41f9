/* libconvt's contexts and plans (include/convt/convt.h): which variant runs
 * a shape, by the exact, nearest and heuristic rules, prepared once and
 * cached per (table, tier, shape). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "build_config.h"
#include "dispatch_impl.h"
#include "plugin.h"

#if CONVT_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

// ----------------------------------------------------------------------------
// contexts

int convt_ctx_create(int device, convt_ctx **out, convt_err *e)
{
    *out = NULL;
    convt_ctx *c = calloc(1, sizeof *c);
    if (!c)
        return convt_fail(e, "out of memory");
    c->device = device;
    c->workspace_limit = (size_t)4 << 30;
    if (device < 0) {
        c->kind = CONVT_BACKEND_CPU;
        if (convt_cpu_device_info(0, &c->dev, e)) {
            free(c);
            return -1;
        }
    } else {
        c->kind = CONVT_BACKEND_CUDA;
#if CONVT_HAVE_CUDA
        if (convt_cuda_device_info(device, &c->dev, e)) {
            free(c);
            return -1;
        }
#else
        free(c);
        return convt_fail(e, "CUDA device %d: this libconvt was built without CUDA (device -1 "
                             "is the CPU)", device);
#endif
    }
    pthread_mutex_init(&c->lock, NULL);
    pthread_mutex_init(&c->exec_lock, NULL);
    *out = c;
    return 0;
}

const char *convt_ctx_device_name(const convt_ctx *ctx) { return ctx->dev.name; }

void convt_ctx_set_workspace_limit(convt_ctx *ctx, size_t bytes) { ctx->workspace_limit = bytes; }

static void plan_free(convt_plan *p)
{
    if (p->variant->release)
        p->variant->release(p->state);
    free(p);
}

void convt_ctx_destroy(convt_ctx *ctx)
{
    if (!ctx)
        return;
    for (int i = 0; i < ctx->n_plans; i++)
        plan_free(ctx->plans[i]);
    free(ctx->plans);
#if CONVT_HAVE_CUDA
    if (ctx->kind == CONVT_BACKEND_CUDA)
        cudaSetDevice(ctx->device);
#endif
    convt_handles_destroy(&ctx->handles, false);
    for (int i = 0; i < ctx->n_plugins; i++) {
        convt_plugin_close(ctx->plugin_dl[i]);
        free(ctx->plugin_paths[i]);
    }
    pthread_mutex_destroy(&ctx->lock);
    pthread_mutex_destroy(&ctx->exec_lock);
    free(ctx);
}

const convt_variant *convt_ctx_variant(const convt_ctx *ctx, const char *name)
{
    const convt_variant *v = convt_variant_find(name);
    for (int i = 0; !v && i < ctx->n_plugins; i++)
        for (const convt_variant *const *p = ctx->plugins[i]->variants; *p; p++)
            if (!strcmp((*p)->name, name))
                v = *p;
    return v && v->backend == ctx->kind ? v : NULL;
}

static bool name_in_ctx(const char *name, void *arg)
{
    const convt_ctx *ctx = arg;
    /* every name of the project, built here or not: convt-bench, which
     * run-time tuning starts with the context's plugins, refuses the same */
    if (convt_variant_find(name) || convt_variant_name_find(name))
        return true;
    for (int i = 0; i < ctx->n_plugins; i++)
        for (const convt_variant *const *p = ctx->plugins[i]->variants; *p; p++)
            if (!strcmp((*p)->name, name))
                return true;
    return false;
}

int convt_ctx_load_plugin(convt_ctx *ctx, const char *path, convt_err *e)
{
    pthread_mutex_lock(&ctx->lock);
    int rc = -1;
    if (ctx->n_plugins == CONVT_CTX_MAX_PLUGINS) {
        convt_fail(e, "at most %d plugins per context", CONVT_CTX_MAX_PLUGINS);
        goto out;
    }
    void *dl;
    const convt_plugin *p;
    if (convt_plugin_open(path, name_in_ctx, ctx, &dl, &p, e))
        goto out;
    char *kept = strdup(path);
    if (!kept) {
        convt_plugin_close(dl);
        convt_fail(e, "out of memory");
        goto out;
    }
    ctx->plugin_dl[ctx->n_plugins] = dl;
    ctx->plugins[ctx->n_plugins] = p;
    ctx->plugin_paths[ctx->n_plugins++] = kept;
    rc = 0;
out:
    pthread_mutex_unlock(&ctx->lock);
    return rc;
}

// ----------------------------------------------------------------------------
// memory of the context's backend, for prepare()'s scratch tensors

static void *ctx_alloc(const convt_ctx *ctx, size_t bytes)
{
    if (!bytes)
        bytes = 4;
    if (ctx->kind == CONVT_BACKEND_CPU)
        return calloc(1, bytes);
#if CONVT_HAVE_CUDA
    void *p = NULL;
    if (cudaMalloc(&p, bytes) != cudaSuccess) {
        (void)cudaGetLastError();
        return NULL;
    }
    if (cudaMemset(p, 0, bytes) != cudaSuccess) {
        cudaFree(p);
        return NULL;
    }
    return p;
#else
    return NULL;
#endif
}

static void ctx_free(const convt_ctx *ctx, void *p)
{
    if (!p)
        return;
    if (ctx->kind == CONVT_BACKEND_CPU) {
        free(p);
        return;
    }
#if CONVT_HAVE_CUDA
    cudaFree(p);
#endif
}

static int use_device(const convt_ctx *ctx, convt_err *e)
{
#if CONVT_HAVE_CUDA
    if (ctx->kind == CONVT_BACKEND_CUDA) {
        cudaError_t err = cudaSetDevice(ctx->device);
        if (err != cudaSuccess)
            return convt_fail(e, "cudaSetDevice(%d): %s", ctx->device, cudaGetErrorString(err));
    }
#else
    (void)ctx, (void)e;
#endif
    return 0;
}

// ----------------------------------------------------------------------------
// the rules

/* Same dimensionality, bias, kernel extent and dilation; stride 1 or the
 * same stride per dimension; dense, depthwise or grouped alike. */
static int group_class(const convt_problem *p)
{
    return p->groups == 1 ? 0 : p->groups == p->cin ? 1 : 2;
}

/* Inputs of one position (a latent to a map) are a GEMM of their own, run
 * best by other variants than the convolutions of the same kernel and
 * stride (session 59, configs/latent.json: im2col_gemm's one GEMM 4.9 to
 * 16.9x the vendor, where the polyphase kernels were 1.2 to 3.7x): a class
 * apart. */
static bool one_position(const convt_problem *p) { return convt_in_spatial(p) == 1; }

static bool same_class(const convt_problem *a, const convt_problem *b)
{
    if (a->dims != b->dims || a->bias != b->bias || group_class(a) != group_class(b) ||
        one_position(a) != one_position(b))
        return false;
    for (int d = 0; d < a->dims; d++) {
        if (a->k[d] != b->k[d] || a->dil[d] != b->dil[d])
            return false;
        if ((a->stride[d] == 1) != (b->stride[d] == 1) ||
            (a->stride[d] != 1 && a->stride[d] != b->stride[d]))
            return false;
    }
    return true;
}

/* The implicit GEMM's M (output pixels), N (output channels per group) and
 * K (input channels per group times taps), compared in logs. */
static double gemm_distance(const convt_problem *a, const convt_problem *b)
{
    double ma = (double)a->n * (double)convt_out_spatial(a), mb = (double)b->n * (double)convt_out_spatial(b);
    double na = (double)(a->cout / a->groups), nb = (double)(b->cout / b->groups);
    double ka = (double)(a->cin / a->groups) * (double)convt_taps(a);
    double kb = (double)(b->cin / b->groups) * (double)convt_taps(b);
    return fabs(log(ma / mb)) + fabs(log(na / nb)) + fabs(log(ka / kb));
}

typedef struct candidate {
    const convt_variant *variant;
    convt_launch launch;
    const char *rule;
    char from[160];   /* which row, or why the heuristic */
    double dist;
} candidate;

static int by_distance(const void *a, const void *b)
{
    double x = ((const candidate *)a)->dist, y = ((const candidate *)b)->dist;
    return x < y ? -1 : x > y;
}

static int add_step(convt_heuristic_step *out, int n, int max, const char *variant,
                    int n_knobs, const char *knob0, int64_t value0, const char *knob1,
                    int64_t value1, const char *why)
{
    if (n < max)
        out[n++] = (convt_heuristic_step){.variant = variant, .n_knobs = n_knobs,
                                          .knob = {knob0, knob1}, .value = {value0, value1},
                                          .why = why};
    return n;
}

int convt_heuristic_order(const convt_problem *p, convt_tier tier, convt_backend_kind kind,
                          convt_heuristic_step *out, int max)
{
    static const char *const cuda_tf32[] = {"polyphase_igemm_tf32", "polyphase_igemm_3xtf32",
                                            "direct_grouped", "gather", NULL};
    static const char *const cuda_fp32[] = {"polyphase_igemm_3xtf32", "direct_grouped", "gather",
                                            NULL};
    static const char *const cuda_direct[] = {"direct_grouped", "polyphase_igemm_3xtf32",
                                              "gather", NULL};
    static const char *const cpu[] = {"cpu_scatter", "cpu_gather", NULL};
    const bool cuda = kind == CONVT_BACKEND_CUDA, tf32 = tier == CONVT_TIER_TF32;
    const int64_t cin_g = p->cin / p->groups, cout_g = p->cout / p->groups;
    int n = 0;
    if (cuda && convt_problem_is_gemm(p)) {
        /* a layer that is a GEMM (a latent to a map): im2col_gemm's one GEMM
         * over every image first (configs/latent.json, session 59: 4.9 to
         * 16.9x the vendor where the polyphase kernels were 1.2 to 3.7x) */
        const char *why = "a layer that is one GEMM";
        if (tf32)
            n = add_step(out, n, max, "im2col_gemm_tf32", 1, "images", 0, NULL, 0, why);
        n = add_step(out, n, max, "im2col_gemm", 1, "images", 0, NULL, 0, why);
    } else if (cuda && cout_g <= 4 && cin_g > 8) {
        /* few output channels over many input channels: the taps in the
         * GEMM's M, then col2im (session 60, configs/few-channels.json and
         * unseen4.json: faster than the polyphase implicit GEMM of its tier
         * on all 9 such layers, 1.16 to 6.5x, and the fastest own variant on 7) */
        const char *why = "few output channels a group: the taps in the GEMM's M (im2col)";
        if (tf32)
            n = add_step(out, n, max, "im2col_gemm_tf32", 2, "images", 0, "merge", 0, why);
        n = add_step(out, n, max, "im2col_gemm", 2, "images", 0, "merge", 0, why);
    } else if (cuda && tf32 && cin_g >= 512 && convt_in_spatial(p) <= 64) {
        /* many input channels on a small map (SimpleBaseline's 2048 on
         * 8 x 6, a 1-D decoder's 2048 on 32, a 4^3 volume of 512): the
         * images as one GEMM with the input channels last, K-major for the
         * tensor cores (session 62: the fastest own TF32 variant on 8 of
         * the 11 such layers of the seven sets measured, the wgmma kernels
         * included, and within 1.13x on the other 3; the implicit GEMMs'
         * few tiles leave SMs idle there) */
        const char *why = "many input channels on a small map: one K-major GEMM (im2col)";
        n = add_step(out, n, max, "im2col_gemm_tf32", 2, "images", 0, "merge", 2, why);
    }
    const char *const *order = cpu;
    if (cuda)
        /* few input channels per group (depthwise and grouped layers, or few
         * channels both in and out: PWC-Net's 2 -> 2 and LapSRN's 1 -> 1,
         * session 60): a GEMM tile would be mostly padding */
        order = cin_g <= 8 && (p->groups > 1 || cout_g <= 4) ? cuda_direct
                : tf32                                       ? cuda_tf32
                                                             : cuda_fp32;
    for (int i = 0; order[i]; i++)
        n = add_step(out, n, max, order[i], 0, NULL, 0, NULL, 0, "no measured shape of its class");
    return n;
}

/* The heuristic's candidates: its order's variants that this context has
 * (built in, or a plugin's), of the tier asked for or fp32. */
static int heuristic(const convt_ctx *ctx, const convt_problem *p, convt_tier tier,
                     candidate *out, int max)
{
    convt_heuristic_step steps[CONVT_HEURISTIC_MAX_STEPS];
    const int n_steps = convt_heuristic_order(p, tier, ctx->kind, steps, CONVT_HEURISTIC_MAX_STEPS);
    int n = 0;
    for (int i = 0; i < n_steps && n < max; i++) {
        const convt_variant *v = convt_ctx_variant(ctx, steps[i].variant);
        if (!v || (tier == CONVT_TIER_FP32 && v->tier != CONVT_TIER_FP32))
            continue;
        convt_launch l = convt_launch_first_default(v);
        for (int k = 0; k < steps[i].n_knobs; k++) {
            const int at = convt_knob_index(v, steps[i].knob[k]);
            if (at >= 0) /* the order names knobs its variants have: -1 is never written */
                l.value[at] = steps[i].value[k];
        }
        out[n] = (candidate){.variant = v, .launch = l, .rule = "heuristic"};
        snprintf(out[n++].from, sizeof out->from, "%s", steps[i].why);
    }
    return n;
}

/* Pass 0: rows of the tier asked for; pass 1: fp32 rows for a tf32 plan. */
static bool serves(convt_tier row, convt_tier want, int pass)
{
    return pass == 0 ? row == want : want == CONVT_TIER_TF32 && row == CONVT_TIER_FP32;
}

/* Candidates in the order the rules give: exact rows, then the nearest of
 * the class, then the heuristic. The caller holds the table's lock. */
static int candidates(const convt_ctx *ctx, const convt_table *t, const convt_problem *p,
                      const char *key, convt_tier tier, candidate **out)
{
    int cap = t->n_rows + 8, n = 0;
    candidate *c = calloc((size_t)cap, sizeof *c);
    if (!c)
        return -1;
    /* the tier's rows, then (for tf32) the fp32 rows: a stricter record
     * serves a looser tier, never the reverse (the selection's tier rule) */
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < t->n_rows; i++) {
            const convt_table_row *r = &t->rows[i];
            if (!serves(r->tier, tier, pass) || strcmp(r->key, key))
                continue;
            c[n] = (candidate){.variant = r->variant, .launch = r->launch, .rule = "exact"};
            snprintf(c[n++].from, sizeof c->from, "table row %s (%s), %.4g ms", r->name,
                     convt_tier_name(r->tier), r->median_ms);
        }
    int near0 = n;
    for (int i = 0; i < t->n_rows; i++) {
        const convt_table_row *r = &t->rows[i];
        if (!(serves(r->tier, tier, 0) || serves(r->tier, tier, 1)) || !strcmp(r->key, key) ||
            !same_class(&r->shape, p))
            continue;
        c[n] = (candidate){.variant = r->variant, .launch = r->launch, .rule = "nearest",
                           .dist = gemm_distance(&r->shape, p)};
        snprintf(c[n].from, sizeof c->from, "table row %s, %.4g ms, log-distance %.2f",
                 r->name, r->median_ms, c[n].dist);
        n++;
    }
    qsort(c + near0, (size_t)(n - near0), sizeof *c, by_distance);
    n += heuristic(ctx, p, tier, c + n, cap - n);
    *out = c;
    return n;
}

// ----------------------------------------------------------------------------
// plans

/* Runs the candidate's prepare() on scratch tensors (zeros) of the shape:
 * cuDNN's algorithm search needs real buffers; the plan keeps the state. */
static int try_candidate(convt_ctx *ctx, const convt_problem *p, const candidate *c,
                         convt_plan *plan, char *why, size_t why_len)
{
    convt_context vc = {.stream = NULL, .dev = &ctx->dev, .workspace_limit = ctx->workspace_limit,
                        .handles = &ctx->handles};
    /* the form the variant runs, as convt-bench gave it when it timed it */
    const convt_problem as = convt_problem_for(c->variant, p);
    if (!c->variant->supports(&as, &c->launch, &vc, why, why_len))
        return -1;
    plan->variant = c->variant;
    plan->launch = c->launch;
    plan->rule = c->rule;
    plan->as = as;
    plan->workspace = c->variant->workspace_size ? c->variant->workspace_size(&as, &c->launch) : 0;
    plan->state = NULL;
    if (!c->variant->prepare)
        return 0;
    convt_tensors t = {0};
    float *x = ctx_alloc(ctx, 4 * (size_t)convt_x_elems(p));
    float *w = ctx_alloc(ctx, 4 * (size_t)convt_w_elems(p));
    float *b = p->bias ? ctx_alloc(ctx, 4 * (size_t)p->cout) : NULL;
    float *y = ctx_alloc(ctx, 4 * (size_t)convt_y_elems(p));
    int rc = -1;
    if (!x || !w || !y || (p->bias && !b)) {
        snprintf(why, why_len, "no memory for prepare()'s scratch tensors");
    } else {
        t = (convt_tensors){x, w, b, y};
        convt_err e = {{0}, 0};
        rc = c->variant->prepare(&as, &c->launch, &t, &vc, &plan->state, &plan->workspace, &e);
        if (rc)
            snprintf(why, why_len, "%s", e.msg);
#if CONVT_HAVE_CUDA
        if (ctx->kind == CONVT_BACKEND_CUDA && cudaDeviceSynchronize() != cudaSuccess) {
            snprintf(why, why_len, "prepare(): %s", cudaGetErrorString(cudaGetLastError()));
            rc = -1;
        }
#endif
        /* prepare may raise the workspace (a library's work area): the
         * limit holds for what it asks in the end, as in convt-bench */
        if (rc == 0 && plan->workspace > ctx->workspace_limit) {
            snprintf(why, why_len, "prepare() asks %.1f MiB of workspace, above the limit of %.1f MiB",
                     plan->workspace / 1048576.0, ctx->workspace_limit / 1048576.0);
            rc = -1;
        }
        /* a failed candidate's state (what prepare made before failing)
         * is released here: the next candidate reuses the plan */
        if (rc && c->variant->release)
            c->variant->release(plan->state);
        if (rc)
            plan->state = NULL;
    }
    ctx_free(ctx, x);
    ctx_free(ctx, w);
    ctx_free(ctx, b);
    ctx_free(ctx, y);
    return rc;
}

static convt_plan *cached(convt_ctx *ctx, const convt_table *t, const char *key, convt_tier tier)
{
    for (int i = 0; i < ctx->n_plans; i++) {
        convt_plan *p = ctx->plans[i];
        if (p->table_id == t->id && p->tier == tier && !strcmp(p->key, key))
            return p;
    }
    return NULL;
}

/* A row of the key that serves the tier (an fp32 row serves tf32). */
static bool has_exact(const convt_table *t, const char *key, convt_tier tier)
{
    for (int i = 0; i < t->n_rows; i++)
        if ((serves(t->rows[i].tier, tier, 0) || serves(t->rows[i].tier, tier, 1)) &&
            !strcmp(t->rows[i].key, key))
            return true;
    return false;
}

int convt_plan_create(convt_ctx *ctx, convt_table *table, const convt_problem *problem,
                      convt_tier tier, convt_plan **out, convt_err *e)
{
    *out = NULL;
    char why[512];
    if (convt_problem_check(problem, why, sizeof why))
        return convt_fail(e, "the problem: %s", why);
    if (tier != CONVT_TIER_FP32 && tier != CONVT_TIER_TF32)
        return convt_fail(e, "tier %d is neither CONVT_TIER_FP32 nor CONVT_TIER_TF32", (int)tier);
    if (table->ctx != ctx)
        return convt_fail(e, "the table was loaded for another context");
    char key[256];
    convt_problem_key(problem, key, sizeof key);
    /* Run-time tuning first, holding the table's lock only: a convt-bench
     * run takes seconds, and other threads' plans (other shapes, other
     * tables) must not wait for it. */
    bool tuned = false;
    pthread_mutex_lock(&ctx->lock);
    bool hit = cached(ctx, table, key, tier) != NULL;
    pthread_mutex_unlock(&ctx->lock);
    if (!hit && table->tune_path[0]) {
        pthread_mutex_lock(&table->lock);
        if (!has_exact(table, key, tier)) { /* another thread may have tuned it meanwhile */
            convt_err te = {{0}, 0};
            if (convt_tune_shape(table, problem, &te) == 0)
                tuned = true;
            else
                fprintf(stderr, "libconvt: run-time tuning of %s failed (%s); the rules decide\n",
                        key, te.msg);
        }
        pthread_mutex_unlock(&table->lock);
    }
    pthread_mutex_lock(&ctx->lock);
    int rc = -1;
    convt_plan *plan = cached(ctx, table, key, tier);
    if (plan) {
        plan->refs++;
        *out = plan;
        rc = 0;
        goto out;
    }
    if (use_device(ctx, e))
        goto out;
    pthread_mutex_lock(&table->lock);
    candidate *c = NULL;
    int n = candidates(ctx, table, problem, key, tier, &c);
    pthread_mutex_unlock(&table->lock);
    if (n < 0) {
        convt_fail(e, "out of memory");
        goto out;
    }
    plan = calloc(1, sizeof *plan);
    if (!plan) {
        free(c);
        convt_fail(e, "out of memory");
        goto out;
    }
    char tried[1024] = "";
    for (int i = 0; i < n; i++) {
        char whynot[512] = "";
        if (try_candidate(ctx, problem, &c[i], plan, whynot, sizeof whynot) == 0) {
            if (tuned && !strcmp(c[i].rule, "exact"))
                plan->rule = "tuned";
            snprintf(plan->why, sizeof plan->why, "%s", c[i].from);
            break;
        }
        size_t l = strlen(tried);
        if (l < sizeof tried - 8)
            snprintf(tried + l, sizeof tried - l, "%s%s %s: %s", l ? "; " : "", c[i].variant->name,
                     c[i].rule, whynot);
        plan->variant = NULL;
    }
    free(c);
    if (!plan->variant) {
        free(plan);
        plan = NULL;
        convt_fail(e, "no variant of this build can run %s in %s%s%s", key,
                   convt_tier_name(tier), tried[0] ? ": " : "", tried);
        goto out;
    }
    plan->ctx = ctx;
    plan->table_id = table->id;
    plan->problem = *problem;
    plan->tier = tier;
    plan->refs = 1;
    snprintf(plan->key, sizeof plan->key, "%s", key);
    if (ctx->n_plans == ctx->cap_plans) {
        int cap = ctx->cap_plans ? 2 * ctx->cap_plans : 16;
        convt_plan **p = realloc(ctx->plans, (size_t)cap * sizeof *p);
        if (!p) {
            plan_free(plan);
            convt_fail(e, "out of memory");
            goto out;
        }
        ctx->plans = p;
        ctx->cap_plans = cap;
    }
    ctx->plans[ctx->n_plans++] = plan;
    *out = plan;
    rc = 0;
out:
    pthread_mutex_unlock(&ctx->lock);
    return rc;
}

void convt_plan_describe(const convt_plan *p, char *buf, size_t len)
{
    char launch[128], key[256], as_key[256], ran_as[300] = "";
    convt_launch_format(p->variant, &p->launch, launch, sizeof launch);
    convt_problem_key(&p->problem, key, sizeof key);
    convt_problem_key(&p->as, as_key, sizeof as_key);
    if (strcmp(key, as_key)) /* the variant runs an equivalent form (convt_problem_for) */
        snprintf(ran_as, sizeof ran_as, ", run as %s", as_key);
    snprintf(buf, len, "%s: %s %s (%s%s)", p->rule, p->variant->name, launch, p->why, ran_as);
}

const char *convt_plan_variant(const convt_plan *p) { return p->variant->name; }
const char *convt_plan_rule(const convt_plan *p) { return p->rule; }
size_t convt_plan_workspace_size(const convt_plan *p) { return p->workspace; }

int convt_execute(convt_plan *plan, const float *x, const float *w, const float *b, float *y,
                  void *workspace, void *stream, convt_err *e)
{
    const convt_problem *p = &plan->problem;
    if (!x || !w || !y)
        return convt_fail(e, "convt_execute: x, w and y are required");
    if (p->bias && !b)
        return convt_fail(e, "convt_execute: the problem has a bias and b is NULL");
    if (plan->workspace && !workspace)
        return convt_fail(e, "convt_execute: the plan needs %zu bytes of workspace "
                             "(convt_plan_workspace_size) and got none", plan->workspace);
    if (use_device(plan->ctx, e))
        return -1;
    convt_context vc = {.stream = stream, .dev = &plan->ctx->dev,
                        .workspace_limit = plan->ctx->workspace_limit,
                        .handles = &plan->ctx->handles};
    convt_tensors t = {x, w, p->bias ? b : NULL, y};
    /* the context's cuBLAS and cuDNN handles are shared: setting one's
     * stream and enqueueing on it must not interleave with another thread's */
    pthread_mutex_lock(&plan->ctx->exec_lock);
    int rc = plan->variant->launch(&plan->as, &plan->launch, &t, workspace, plan->state, &vc, e);
    pthread_mutex_unlock(&plan->ctx->exec_lock);
    return rc;
}

void convt_plan_destroy(convt_plan *plan)
{
    if (!plan)
        return;
    convt_ctx *ctx = plan->ctx;
    pthread_mutex_lock(&ctx->lock);
    if (--plan->refs == 0) {
        for (int i = 0; i < ctx->n_plans; i++)
            if (ctx->plans[i] == plan) {
                ctx->plans[i] = ctx->plans[--ctx->n_plans];
                break;
            }
        plan_free(plan);
    }
    pthread_mutex_unlock(&ctx->lock);
}
