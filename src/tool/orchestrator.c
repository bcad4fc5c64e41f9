/* The orchestrator: the process the user starts. It plans, hands each shape
 * to a worker process (the same binary with --worker) and records what
 * comes back. A worker that dies (a signal, a CUDA sticky error after which
 * it exits, a crash in a variant) or outlives a step's time limit costs the
 * run in flight one `failed` record with the cause; a fresh worker goes on
 * with the rest of the shape.
 *
 * With --devices, each device has a lane: a thread that takes the next
 * shape from one queue and feeds it to that device's worker. Everything
 * the lanes share (the document, the counts, the clock probes, stderr) is
 * behind one mutex; the blocking reads of the workers are not.
 *
 * The results file is rewritten atomically while records arrive, at most
 * once a second and a tenth of the time (write_doc), after every worker
 * death, on SIGINT/SIGTERM and at the end: the cost per record stays
 * constant however many shapes there are, and a `kill -9` loses at most the
 * last interval, which --resume redoes. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "driver.h"
#include "fnv1a.h"
#include "json_access.h"
#include "measure.h"
#include "select.h"
#include "textfile.h"
#include "variant_set.h"
#include "worker_io.h"

// ----------------------------------------------------------------------------
// signals

static volatile sig_atomic_t stop_signal, sigint_count;

static void on_signal(int sig)
{
    if (sig == SIGINT && ++sigint_count > 1)
        _exit(130); /* a second ^C: at once; the file on disk is whole (atomic writes) */
    stop_signal = sig;
}

static void catch_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

// ----------------------------------------------------------------------------
// small helpers

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

void convt_config_hash(const convt_config *cfg, const char *shard, char *buf, size_t len)
{
    char *text = cJSON_PrintUnformatted(cfg->json);
    /* the overrides from the command line change what runs too */
    char extra[64];
    snprintf(extra, sizeof extra, "|seed=%llu|shard=%s", (unsigned long long)cfg->seed,
             shard ? shard : "all");
    uint64_t h = convt_fnv1a(convt_fnv1a(CONVT_FNV1A_START, text ? text : ""), extra);
    cJSON_free(text);
    snprintf(buf, len, "%016llx", (unsigned long long)h);
}

/* One line per record; device >= 0 names the device (several devices). */
static void progress(bool quiet, int si, int n_shapes, int device, const cJSON *r)
{
    if (quiet)
        return;
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(r, "timing");
    const char *status = json_str(r, "status");
    char dev[16] = "";
    if (device >= 0)
        snprintf(dev, sizeof dev, "dev%d ", device);
    fprintf(stderr, "[%*d/%d] %s%-24.24s %-14s %-18s %-7s", n_shapes >= 100 ? 4 : 3, si + 1,
            n_shapes, dev, json_str(cJSON_GetObjectItemCaseSensitive(r, "shape"), "name"),
            json_str(r, "variant"), json_str(r, "launch_key"), status);
    if (!strcmp(status, "pruned"))
        fprintf(stderr, " %10.4f ms  (%s)\n", json_num(t, "median_ms"), json_str(r, "reason"));
    else if (!strcmp(status, "ok"))
        fprintf(stderr, " %10.4f ms  noise %.2f%%%s  err %.1e%s\n", json_num(t, "median_ms"),
                100 * json_num(t, "noise"),
                cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(t, "target_met")) ? " (target not met)" : "",
                json_num(cJSON_GetObjectItemCaseSensitive(r, "validation"), "normwise_rel_err"),
                json_num(t, "throttled_samples") > 0 ? "  (GPU throttling during some samples)" : "");
    else
        fprintf(stderr, " %s\n", json_str(r, "reason"));
}

static void count(convt_run_summary *sum, const cJSON *r)
{
    const char *s = json_str(r, "status");
    if (!strcmp(s, "ok"))
        sum->ok++;
    else if (!strcmp(s, "skipped"))
        sum->skipped++;
    else if (!strcmp(s, "wrong"))
        sum->wrong++;
    else if (!strcmp(s, "pruned"))
        sum->pruned++;
    else
        sum->failed++;
}

/* A `failed` record for a planned run the worker did not finish. */
static cJSON *failure_record(const convt_record *planned, const char *reason)
{
    convt_record r = *planned;
    r.status = CONVT_STATUS_FAILED;
    snprintf(r.reason, sizeof r.reason, "%s", reason);
    r.validated = r.timed = false;
    r.sample_ms = NULL;
    convt_ceilings none = {0};
    return convt_record_to_json(&r, &none);
}

// ----------------------------------------------------------------------------
// the previous file: backed up, or resumed

/* Keeps an existing results file (and its selection) under a new name
 * rather than replacing it: X.json -> X.json.~N~, the first N free. */
static int back_up(const char *path, bool quiet, convt_err *e)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return 0;
    char dest[PATH_MAX + 32];
    for (int n = 1; n < 10000; n++) {
        snprintf(dest, sizeof dest, "%s.~%d~", path, n);
        if (stat(dest, &st) != 0) {
            if (rename(path, dest))
                return convt_fail(e, "%s exists and could not be kept as %s: %s", path, dest,
                                  strerror(errno));
            if (!quiet)
                fprintf(stderr, "convt-bench: %s existed; kept as %s (--resume continues a "
                                "file instead)\n",
                        path, dest);
            return 0;
        }
    }
    return convt_fail(e, "%s exists, and so do %s.~1~ to ~9999~", path, path);
}

static cJSON *read_previous(const convt_config *cfg, const char *hash, convt_err *e)
{
    char *text = convt_read_text_file(cfg->output, e);
    if (!text) {
        char why[sizeof e->msg];
        snprintf(why, sizeof why, "%s", e->msg);
        convt_fail(e, "--resume: %s", why);
        return NULL;
    }
    cJSON *doc = cJSON_Parse(text);
    free(text);
    if (!doc || !cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(doc, "records"))) {
        convt_fail(e, "--resume: %s is not a convt-bench results file", cfg->output);
        cJSON_Delete(doc);
        return NULL;
    }
    if (strcmp(json_str(doc, "config_hash"), hash)) {
        convt_fail(e, "--resume: %s was written for another config (its config_hash %s, this "
                      "config and seed %s); run without --resume to start afresh",
                   cfg->output, json_str(doc, "config_hash")[0] ? json_str(doc, "config_hash") : "(none)",
                   hash);
        cJSON_Delete(doc);
        return NULL;
    }
    return doc;
}

/* The device of the resumed file and the worker's must be the same. */
static int same_device(const cJSON *prev, const char *backend, const cJSON *device, convt_err *e)
{
    const char *pb = json_str(prev, "backend");
    const char *pn = json_str(cJSON_GetObjectItemCaseSensitive(prev, "device"), "name");
    const char *n = json_str(device, "name");
    if (strcmp(pb, backend) || strcmp(pn, n))
        return convt_fail(e, "--resume: the file was measured on %s (%s backend); this run has "
                             "%s (%s backend)",
                          pn, pb, n, backend);
    return 0;
}

// ----------------------------------------------------------------------------
// workers

typedef struct sweep sweep;

/* One device: its worker process and the thread that feeds it shapes. */
typedef struct lane {
    sweep *s;
    int device;                /* the index its workers open (--device) */
    convt_worker w;
    int deaths;                /* its workers that died or hung */
    cJSON *device_json;        /* its first worker's hello: the device */
    pthread_t thread;
    int rc;                    /* what its thread ended with; -1: e says why */
    convt_err e;
} lane;

struct sweep {
    const convt_config *cfg;
    const convt_run_options *opt;
    convt_run_summary *sum;
    char exe[PATH_MAX];
    char hash[32];
    lane *lanes;
    int n_lanes;
    /* Taken by a lane for everything below that changes during the sweep,
     * for sum, and for lines on stderr. */
    pthread_mutex_t lock;
    int next_shape;            /* the queue: shapes before it are taken */
    int shapes_done;
    int resumed_left;          /* shapes up to last_resumed_shape not yet done */
    atomic_int halt;           /* a lane cannot go on: the others stop too */
    int halted_by;             /* the lane that halted the sweep */
    convt_backend_kind kind;
    cJSON ***shape_records;    /* each finished shape's records, for the file's order */
    int *shape_n;
    double started;            /* now_s() when the first worker was started */
    char backend[16];          /* as the first worker chose it */
    cJSON *device, *ceilings;  /* from the first worker */
    cJSON *doc, *prev;
    double last_write;         /* now_s() when the last write ended */
    double write_every;        /* seconds between writes (write_doc) */
    bool dirty;                /* records in doc not yet on disk */
    bool may_write;            /* false while a resumed file holds more than doc */
    int last_resumed_shape;    /* the last shape with a record in the resumed file */
    double *probe_ms;          /* the clock probe's times, all workers */
    unsigned *probe_mhz;
    int probes, probe_cap;
};

static void log_probe(sweep *s, const cJSON *m)
{
    if (s->probes == s->probe_cap) {
        int cap = s->probe_cap ? 2 * s->probe_cap : 256;
        double *ms = realloc(s->probe_ms, (size_t)cap * sizeof *ms);
        if (ms)
            s->probe_ms = ms;
        unsigned *mhz = realloc(s->probe_mhz, (size_t)cap * sizeof *mhz);
        if (mhz)
            s->probe_mhz = mhz;
        if (!ms || !mhz)
            return;
        s->probe_cap = cap;
    }
    s->probe_ms[s->probes] = json_num(m, "probe_ms");
    double mhz = json_num(m, "probe_mhz");
    s->probe_mhz[s->probes++] = isfinite(mhz) ? (unsigned)mhz : 0;
}

/* Starts the lane's worker and reads its hello (backend, device, ceilings).
 * The first one measures the ceilings; later ones are given them, and must
 * run on the same backend and device model. */
static int start_worker(lane *l, convt_err *e)
{
    sweep *s = l->s;
    char seed[32], device_arg[16];
    snprintf(seed, sizeof seed, "%llu", (unsigned long long)s->cfg->seed);
    snprintf(device_arg, sizeof device_arg, "%d", l->device);
    const char *argv[20 + 2 * 16];
    int a = 0;
    argv[a++] = s->exe;
    argv[a++] = "--worker";
    argv[a++] = "--config";
    argv[a++] = s->opt->config_path;
    argv[a++] = "--backend";
    argv[a++] = s->backend[0] ? s->backend : s->opt->backend ? s->opt->backend : "auto";
    argv[a++] = "--seed";
    argv[a++] = seed;
    argv[a++] = "--device";
    argv[a++] = device_arg;
    for (int i = 0; i < convt_tool_plugin_count() && i < 16; i++) {
        argv[a++] = "--plugin";
        argv[a++] = convt_tool_plugin_path(i);
    }
    if (s->opt->dump_dir) {
        argv[a++] = "--dump";
        argv[a++] = s->opt->dump_dir;
    }
    if (s->opt->shard) { /* the worker numbers the same shapes */
        argv[a++] = "--shard";
        argv[a++] = s->opt->shard;
    }
    if (s->opt->quiet || s->backend[0])
        argv[a++] = "--quiet";
    argv[a] = NULL;
    if (convt_worker_start(&l->w, (char *const *)argv, e))
        return -1;
    cJSON *first = cJSON_CreateObject();
    if (s->ceilings)
        cJSON_AddItemToObject(first, "ceilings", cJSON_Duplicate(s->ceilings, true));
    else
        cJSON_AddBoolToObject(first, "measure_ceilings", true);
    int rc = convt_worker_send(&l->w, first, e);
    cJSON_Delete(first);
    cJSON *msg = NULL;
    /* starting a backend and measuring the ceilings: a few seconds */
    convt_receive got = rc ? CONVT_ENDED
                           : convt_worker_receive(&l->w, s->cfg->measure.hang_timeout_s + 120, &msg, e);
    const cJSON *hello = cJSON_GetObjectItemCaseSensitive(msg, "hello");
    if (got != CONVT_RECEIVED || !hello) {
        char how[160] = "";
        if (got == CONVT_TIMED_OUT)
            convt_worker_kill(&l->w), snprintf(how, sizeof how, "no answer");
        else
            convt_worker_reap(&l->w, how, sizeof how);
        cJSON_Delete(msg);
        if (got == CONVT_INTERRUPTED)
            return convt_fail(e, "interrupted while the worker started");
        return convt_fail(e, "the worker for device %d did not start (%s); its messages are "
                             "above", l->device, how);
    }
    if (strcmp(json_str(hello, "config_hash"), s->hash)) {
        cJSON_Delete(msg);
        convt_worker_kill(&l->w);
        return convt_fail(e, "%s changed on disk since the sweep began (the worker read a "
                             "config of hash %s, the sweep's is %s): its records would not "
                             "match the plan",
                          s->opt->config_path, json_str(hello, "config_hash"), s->hash);
    }
    const char *backend = json_str(hello, "backend");
    const cJSON *device = cJSON_GetObjectItemCaseSensitive(hello, "device");
    if (!l->device_json)
        l->device_json = cJSON_Duplicate(device, true);
    if (!s->backend[0]) {
        snprintf(s->backend, sizeof s->backend, "%s", backend);
        s->device = cJSON_Duplicate(device, true);
        s->ceilings = cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(hello, "ceilings"), true);
    } else if (strcmp(backend, s->backend)) {
        cJSON_Delete(msg);
        convt_worker_kill(&l->w);
        return convt_fail(e, "the worker for device %d started on the %s backend, the first on "
                             "%s", l->device, backend, s->backend);
    } else if (strcmp(json_str(device, "name"), json_str(s->device, "name"))) {
        /* one results file, one device model: its times select for that model */
        char name[160];
        snprintf(name, sizeof name, "%s", json_str(device, "name"));
        cJSON_Delete(msg);
        convt_worker_kill(&l->w);
        return convt_fail(e, "--devices: device %d is %s, device %d is %s; a results file "
                             "holds one device model (run each model on its own and compare)",
                          l->device, name, s->lanes[0].device, json_str(s->device, "name"));
    }
    cJSON_Delete(msg);
    return 0;
}

/* The records in the config's shape order, whatever order the lanes
 * finished the shapes in: two runs of one config list their records alike. */
static void order_records(sweep *s)
{
    cJSON *records = cJSON_GetObjectItemCaseSensitive(s->doc, "records");
    for (int si = 0; si < s->cfg->n_shapes; si++)
        for (int i = 0; i < s->shape_n[si]; i++)
            if (s->shape_records[si][i]) {
                cJSON *r = cJSON_DetachItemViaPointer(records, s->shape_records[si][i]);
                cJSON_AddItemToArray(records, r);
            }
}

/* With the lock held (or one lane). */
static int write_doc(sweep *s, convt_err *e)
{
    const double t0 = now_s();
    if (s->n_lanes > 1)
        order_records(s);
    const int rc = convt_results_write(s->doc, s->cfg->output, e);
    s->last_write = now_s();
    /* At least a second apart, and at least ten times as long as a write
     * takes: tens of thousands of records print for a second or more, and
     * written every second from the write's start, a sweep did little else
     * (and held the lock the lanes' records wait on). At most a minute, so
     * that one stalled write does not leave the file behind for long. */
    s->write_every = fmin(60.0, fmax(1.0, 10 * (s->last_write - t0)));
    return rc;
}

/* Whether the records should reach the file now. */
static bool write_is_due(const sweep *s)
{
    return now_s() - s->last_write >= fmax(1.0, s->write_every);
}

/* Records that finished since the last write reach the file within about a
 * second (longer for a file that takes long to print), also while a long
 * shape runs: called from the receive loop, with
 * the lock held. */
static void write_due(sweep *s)
{
    if (s->doc && s->dirty && s->may_write && write_is_due(s)) {
        convt_err we;
        if (write_doc(s, &we) == 0)
            s->dirty = false;
        else
            fprintf(stderr, "convt-bench: warning: %s\n", we.msg);
    }
}

/* A number a worker sent, or fallback when it is missing or not finite. */
static double finite_or(const cJSON *m, const char *key, double fallback)
{
    double v = json_num(m, key);
    return isfinite(v) ? v : fallback;
}

static int finals(cJSON *const *final, int n)
{
    int k = 0;
    for (int i = 0; i < n; i++)
        k += final[i] != NULL;
    return k;
}

/* Runs the entries of shape si that final[] lacks, in as many workers as
 * it takes. Returns -1 (e set) only when no worker can run at all, or on a
 * stop signal (e says which). */
/* A record the lane has: counted, shown, marked with its device when there
 * are several. */
static void take_record(lane *l, int si, cJSON **slot, cJSON *r)
{
    sweep *s = l->s;
    *slot = r;
    if (s->n_lanes > 1)
        cJSON_AddNumberToObject(r, "device_index", l->device);
    pthread_mutex_lock(&s->lock);
    count(s->sum, r);
    progress(s->opt->quiet, si, s->cfg->n_shapes, s->n_lanes > 1 ? l->device : -1, r);
    pthread_mutex_unlock(&s->lock);
}

static int run_shape(lane *l, int si, const convt_record *plan, cJSON **final, int n,
                     convt_err *e)
{
    sweep *s = l->s;
    const convt_config *cfg = s->cfg;
    bool retried = false; /* a worker that died before a word of this shape: once */
    for (;;) {
        int done_before = finals(final, n);
        if (done_before == n)
            return 0;
        if (!l->w.pid && start_worker(l, e))
            return -1;
        cJSON *req = cJSON_CreateObject();
        cJSON_AddNumberToObject(req, "run", si);
        cJSON *skip = cJSON_AddArrayToObject(req, "skip");
        for (int i = 0; i < n; i++)
            if (final[i])
                cJSON_AddItemToArray(skip, cJSON_CreateNumber(i));
        int send_failed = convt_worker_send(&l->w, req, e);
        cJSON_Delete(req);
        /* armed: inside a step the worker announced (in_flight its run, or
         * -1 for the shape's own steps: the reference); not armed: between
         * steps, where no run is to blame */
        bool armed = false, heard = false;
        int in_flight = -1;
        char step[512] = "the start of the shape";
        double limit = cfg->measure.hang_timeout_s, deadline = now_s() + limit;
        char cause[1200] = "";
        bool lost = false;
        while (!send_failed) {
            cJSON *m = NULL;
            /* wake at least once a second: a write may be due (write_due) */
            double left = deadline - now_s();
            convt_receive got = left <= 0 ? CONVT_TIMED_OUT
                                          : convt_worker_receive(&l->w, left < 1 ? left : 1, &m, e);
            if (stop_signal) {
                cJSON_Delete(m);
                convt_worker_kill(&l->w);
                return convt_fail(e, "stopped by %s", stop_signal == SIGINT ? "SIGINT" : "SIGTERM");
            }
            if (atomic_load(&s->halt)) {
                cJSON_Delete(m);
                convt_worker_kill(&l->w);
                return convt_fail(e, "stopped: another device could not go on");
            }
            if (got == CONVT_INTERRUPTED)
                continue;
            if (got == CONVT_TIMED_OUT && now_s() < deadline) {
                pthread_mutex_lock(&s->lock);
                write_due(s);
                pthread_mutex_unlock(&s->lock);
                continue;
            }
            if (got == CONVT_TIMED_OUT) {
                convt_worker_kill(&l->w);
                snprintf(cause, sizeof cause, "hung: no progress for %g s %s %s (the worker was "
                                              "killed)",
                         limit, armed ? "in" : "between steps, after", step);
                break;
            }
            if (got == CONVT_ENDED) {
                char how[200];
                convt_worker_reap(&l->w, how, sizeof how);
                if (lost) /* it reported its context lost and left, as it should */
                    break;
                if (!heard && !retried) {
                    /* it died before this shape began (between shapes: what
                     * went wrong belongs to the shape before, already
                     * recorded): a new worker tries once */
                    retried = true;
                    if (!s->opt->quiet) {
                        pthread_mutex_lock(&s->lock);
                        fprintf(stderr, "convt-bench: the worker of device %d died (%s) before "
                                        "%s began; a new worker tries it\n",
                                l->device, how, cfg->shapes[si].name);
                        pthread_mutex_unlock(&s->lock);
                    }
                    break;
                }
                snprintf(cause, sizeof cause, "the worker died (%s) %s %s", how,
                         armed ? "in" : "between steps, after", step);
                break;
            }
            heard = true;
            const cJSON *v;
            if ((v = cJSON_GetObjectItemCaseSensitive(m, "step")) && cJSON_IsString(v)) {
                armed = true;
                in_flight = (int)finite_or(m, "entry", -1);
                if (in_flight >= n)
                    in_flight = -1;
                snprintf(step, sizeof step, "%s", v->valuestring);
                limit = finite_or(m, "timeout_s", cfg->measure.hang_timeout_s);
                deadline = now_s() + limit;
            } else if (cJSON_GetObjectItemCaseSensitive(m, "idle")) {
                armed = false;
                in_flight = -1;
                limit = cfg->measure.hang_timeout_s;
                deadline = now_s() + limit;
            } else if (cJSON_GetObjectItemCaseSensitive(m, "probe_ms")) {
                pthread_mutex_lock(&s->lock);
                log_probe(s, m);
                pthread_mutex_unlock(&s->lock);
            } else if ((v = cJSON_GetObjectItemCaseSensitive(m, "record"))) {
                int i = (int)finite_or(m, "entry", -1);
                if (i >= 0 && i < n && !final[i])
                    take_record(l, si, &final[i],
                                cJSON_DetachItemFromObjectCaseSensitive(m, "record"));
            } else if (cJSON_GetObjectItemCaseSensitive(m, "shape_done")) {
                lost = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(m, "lost"));
                if (!lost) {
                    cJSON_Delete(m);
                    /* every run the worker was given ends as a record; one
                     * without is a harness bug, said, not looped on */
                    for (int i = 0; i < n; i++)
                        if (!final[i])
                            take_record(l, si, &final[i],
                                        failure_record(&plan[i], "the worker finished the shape "
                                                                 "without a record of this run"));
                    break;
                }
                /* the worker exits now; the rest of the shape needs a new one */
            }
            cJSON_Delete(m);
        }
        if (send_failed) {
            char how[200];
            convt_worker_reap(&l->w, how, sizeof how);
            if (!retried) {
                retried = true;
                continue;
            }
            snprintf(cause, sizeof cause, "the worker died (%s) before the shape began", how);
        }
        if (lost && !cause[0] && finals(final, n) == done_before)
            /* the context was lost outside any run (a clock probe, moving
             * buffers): a new worker would meet the same; the rest pays */
            snprintf(cause, sizeof cause, "the worker's CUDA context was lost outside any run "
                                          "(after %s)", step);
        if (!cause[0])
            continue; /* finished, or lost its context in a run: go round */
        l->deaths++;
        pthread_mutex_lock(&s->lock);
        s->sum->worker_deaths++;
        pthread_mutex_unlock(&s->lock);
        /* the run in flight pays; with none (the shape's reference, or
         * between steps), the whole rest of the shape */
        if (!send_failed && armed && in_flight >= 0 && !final[in_flight] && !lost) {
            take_record(l, si, &final[in_flight], failure_record(&plan[in_flight], cause));
        } else {
            for (int i = 0; i < n; i++)
                if (!final[i])
                    take_record(l, si, &final[i], failure_record(&plan[i], cause));
        }
        if (!s->opt->quiet) {
            pthread_mutex_lock(&s->lock);
            char dev[32] = "";
            if (s->n_lanes > 1)
                snprintf(dev, sizeof dev, " (device %d)", l->device);
            fprintf(stderr, "convt-bench: %s%s; a new worker goes on\n", cause, dev);
            pthread_mutex_unlock(&s->lock);
        }
    }
}

/* Records of shape si kept from the resumed file (the lock held). */
static void take_previous(sweep *s, const convt_record *plan, cJSON **final, int n)
{
    const cJSON *recs = cJSON_GetObjectItemCaseSensitive(s->prev, "records");
    for (int i = 0; i < n; i++) {
        cJSON *planned = failure_record(&plan[i], "");
        for (const cJSON *r = recs ? recs->child : NULL; r; r = r->next)
            if (json_same_run(r, planned)) {
                final[i] = cJSON_Duplicate(r, true);
                count(s->sum, final[i]);
                s->sum->resumed++;
                break;
            }
        cJSON_Delete(planned);
    }
}

/* The index of the last shape of the config that the resumed file has a
 * record of (-1: none). */
static int last_resumed_shape(const sweep *s)
{
    const cJSON *recs = cJSON_GetObjectItemCaseSensitive(s->prev, "records");
    int last = -1;
    for (int si = 0; si < s->cfg->n_shapes; si++) {
        char key[256];
        convt_problem_key(&s->cfg->shapes[si], key, sizeof key);
        for (const cJSON *r = recs ? recs->child : NULL; r; r = r->next)
            if (!strcmp(json_shape_key(r), key)) {
                last = si;
                break;
            }
    }
    return last;
}

static void previous_probes(sweep *s)
{
    const cJSON *d = cJSON_GetObjectItemCaseSensitive(s->prev, "drift");
    const cJSON *ms = cJSON_GetObjectItemCaseSensitive(d, "probe_ms");
    const cJSON *mhz = cJSON_GetObjectItemCaseSensitive(d, "probe_sm_mhz");
    for (const cJSON *x = ms ? ms->child : NULL, *y = mhz ? mhz->child : NULL; x;
         x = x->next, y = y ? y->next : NULL) {
        cJSON *m = cJSON_CreateObject();
        cJSON_AddNumberToObject(m, "probe_ms", x->valuedouble);
        cJSON_AddNumberToObject(m, "probe_mhz", y ? y->valuedouble : 0);
        log_probe(s, m);
        cJSON_Delete(m);
    }
}

static void finish_doc(sweep *s, bool complete, const char *why)
{
    cJSON_ReplaceItemInObjectCaseSensitive(s->doc, "complete", cJSON_CreateBool(complete));
    /* wall time from the first worker's start (ceilings included): what
     * --devices saves, and what a sweep costs */
    cJSON_AddNumberToObject(s->doc, "elapsed_s", round((now_s() - s->started) * 10) / 10);
    if (why)
        cJSON_AddStringToObject(s->doc, "incomplete_because", why);
}

/* The sweep stops before its end (a signal, or no worker can run): the
 * file gets every finished record, marked incomplete with the reason, and
 * a selection of what there is; the last line says how to go on. */
static int stop_early(sweep *s, const convt_err *e)
{
    const convt_config *cfg = s->cfg;
    int si = s->shapes_done;
    char why[1200];
    if (stop_signal) {
        s->sum->interrupted = stop_signal;
        snprintf(why, sizeof why, "%s after %d of %d shapes",
                 stop_signal == SIGINT ? "SIGINT" : "SIGTERM", si, cfg->n_shapes);
    } else {
        snprintf(why, sizeof why, "stopped after %d of %d shapes: %s", si, cfg->n_shapes, e->msg);
    }
    if (!s->doc)
        return 0; /* no worker ever answered: nothing measured, nothing to keep */
    /* the command that resumes it: the same devices and plugins */
    char extra[1024] = "";
    const convt_device_list *dl = &s->opt->devices;
    if (dl->all || dl->n) {
        size_t at = (size_t)snprintf(extra, sizeof extra, " --devices %s", dl->all ? "all" : "");
        for (int i = 0; !dl->all && i < dl->n && at < sizeof extra; i++)
            at += (size_t)snprintf(extra + at, sizeof extra - at, "%s%d", i ? "," : "", dl->index[i]);
    }
    for (int i = 0; i < convt_tool_plugin_count(); i++) {
        size_t at = strlen(extra);
        snprintf(extra + at, sizeof extra - at, " --plugin %s", convt_tool_plugin_path(i));
    }
    if (!s->may_write) { /* the resumed file still holds more than this run */
        fprintf(stderr, "convt-bench: %s; %s is as it was; resume it again with: convt-bench "
                        "--config %s --out %s --resume%s\n",
                why, cfg->output, s->opt->config_path, cfg->output, extra);
        return 0;
    }
    finish_doc(s, false, why);
    convt_err we;
    if (write_doc(s, &we)) {
        fprintf(stderr, "convt-bench: %s\n", we.msg);
        return -1;
    }
    cJSON *sel = convt_select(s->doc, s->opt->previous_selection);
    if (convt_results_write(sel, cfg->selection, &we))
        fprintf(stderr, "convt-bench: %s\n", we.msg);
    cJSON_Delete(sel);
    fprintf(stderr, "convt-bench: %s; %s holds every finished record (marked incomplete); "
                    "resume with: convt-bench --config %s --out %s --resume%s\n",
            why, cfg->output, s->opt->config_path, cfg->output, extra);
    return 0;
}

/* Stops every lane; the first lane to do so says why (the lock held). */
static void halt_sweep(sweep *s, lane *l)
{
    if (!stop_signal && atomic_exchange(&s->halt, 1) == 0)
        s->halted_by = (int)(l - s->lanes);
}

/* A lane: takes the next shape from the queue and runs it on its device,
 * until no shape is left, the sweep stops, or its device cannot go on. */
static void *lane_main(void *arg)
{
    lane *l = arg;
    sweep *s = l->s;
    const convt_config *cfg = s->cfg;
    for (;;) {
        pthread_mutex_lock(&s->lock);
        int si = -1;
        if (s->next_shape < cfg->n_shapes && !atomic_load(&s->halt) && !stop_signal)
            si = s->next_shape++;
        pthread_mutex_unlock(&s->lock);
        if (si < 0)
            break;
        convt_record *plan = NULL;
        int n = 0;
        cJSON **final = NULL;
        if (convt_shape_plan(cfg, s->kind, si, &plan, &n) ||
            !(final = calloc((size_t)(n ? n : 1), sizeof *final))) {
            free(plan);
            l->rc = convt_fail(&l->e, "out of memory planning the sweep");
            pthread_mutex_lock(&s->lock);
            halt_sweep(s, l);
            pthread_mutex_unlock(&s->lock);
            break;
        }
        if (s->prev) {
            pthread_mutex_lock(&s->lock);
            take_previous(s, plan, final, n);
            pthread_mutex_unlock(&s->lock);
        }
        int deaths = l->deaths;
        int shape_rc = run_shape(l, si, plan, final, n, &l->e);
        free(plan);
        pthread_mutex_lock(&s->lock);
        /* whatever finished is recorded, even when the sweep stops here */
        cJSON *records = cJSON_GetObjectItemCaseSensitive(s->doc, "records");
        for (int i = 0; i < n; i++)
            if (final[i])
                cJSON_AddItemToArray(records, final[i]);
        s->shape_records[si] = final;
        s->shape_n[si] = n;
        s->dirty = true;
        if (shape_rc) {
            l->rc = -1;
            halt_sweep(s, l);
            pthread_mutex_unlock(&s->lock);
            break;
        }
        s->shapes_done++;
        /* a resumed file is replaced only once doc holds all it had */
        if (si <= s->last_resumed_shape && --s->resumed_left == 0)
            s->may_write = true;
        if (s->may_write && (l->deaths > deaths || write_is_due(s))) {
            if (write_doc(s, &l->e)) {
                l->rc = -1;
                halt_sweep(s, l);
                pthread_mutex_unlock(&s->lock);
                break;
            }
            s->dirty = false;
        }
        pthread_mutex_unlock(&s->lock);
    }
    convt_worker_kill(&l->w); /* its input ends: it would exit; no need to wait */
    return NULL;
}

/* The devices the sweep runs on: --devices, with `all` as many as the first
 * worker's backend sees; lanes[0] (already started) is the first. */
static int add_lanes(sweep *s, convt_err *e)
{
    const convt_device_list *dl = &s->opt->devices;
    double seen = json_num(s->device, "count");
    int count = isfinite(seen) && seen >= 1 ? (int)seen : 1;
    int n = dl->all ? count : dl->n ? dl->n : 1;
    for (int k = 1; k < n; k++) {
        int device = dl->all ? k : dl->index[k];
        if (device >= count)
            return convt_fail(e, "--devices: the %s backend sees %d device%s here (0 to %d); "
                                 "there is no device %d",
                              s->backend, count, count == 1 ? "" : "s", count - 1, device);
        lane *l = &s->lanes[s->n_lanes++];
        l->s = s;
        l->device = device;
        l->w.to_fd = l->w.from_fd = -1;
        if (start_worker(l, e))
            return -1;
    }
    return 0;
}

int convt_run(const convt_config *cfg, const convt_run_options *opt, convt_run_summary *sum,
              convt_err *e)
{
    memset(sum, 0, sizeof *sum);
    sweep s = {.cfg = cfg, .opt = opt, .sum = sum};
    lane lanes[CONVT_MAX_DEVICES];
    memset(lanes, 0, sizeof lanes);
    s.lanes = lanes;
    s.n_lanes = 1;
    lanes[0].s = &s;
    lanes[0].device = opt->devices.n ? opt->devices.index[0] : 0;
    lanes[0].w.to_fd = lanes[0].w.from_fd = -1;
    pthread_mutex_init(&s.lock, NULL);
    atomic_init(&s.halt, 0);
    if (opt->worker_exe) {
        snprintf(s.exe, sizeof s.exe, "%s", opt->worker_exe);
    } else {
        ssize_t len = readlink("/proc/self/exe", s.exe, sizeof s.exe - 1);
        if (len <= 0)
            return convt_fail(e, "cannot find this program's path to start a worker: %s",
                              strerror(errno));
        s.exe[len] = 0;
    }
    if (!opt->config_path)
        return convt_fail(e, "a worker needs the config's path");
    convt_config_hash(cfg, opt->shard, s.hash, sizeof s.hash);
    stop_signal = sigint_count = 0;
    catch_signals();
    if (opt->resume ? !(s.prev = read_previous(cfg, s.hash, e)) : back_up(cfg->output, opt->quiet, e) != 0)
        return -1;
    int rc = -1;
    if (!opt->quiet)
        fprintf(stderr, "convt-bench: measuring the device's ceilings (copy bandwidth, GEMM rates)\n");
    s.started = now_s();
    if (start_worker(&lanes[0], e) || add_lanes(&s, e)) {
        if (stop_signal) {
            sum->interrupted = stop_signal;
            rc = 0;
        }
        goto out;
    }
    if (s.prev && same_device(s.prev, s.backend, s.device, e))
        goto out;
    s.kind = strcmp(s.backend, "cpu") ? CONVT_BACKEND_CUDA : CONVT_BACKEND_CPU;
    s.doc = convt_results_create(cfg, s.backend, s.device, s.ceilings);
    cJSON_AddStringToObject(s.doc, "config_hash", s.hash);
    cJSON_AddBoolToObject(s.doc, "complete", false);
    if (s.n_lanes > 1) {
        cJSON *devices = cJSON_AddArrayToObject(s.doc, "devices");
        for (int k = 0; k < s.n_lanes; k++)
            cJSON_AddItemToArray(devices, cJSON_Duplicate(lanes[k].device_json, true));
        if (!opt->quiet) {
            fprintf(stderr, "convt-bench: %d devices (", s.n_lanes);
            for (int k = 0; k < s.n_lanes; k++)
                fprintf(stderr, "%s%d", k ? ", " : "", lanes[k].device);
            fprintf(stderr, "), each a %s with its own worker; shapes go to the next free one\n",
                    json_str(s.device, "name"));
        }
    }
    s.last_resumed_shape = -1;
    if (s.prev) {
        cJSON *from = cJSON_AddObjectToObject(s.doc, "resumed_from");
        cJSON_AddStringToObject(from, "time", json_str(s.prev, "time"));
        cJSON_AddStringToObject(from, "git_revision", json_str(s.prev, "git_revision"));
        previous_probes(&s);
        s.last_resumed_shape = last_resumed_shape(&s);
    }
    s.resumed_left = s.last_resumed_shape + 1;
    s.may_write = s.resumed_left == 0;
    s.shape_records = calloc((size_t)(cfg->n_shapes ? cfg->n_shapes : 1), sizeof *s.shape_records);
    s.shape_n = calloc((size_t)(cfg->n_shapes ? cfg->n_shapes : 1), sizeof *s.shape_n);
    if (!s.shape_records || !s.shape_n) {
        convt_fail(e, "out of memory");
        goto out;
    }
    int threads = 1; /* lanes[0] runs in this thread, the others in their own */
    for (; threads < s.n_lanes; threads++)
        if (pthread_create(&lanes[threads].thread, NULL, lane_main, &lanes[threads])) {
            lanes[threads].rc = convt_fail(&lanes[threads].e, "cannot start a thread for "
                                                              "device %d", lanes[threads].device);
            pthread_mutex_lock(&s.lock);
            halt_sweep(&s, &lanes[threads]);
            pthread_mutex_unlock(&s.lock);
            break;
        }
    lane_main(&lanes[0]);
    for (int k = 1; k < threads; k++)
        pthread_join(lanes[k].thread, NULL);
    if (s.shapes_done < cfg->n_shapes) {
        /* a signal, or a lane that could not go on: it says why */
        const convt_err *why = atomic_load(&s.halt) ? &lanes[s.halted_by].e : &lanes[0].e;
        if (e != why)
            *e = *why;
        rc = stop_early(&s, e) == 0 && stop_signal ? 0 : -1;
        if (rc)
            sum->interrupted = 0;
        goto out;
    }
    {
        /* The drift is known once the run is over: every record's noise
         * takes it in (with several devices, their differences too). */
        convt_drift d;
        convt_drift_from_probes(s.probe_ms, s.probes, &d);
        d.probe_mhz = s.probe_mhz;
        convt_results_add_drift(s.doc, &d, cfg->measure.target_noise);
        finish_doc(&s, true, NULL);
        if (write_doc(&s, e))
            goto out;
        if (!opt->quiet && d.probes >= 3)
            fprintf(stderr, "convt-bench: the device%s drifted %.2f%% over the run (clock probe, "
                            "%d times, median %.3f ms, stddev %.2f%%); every record's noise "
                            "includes it\n",
                    s.n_lanes > 1 ? "s" : "", 100 * d.relative, d.probes, d.median_ms,
                    100 * d.relative_sd);
        if (sum->worker_deaths && !opt->quiet)
            fprintf(stderr, "convt-bench: %d worker%s died or hung; each cost the run in flight "
                            "(its record says why)\n",
                    sum->worker_deaths, sum->worker_deaths == 1 ? "" : "s");
        cJSON *sel = convt_select(s.doc, opt->previous_selection);
        if (convt_results_write(sel, cfg->selection, e)) {
            cJSON_Delete(sel);
            goto out;
        }
        printf("\n");
        convt_selection_print(sel, false, stdout);
        cJSON_Delete(sel);
        printf("\nresults: %s\nselection: %s\n", cfg->output, cfg->selection);
    }
    rc = 0;
out:
    for (int k = 0; k < s.n_lanes; k++) {
        convt_worker_kill(&lanes[k].w);
        cJSON_Delete(lanes[k].device_json);
    }
    if (s.shape_records)
        for (int si = 0; si < cfg->n_shapes; si++)
            free(s.shape_records[si]);
    free(s.shape_records);
    free(s.shape_n);
    cJSON_Delete(s.doc);
    cJSON_Delete(s.prev);
    cJSON_Delete(s.device);
    cJSON_Delete(s.ceilings);
    free(s.probe_ms);
    free(s.probe_mhz);
    pthread_mutex_destroy(&s.lock);
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    return rc;
}
