/* The CPU backend: tensors in host memory, variants run synchronously, time
 * from the monotonic clock. It is what runs on a machine without a GPU, so
 * that the whole pipeline (plan, validate, time, record, select) works
 * everywhere, CI included. */
#include <math.h>
#include <sched.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "backend.h"
#include "hostdevice.h"
#include "reference.h"

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

/* The bytes of last-level cache this process can fill: the sum over the
 * distinct last-level caches shared by the CPUs it may run on (sysfs). The
 * machine-wide figure (sysconf) counts caches the process never touches: on
 * a 2-vCPU EPYC VM it said 384 MiB where the two CPUs share one 32 MiB L3,
 * and flushing twice that before every sample made the default sweep take
 * 26 to 29 s instead of about 10. */
static size_t reachable_cache_bytes(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set))
        return 0;
    size_t total = 0;
    char seen[64][64];
    int n_seen = 0;
    for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
        if (!CPU_ISSET(cpu, &set))
            continue;
        /* the highest-numbered cache index of a CPU is its last level */
        char path[128], size[32] = "", shared[64] = "";
        for (int idx = 9; idx >= 0 && !size[0]; idx--) {
            snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/cache/index%d/size", cpu, idx);
            FILE *f = fopen(path, "r");
            if (!f)
                continue;
            if (!fgets(size, sizeof size, f))
                size[0] = 0;
            fclose(f);
            snprintf(path, sizeof path,
                     "/sys/devices/system/cpu/cpu%d/cache/index%d/shared_cpu_list", cpu, idx);
            if ((f = fopen(path, "r"))) {
                if (!fgets(shared, sizeof shared, f))
                    shared[0] = 0;
                fclose(f);
            }
        }
        if (!size[0])
            return 0;
        bool dup = false;
        for (int i = 0; i < n_seen && !dup; i++)
            dup = !strcmp(seen[i], shared);
        if (dup)
            continue;
        if (n_seen < 64)
            snprintf(seen[n_seen++], sizeof seen[0], "%s", shared);
        char *unit;
        double v = strtod(size, &unit);
        total += (size_t)(v * (*unit == 'M' ? 1 << 20 : *unit == 'K' ? 1 << 10 : 1));
    }
    return total;
}

static size_t last_level_cache_bytes(void)
{
    size_t reachable = reachable_cache_bytes();
    if (reachable > 0)
        return reachable;
    long l3 = -1;
#ifdef _SC_LEVEL3_CACHE_SIZE
    l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
#endif
    return l3 > 0 ? (size_t)l3 : (size_t)32 << 20;
}

static void cpu_model_name(char *buf, size_t len)
{
    snprintf(buf, len, "CPU");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        char *colon = strchr(line, ':');
        if (!strncmp(line, "model name", 10) && colon) {
            colon += 2;
            colon[strcspn(colon, "\n")] = 0;
            snprintf(buf, len, "%s", colon);
            break;
        }
    }
    fclose(f);
}

/* The CPU backend is one device. CONVT_CPU_DEVICES=N makes it present N
 * devices that share the host's cores: the tests of multi-device sweeps
 * (--devices) run on machines without GPUs with it. */
static int cpu_device_count(void)
{
    const char *v = getenv("CONVT_CPU_DEVICES");
    char *end;
    long n = v ? strtol(v, &end, 10) : 1;
    return v && (*end || n < 1 || n > 64) ? 1 : (int)n;
}

int convt_cpu_device_info(int index, convt_device_info *info, convt_err *e)
{
    int count = cpu_device_count();
    if (index < 0 || index >= count)
        return convt_fail(e, "the CPU backend has no device %d (it is %d device%s: 0%s)", index,
                          count, count == 1 ? "" : "s", count == 1 ? "" : " and up");
    memset(info, 0, sizeof *info);
    info->index = index;
    info->count = count;
    info->backend = CONVT_BACKEND_CPU;
    cpu_model_name(info->name, sizeof info->name);
    info->l2_bytes = last_level_cache_bytes();
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    info->global_mem = pages > 0 && page > 0 ? (size_t)pages * (size_t)page : 0;
#ifdef _OPENMP
    info->cpu_threads = omp_get_max_threads();
#else
    info->cpu_threads = 1;
#endif
    return 0;
}

static int cpu_init(int index, convt_device_info *info, convt_err *e)
{
    return convt_cpu_device_info(index, info, e);
}

static void cpu_shutdown(void) {}
static bool cpu_lost(void) { return false; }

static void *cpu_alloc(size_t bytes, convt_err *e)
{
    /* 64-byte alignment, like cudaMalloc's 256, keeps vector loads aligned. */
    void *p = NULL;
    if (posix_memalign(&p, 64, bytes ? (bytes + 63) / 64 * 64 : 64)) {
        convt_fail(e, "out of host memory allocating %.3f GiB", bytes / 1073741824.0);
        return NULL;
    }
    return p;
}

static void cpu_release(void *p) { free(p); }

static size_t cpu_free_bytes(void)
{
    long pages = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    return pages > 0 && page > 0 ? (size_t)pages * (size_t)page : (size_t)1 << 32;
}

static int cpu_copy(void *dst, const void *src, size_t bytes, convt_err *e)
{
    (void)e;
    memcpy(dst, src, bytes);
    return 0;
}

static int cpu_fill_uniform(float *buf, int64_t count, uint64_t seed, float lo, float hi,
                            convt_err *e)
{
    (void)e;
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < count; i++)
        buf[i] = convt_uniform(seed, (uint64_t)i, lo, hi);
    return 0;
}

static int cpu_fill_nan(float *buf, int64_t count, convt_err *e)
{
    (void)e;
    for (int64_t i = 0; i < count; i++)
        buf[i] = NAN;
    return 0;
}

static int cpu_reference(const convt_problem *p, const convt_tensors *t, double *ref,
                         double *mag, convt_err *e)
{
    (void)e;
    convt_reference(p, t->x, t->w, t->b, ref, mag);
    return 0;
}

static int cpu_compare(const float *y, const double *ref, const double *mag, int64_t count,
                       const convt_tolerance *tol, convt_error_stats *out, convt_err *e)
{
    (void)e;
    convt_compare_host(y, ref, mag, count, tol, out);
    return 0;
}

static double timer_started;

static int cpu_timer_start(bool hold, convt_err *e)
{
    (void)hold;
    (void)e;
    timer_started = now_ms();
    return 0;
}

static int cpu_timer_stop(double *ms, convt_err *e)
{
    (void)e;
    *ms = now_ms() - timer_started;
    return 0;
}

static int cpu_synchronize(convt_err *e) { (void)e; return 0; }

/* One dependent multiply-add chain on this thread: about a millisecond at
 * a few GHz, all in registers, so its time is cycles / clock. */
static int cpu_clock_probe(convt_err *e)
{
    (void)e;
    volatile double sink;
    double a = 1.0;
    for (int i = 0; i < 1000000; i++)
        a = a * 0.999999 + 1e-7;
    sink = a;
    (void)sink;
    return 0;
}

static unsigned char *flush_buf;
static size_t flush_len;

static int cpu_flush_cache(convt_err *e)
{
    if (!flush_buf) {
        flush_len = 2 * last_level_cache_bytes();
        flush_buf = cpu_alloc(flush_len, e);
        if (!flush_buf)
            return -1;
    }
    static unsigned char stamp;
    memset(flush_buf, ++stamp, flush_len);
    return 0;
}

/* A register-resident FMA stream: 8 independent chains of 16 lanes per
 * thread, which gcc vectorises at -O2 and above. It is what this CPU does for
 * simple float32 arithmetic, the honest ceiling for plain-C variants. */
static double fma_gflops(void)
{
    const int reps = 1 << 18;
    double start = now_ms(), sink = 0;
    int threads = 1;
#pragma omp parallel reduction(+ : sink)
    {
#ifdef _OPENMP
#pragma omp single
        threads = omp_get_num_threads();
#endif
        float acc[8][16];
        for (int c = 0; c < 8; c++)
            for (int l = 0; l < 16; l++)
                acc[c][l] = (float)(c + l) * 1e-3f;
        for (int r = 0; r < reps; r++)
            for (int c = 0; c < 8; c++)
                for (int l = 0; l < 16; l++)
                    acc[c][l] = acc[c][l] * 0.999999f + 1e-7f;
        for (int c = 0; c < 8; c++)
            for (int l = 0; l < 16; l++)
                sink += acc[c][l];
    }
    double ms = now_ms() - start;
    volatile double keep = sink;
    (void)keep;
    return 2.0 * reps * 8 * 16 * threads / (ms * 1e6);
}

static int cpu_measure_ceilings(convt_ceilings *c, convt_err *e)
{
    const size_t bytes = (size_t)256 << 20;
    char *a = cpu_alloc(bytes, e), *b = cpu_alloc(bytes, e);
    if (!a || !b) {
        free(a);
        free(b);
        return -1;
    }
    memset(a, 1, bytes);
    memset(b, 2, bytes);
    double best = INFINITY;
    for (int rep = 0; rep < 3; rep++) {
        double t0 = now_ms();
        const size_t chunk = (size_t)4 << 20;
#pragma omp parallel for schedule(static)
        for (size_t off = 0; off < bytes; off += chunk)
            memcpy(b + off, a + off, chunk);
        double ms = now_ms() - t0;
        if (ms < best)
            best = ms;
    }
    free(a);
    free(b);
    c->copy_gbps = 2.0 * bytes / (best * 1e6);
    double fl = fma_gflops();
    c->gemm_gflops[CONVT_TIER_FP32] = fl;
    c->gemm_gflops[CONVT_TIER_TF32] = fl;
    snprintf(c->method, sizeof c->method,
             "cpu: parallel memcpy of 256 MiB (best of 3, read+write bytes); float32 FMA "
             "stream in registers on all threads (no BLAS: this is the plain-C ceiling)");
    return 0;
}

static void *cpu_stream(void) { return NULL; }

const convt_backend convt_backend_cpu = {
    .name = "cpu",
    .kind = CONVT_BACKEND_CPU,
    .init = cpu_init,
    .shutdown = cpu_shutdown,
    .lost = cpu_lost,
    .alloc = cpu_alloc,
    .release = cpu_release,
    .free_bytes = cpu_free_bytes,
    .to_host = cpu_copy,
    .to_device = cpu_copy,
    .fill_uniform = cpu_fill_uniform,
    .fill_nan = cpu_fill_nan,
    .reference = cpu_reference,
    .compare = cpu_compare,
    .timer_start = cpu_timer_start,
    .timer_stop = cpu_timer_stop,
    .synchronize = cpu_synchronize,
    .flush_cache = cpu_flush_cache,
    .measure_ceilings = cpu_measure_ceilings,
    .stream = cpu_stream,
    .clock_probe = cpu_clock_probe,
};
