/* A backend is where tensors live and variants run: the CPU (host memory,
 * wall-clock timing) or a CUDA device (device memory, CUDA events). The
 * driver is written once against this table; each backend fills it in its
 * own file (backend_cpu.c, backend_cuda.cu). */
#ifndef CONVT_SRC_BACKEND_H
#define CONVT_SRC_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "build_config.h"
#include "errors.h"
#include "gpu_clocks.h"
#include "problem.h"
#include "validate.h"
#include "variant.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Ceilings measured on the device at the start of a run; the floor of a
 * problem is max(min bytes / copy rate, FLOPs / GEMM rate of its tier). */
typedef struct convt_ceilings {
    double copy_gbps;                   /* device-to-device copy, bytes read + written */
    double gemm_gflops[CONVT_TIER_COUNT];
    char method[256];                   /* how they were measured, for the record */
} convt_ceilings;

typedef struct convt_backend {
    const char *name;
    convt_backend_kind kind;

    /* Opens device `index` (0: the first; --devices) and fills info; -1
     * when the backend cannot run here or has no such device. */
    int (*init)(int index, convt_device_info *info, convt_err *e);
    void (*shutdown)(void);
    /* True when an error from this backend left the device unusable. */
    bool (*lost)(void);

    void *(*alloc)(size_t bytes, convt_err *e);   /* NULL with e set on failure */
    void (*release)(void *ptr);                   /* accepts NULL */
    size_t (*free_bytes)(void);                   /* memory available for a shape */
    int (*to_host)(void *dst, const void *src, size_t bytes, convt_err *e);
    int (*to_device)(void *dst, const void *src, size_t bytes, convt_err *e);

    /* buf[i] = convt_uniform(seed, i, lo, hi) for i < count. */
    int (*fill_uniform)(float *buf, int64_t count, uint64_t seed, float lo, float hi,
                        convt_err *e);
    int (*fill_nan)(float *buf, int64_t count, convt_err *e);
    /* The float64 reference of the whole output (ref, mag in backend memory). */
    int (*reference)(const convt_problem *p, const convt_tensors *t, double *ref, double *mag,
                     convt_err *e);
    int (*compare)(const float *y, const double *ref, const double *mag, int64_t count,
                   const convt_tolerance *tol, convt_error_stats *out, convt_err *e);

    /* Timing brackets work enqueued on the stream; stop waits for it and
     * gives *ms = NaN when it cannot vouch for the sample (CUDA: the stream
     * hold gave up before the host had enqueued everything). */
    /* hold: keep the GPU from starting the sample's work until timer_stop
     * (CUDA; ignored on the CPU). Off for work that may synchronise inside a
     * call (a library's first call, some cuDNN algorithms): held, that
     * waits for the hold's timeout. */
    int (*timer_start)(bool hold, convt_err *e);
    int (*timer_stop)(double *ms, convt_err *e);
    /* Waits for all enqueued work; reports errors of asynchronous work. */
    int (*synchronize)(convt_err *e);
    /* Evicts the last-level cache (L2 on a GPU) by writing a buffer larger
     * than it; never inside a timed region. */
    int (*flush_cache)(convt_err *e);
    int (*measure_ceilings)(convt_ceilings *c, convt_err *e);
    /* The stream variants enqueue on (NULL on the CPU). */
    void *(*stream)(void);
    /* Optional: the device's clock now, read before and after each sample;
     * NULL or -1 when the backend cannot tell (the CPU; a GPU without NVML). */
    int (*read_clock)(convt_clock_reading *r);
    /* Optional: enqueues the same compute-bound work of about a millisecond
     * every time, whose time follows the processor's clock alone (no memory
     * traffic). Timed through a run, its spread is the device's drift: what
     * moves every record's time between two runs (driver.c). */
    int (*clock_probe)(convt_err *e);
} convt_backend;

extern const convt_backend convt_backend_cpu;
/* What a variant may know of device `index` (convt_device_info), without
 * touching a backend's state: the backends' init and libconvt's contexts
 * both fill it this way. -1 with e set when there is no such device. */
int convt_cpu_device_info(int index, convt_device_info *info, convt_err *e);
int convt_cuda_device_info(int index, convt_device_info *info, convt_err *e);
#if CONVT_HAVE_CUDA
extern const convt_backend convt_backend_cuda;
#endif

#ifdef __cplusplus
}
#endif
#endif
