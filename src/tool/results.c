#include "results.h"
#include "problem_json.h"
#include "textfile.h"
#include "variant_set.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "json_access.h"
#include "version.h"

const char *convt_status_name(convt_status s)
{
    static const char *const names[] = {"ok", "skipped", "failed", "wrong", "pruned"};
    return (unsigned)s < sizeof names / sizeof *names ? names[s] : "?";
}

cJSON *convt_problem_to_json(const convt_problem *p)
{
    return convt_problem_json(p, true);
}

double convt_floor_ms(const convt_problem *p, convt_tier t, const convt_ceilings *c)
{
    double mem = c->copy_gbps > 0 ? convt_min_bytes(p) / (c->copy_gbps * 1e6) : 0;
    double flop = c->gemm_gflops[t] > 0 ? convt_flops(p) / (c->gemm_gflops[t] * 1e6) : 0;
    return mem > flop ? mem : flop;
}

static void add_finite(cJSON *o, const char *key, double v)
{
    /* JSON has no NaN or infinity: write null rather than an invalid file. */
    if (isfinite(v))
        cJSON_AddNumberToObject(o, key, v);
    else
        cJSON_AddNullToObject(o, key);
}

cJSON *convt_device_to_json(const convt_device_info *dev)
{
    cJSON *d = cJSON_CreateObject();
    cJSON_AddStringToObject(d, "name", dev->name);
    cJSON_AddNumberToObject(d, "index", dev->index);
    cJSON_AddNumberToObject(d, "count", dev->count);
    if (dev->backend == CONVT_BACKEND_CUDA) {
        cJSON_AddStringToObject(d, "pci_bus_id", dev->pci_bus_id);
        char cc[16];
        snprintf(cc, sizeof cc, "%d.%d", dev->cc_major, dev->cc_minor);
        cJSON_AddStringToObject(d, "compute_capability", cc);
        cJSON_AddNumberToObject(d, "sm_count", dev->sm_count);
        cJSON_AddNumberToObject(d, "sm_clock_mhz", dev->sm_clock_mhz);
        cJSON_AddNumberToObject(d, "mem_clock_mhz", dev->mem_clock_mhz);
        cJSON_AddNumberToObject(d, "mem_bus_bits", dev->mem_bus_bits);
        cJSON_AddNumberToObject(d, "l2_bytes", (double)dev->l2_bytes);
        cJSON_AddNumberToObject(d, "smem_per_block_optin", (double)dev->smem_per_block_optin);
        cJSON_AddNumberToObject(d, "driver_version", dev->driver_version);
        cJSON_AddNumberToObject(d, "runtime_version", dev->runtime_version);
        cJSON_AddNumberToObject(d, "cudnn_version", dev->cudnn_version);
        cJSON_AddNumberToObject(d, "cublas_version", dev->cublas_version);
        cJSON_AddBoolToObject(d, "nvml", dev->nvml);
    } else {
        cJSON_AddNumberToObject(d, "threads", dev->cpu_threads);
        cJSON_AddNumberToObject(d, "last_level_cache_bytes", (double)dev->l2_bytes);
    }
    cJSON_AddNumberToObject(d, "memory_bytes", (double)dev->global_mem);
    return d;
}

cJSON *convt_results_create(const convt_config *cfg, const char *backend_name,
                            const cJSON *device, const cJSON *ceilings)
{
    cJSON *doc = cJSON_CreateObject();
    cJSON_AddStringToObject(doc, "tool", "convt-bench");
    cJSON_AddNumberToObject(doc, "schema", CONVT_RESULTS_SCHEMA);
    cJSON_AddStringToObject(doc, "version", CONVT_VERSION);
    cJSON_AddStringToObject(doc, "git_revision", CONVT_GIT_REVISION);
    char when[64];
    time_t now = time(NULL);
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    cJSON_AddStringToObject(doc, "time", when);
    char host[256] = "?";
    gethostname(host, sizeof host - 1);
    cJSON_AddStringToObject(doc, "host", host);
    cJSON_AddStringToObject(doc, "backend", backend_name);
    cJSON_AddItemToObject(doc, "device", cJSON_Duplicate(device, true));
    cJSON_AddItemToObject(doc, "ceilings", cJSON_Duplicate(ceilings, true));
    cJSON_AddStringToObject(doc, "config_path", cfg->path ? cfg->path : "");
    cJSON_AddItemToObject(doc, "config", cJSON_Duplicate(cfg->json, true));
    if (convt_tool_plugin_count()) {
        cJSON *plugins = cJSON_AddArrayToObject(doc, "plugins");
        for (int i = 0; i < convt_tool_plugin_count(); i++)
            cJSON_AddItemToArray(plugins, cJSON_CreateString(convt_tool_plugin_path(i)));
    }
    /* as a decimal string: a double holds only 53 bits, and a run must be
     * reproducible from its own file; the number too where it is exact */
    char seed[24];
    snprintf(seed, sizeof seed, "%" PRIu64, cfg->seed);
    cJSON_AddStringToObject(doc, "seed", seed);
    if (cfg->seed <= CONVT_SEED_EXACT_MAX)
        cJSON_AddNumberToObject(doc, "seed_number", (double)cfg->seed);
    cJSON_AddItemToObject(doc, "records", cJSON_CreateArray());
    return doc;
}

cJSON *convt_record_to_json(const convt_record *r, const convt_ceilings *ceil)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddItemToObject(o, "shape", convt_problem_to_json(r->problem));
    char key[256], as_key[256];
    convt_problem_key(r->problem, key, sizeof key);
    convt_problem_key(&r->ran_as, as_key, sizeof as_key);
    if (r->ran_as.dims && strcmp(key, as_key)) /* the variant ran an equivalent form */
        cJSON_AddItemToObject(o, "ran_as", convt_problem_json(&r->ran_as, false));
    cJSON_AddStringToObject(o, "variant", r->variant->name);
    const char *plugin = convt_tool_plugin_of(r->variant);
    if (plugin) /* a user's kernel, from --plugin */
        cJSON_AddStringToObject(o, "plugin", plugin);
    cJSON_AddStringToObject(o, "tier", convt_tier_name(r->variant->tier));
    cJSON_AddBoolToObject(o, "deterministic", r->variant->deterministic);
    cJSON *l = cJSON_AddObjectToObject(o, "launch");
    for (int i = 0; i < r->variant->n_knobs; i++)
        cJSON_AddNumberToObject(l, r->variant->knobs[i].name, (double)r->launch.value[i]);
    char launch[256];
    convt_launch_format(r->variant, &r->launch, launch, sizeof launch);
    cJSON_AddStringToObject(o, "launch_key", launch);
    cJSON_AddStringToObject(o, "status", convt_status_name(r->status));
    if (r->reason[0])
        cJSON_AddStringToObject(o, "reason", r->reason);
    if (r->detail[0])
        cJSON_AddStringToObject(o, "detail", r->detail);

    if (r->validated) {
        cJSON *v = cJSON_AddObjectToObject(o, "validation");
        cJSON_AddStringToObject(v, "reference", r->reference);
        cJSON_AddNumberToObject(v, "trials", r->trials);
        add_finite(v, "normwise_rel_err", convt_normwise_error(&r->errors));
        add_finite(v, "max_abs_err", r->errors.max_abs_err);
        add_finite(v, "worst_ratio", r->errors.worst_ratio);
        cJSON_AddNumberToObject(v, "worst_index", (double)r->errors.worst_index);
        cJSON_AddNumberToObject(v, "bad", (double)r->errors.bad);
        cJSON_AddNumberToObject(v, "nonfinite", (double)r->errors.nonfinite);
        cJSON_AddNumberToObject(v, "compared", (double)r->errors.count);
        cJSON_AddNumberToObject(v, "rtol", r->tol.rtol);
        cJSON_AddNumberToObject(v, "atol", r->tol.atol);
        cJSON_AddNumberToObject(v, "normwise_tol", r->tol.normwise);
        if (r->spot_checks) {
            cJSON_AddNumberToObject(v, "spot_checks", r->spot_checks);
            add_finite(v, "spot_max_diff", r->spot_max_diff);
        }
    }
    if (r->prepare_ms > 0)
        cJSON_AddNumberToObject(o, "prepare_ms", r->prepare_ms);
    cJSON_AddNumberToObject(o, "workspace_bytes", (double)r->workspace);
    if (r->timed) {
        const convt_timing *t = &r->timing;
        cJSON *tj = cJSON_AddObjectToObject(o, "timing");
        cJSON_AddNumberToObject(tj, "samples", t->samples);
        add_finite(tj, "median_ms", t->median_ms);
        add_finite(tj, "min_ms", t->min_ms);
        add_finite(tj, "max_ms", t->max_ms);
        add_finite(tj, "mean_ms", t->mean_ms);
        add_finite(tj, "stddev_ms", t->stddev_ms);
        add_finite(tj, "noise", t->noise);
        add_finite(tj, "noise_within", t->noise_within);
        add_finite(tj, "noise_between", t->noise_between);
        cJSON_AddNumberToObject(tj, "rounds", t->rounds);
        cJSON *rm = cJSON_AddArrayToObject(tj, "round_median_ms");
        for (int i = 0; i < t->rounds; i++)
            cJSON_AddItemToArray(rm, cJSON_CreateNumber(t->round_median_ms[i]));
        if (r->sample_ms && r->sample_rounds > 0) {
            /* every sample, one array per round, in the order taken: any
             * statistic can be recomputed from the file (compare does) */
            cJSON *sr = cJSON_AddArrayToObject(tj, "samples_ms");
            for (int k = 0, begin = 0; k < r->sample_rounds; begin = r->sample_round_end[k++]) {
                cJSON *one = cJSON_CreateArray();
                for (int i = begin; i < r->sample_round_end[k]; i++)
                    cJSON_AddItemToArray(one, cJSON_CreateNumber(r->sample_ms[i]));
                cJSON_AddItemToArray(sr, one);
            }
        }
        cJSON_AddNumberToObject(tj, "placements", t->placements);
        cJSON_AddBoolToObject(tj, "target_met", t->target_met);
        cJSON_AddNumberToObject(tj, "spent_s", t->spent_s);
        cJSON_AddStringToObject(tj, "cache", t->cold_cache ? "cold" : "warm");
        cJSON_AddStringToObject(tj, "method",
                                r->variant->backend != CONVT_BACKEND_CUDA ? "monotonic_clock"
                                : t->held                                 ? "cuda_events_held"
                                                                          : "cuda_events");
        /* > 1: each sample timed this many back-to-back launches and divided
         * (runs under measure.batch_below_us); only the first was cold. */
        cJSON_AddNumberToObject(tj, "launches_per_sample", t->batch);
        if (t->clock_samples) {
            cJSON_AddNumberToObject(tj, "sm_mhz_min", t->sm_mhz_min);
            cJSON_AddNumberToObject(tj, "sm_mhz_max", t->sm_mhz_max);
            cJSON_AddNumberToObject(tj, "throttled_samples", t->throttled_samples);
        }
        double s = t->median_ms * 1e-3;
        add_finite(o, "gflops", convt_flops(r->problem) / s / 1e9);
        add_finite(o, "gbps", convt_min_bytes(r->problem) / s / 1e9);
        double floor = convt_floor_ms(r->problem, r->variant->tier, ceil);
        add_finite(o, "floor_ms", floor);
        add_finite(o, "floor_fraction", floor / t->median_ms);
    }
    return o;
}

void convt_results_add(cJSON *doc, const convt_record *r, const convt_ceilings *ceil)
{
    cJSON_AddItemToArray(cJSON_GetObjectItemCaseSensitive(doc, "records"),
                         convt_record_to_json(r, ceil));
}

static int make_parent_dirs(const char *path, convt_err *e)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", path);
    for (char *s = dir + 1; *s; s++) {
        if (*s != '/')
            continue;
        *s = 0;
        if (mkdir(dir, 0777) && errno != EEXIST)
            return convt_fail(e, "%s: cannot create directory: %s", dir, strerror(errno));
        *s = '/';
    }
    return 0;
}

static void set_number(cJSON *o, const char *key, double v)
{
    if (cJSON_GetObjectItemCaseSensitive(o, key))
        cJSON_ReplaceItemInObjectCaseSensitive(o, key, cJSON_CreateNumber(v));
    else
        cJSON_AddNumberToObject(o, key, v);
}

void convt_results_add_drift(cJSON *doc, const convt_drift *d, double target_noise)
{
    cJSON *dj = cJSON_AddObjectToObject(doc, "drift");
    cJSON_AddStringToObject(dj, "method", "clock probe: compute-bound work of fixed size, "
                                          "timed at the start of every round of every shape");
    cJSON_AddNumberToObject(dj, "probes", d->probes);
    add_finite(dj, "median_ms", d->median_ms);
    cJSON_AddNumberToObject(dj, "relative", d->relative);
    cJSON_AddNumberToObject(dj, "relative_sd", d->relative_sd);
    if (d->probe_ms) {
        cJSON *pm = cJSON_AddArrayToObject(dj, "probe_ms");
        for (int i = 0; i < d->probes; i++)
            cJSON_AddItemToArray(pm, cJSON_CreateNumber(d->probe_ms[i]));
    }
    if (d->probe_mhz) {
        cJSON *pf = cJSON_AddArrayToObject(dj, "probe_sm_mhz");
        for (int i = 0; i < d->probes; i++)
            cJSON_AddItemToArray(pf, cJSON_CreateNumber(d->probe_mhz[i]));
    }
    cJSON *recs = cJSON_GetObjectItemCaseSensitive(doc, "records");
    for (cJSON *r = recs ? recs->child : NULL; r; r = r->next) {
        cJSON *t = cJSON_GetObjectItemCaseSensitive(r, "timing");
        double within = json_num(t, "noise_within"), between = json_num(t, "noise_between");
        if (!isfinite(within) || !isfinite(between)) /* not timed */
            continue;
        double noise = convt_noise_total(within, between, d->relative);
        set_number(t, "noise_drift", d->relative);
        set_number(t, "noise", noise);
        cJSON_ReplaceItemInObjectCaseSensitive(t, "target_met",
                                               cJSON_CreateBool(noise <= target_noise));
    }
}

int convt_results_write(const cJSON *doc, const char *path, convt_err *e)
{
    if (make_parent_dirs(path, e))
        return -1;
    char *text = cJSON_Print(doc);
    if (!text)
        return convt_fail(e, "%s: out of memory printing the results", path);
    int rc = convt_write_text_atomic(path, text, e);
    free(text);
    return rc;
}
