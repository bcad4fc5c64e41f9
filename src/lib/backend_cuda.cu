/* The CUDA backend: tensors in device memory, variants enqueue on one
 * non-blocking stream, time from CUDA events around each sample. Also the
 * device-side halves of validation: the input generator, the NaN poison, the
 * float64 reference kernel (the same point function as the CPU reference)
 * and the comparison reduction. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include "build_config.h"
#if CONVT_HAVE_CUDNN
#include <cudnn.h>
#endif

#include "backend.h"
#include "cuda_check.h"
#include "reference_point.h"
#include "validate_core.h"

// ----------------------------------------------------------------------------
// error bookkeeping

int convt_cuda_lost_flag = 0;

static bool is_sticky(cudaError_t err)
{
    switch (err) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorMisalignedAddress:
    case cudaErrorIllegalInstruction:
    case cudaErrorInvalidPc:
    case cudaErrorHardwareStackError:
    case cudaErrorAssert:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorLaunchTimeout:
    case cudaErrorECCUncorrectable:
        return true;
    default:
        return false;
    }
}

extern "C" int convt_cuda_fail(cudaError_t err, const char *file, int line, const char *call,
                               convt_err *e)
{
    if (is_sticky(err))
        convt_cuda_lost_flag = 1;
    else
        (void)cudaGetLastError(); /* clear a non-sticky error so it is not reported twice */
    return convt_fail(e, "%s:%d: %s: %s (%s)%s", file, line, call, cudaGetErrorString(err),
                      cudaGetErrorName(err),
                      is_sticky(err) ? "; the CUDA context is lost and will be reset" : "");
}

// ----------------------------------------------------------------------------
// kernels

static int grid_for(int64_t count, int block)
{
    int64_t g = (count + block - 1) / block;
    return (int)(g < 65535 * 16 ? (g > 0 ? g : 1) : 65535 * 16);
}

__global__ void fill_uniform_kernel(float *buf, int64_t count, uint64_t seed, float lo, float hi)
{
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < count;
         i += (int64_t)gridDim.x * blockDim.x)
        buf[i] = convt_uniform(seed, (uint64_t)i, lo, hi);
}

__global__ void fill_nan_kernel(float *buf, int64_t count)
{
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < count;
         i += (int64_t)gridDim.x * blockDim.x)
        buf[i] = __int_as_float(0x7fc00000);
}

struct ref_args {
    int64_t cin, cout, groups, count;
    convt_shape3 s;
};

__global__ void reference_kernel(ref_args a, const float *x, const float *w, const float *b,
                                 double *ref, double *mag)
{
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < a.count;
         i += (int64_t)gridDim.x * blockDim.x) {
        double v, m;
        convt_reference_point3(a.cin, a.cout, a.groups, &a.s, x, w, b, i, &v, &m);
        ref[i] = v;
        mag[i] = m;
    }
}

#define COMPARE_BLOCK 256
#define COMPARE_GRID 1024

__global__ void __launch_bounds__(COMPARE_BLOCK)
    compare_kernel(const float *y, const double *ref, const double *mag, int64_t count,
                   double rtol, double atol, convt_error_stats *partials)
{
    __shared__ convt_error_stats part[COMPARE_BLOCK];
    convt_error_stats mine;
    convt_stats_clear(&mine);
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < count;
         i += (int64_t)gridDim.x * blockDim.x)
        convt_stats_add(&mine, rtol, atol, i, y[i], ref[i], mag[i]);
    part[threadIdx.x] = mine;
    __syncthreads();
    for (int half = COMPARE_BLOCK / 2; half > 0; half /= 2) {
        if ((int)threadIdx.x < half)
            convt_stats_merge(&part[threadIdx.x], &part[threadIdx.x + half]);
        __syncthreads();
    }
    if (threadIdx.x == 0)
        partials[blockIdx.x] = part[0];
}

// ----------------------------------------------------------------------------
// holding the stream while a sample is enqueued

/* A sample's launches are enqueued behind a kernel that spins until the host
 * has enqueued them all and the stop event too, and the start event is
 * recorded between the two. The events then bracket GPU work only: without
 * the hold, the host time of each call (tens of microseconds inside cuDNN)
 * lands inside the sample of a short run, and a batch of short launches
 * measures the host's launch rate instead of the kernel (the same device as
 * nvbench's blocking kernel). The spin gives up after HOLD_TIMEOUT_NS, so a
 * full launch queue, or a call that synchronises inside (seen on the H100:
 * cuBLAS's first GEMM, a cuDNN FFT algorithm), cannot deadlock the host;
 * that sample is thrown away and the run is timed unheld (measure.c). */
#define HOLD_TIMEOUT_NS 200000000ull

__device__ __forceinline__ unsigned long long global_ns()
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

__global__ void hold_stream_kernel(const volatile int *release, volatile int *timed_out)
{
    unsigned long long t0 = global_ns();
    while (!*release)
        if (global_ns() - t0 > HOLD_TIMEOUT_NS) {
            *timed_out = 1;
            return;
        }
}

// ----------------------------------------------------------------------------
// the clock probe

/* A dependent FMA chain per thread, no memory traffic: its time is cycles /
 * SM clock, provided every SM runs the same work. Each block asks for more
 * than half an SM's shared memory, so exactly one block runs on each SM
 * (with several small blocks per SM the block scheduler may load some SMs
 * more than others, and the time then varies with the placement: seen on the
 * H100 as 1.28 to 1.35 ms at a steady 1980 MHz). 32 warps per SM, 8 per
 * scheduler, keep each scheduler issuing one FMA a cycle: at 1980 MHz,
 * 8 x PROBE_ITERS cycles take about 1 ms. */
#define PROBE_ITERS 250000
#define PROBE_BLOCK 1024

__global__ void __launch_bounds__(PROBE_BLOCK) clock_probe_kernel(float seed, float *sink)
{
    extern __shared__ float reserved[]; /* never used: it keeps other blocks off this SM */
    float a = seed + threadIdx.x * 1e-7f, b = 0.999999f, c = 1e-7f;
#pragma unroll 16
    for (int i = 0; i < PROBE_ITERS; i++)
        a = fmaf(a, b, c);
    if (a == 12345.0f) { /* never true; keeps the chain alive */
        reserved[0] = a;
        *sink = reserved[0];
    }
}

// ----------------------------------------------------------------------------
// state

static cudaStream_t stream;
static cudaEvent_t ev_start, ev_stop;
static int sm_count;
static convt_error_stats *d_partials;
static void *flush_buf;
static size_t flush_len;
static int device_id;
static volatile int *hold_flags; /* [0]: release, [1]: timed out; mapped host memory */
static int *hold_flags_dev;      /* the same memory as the device sees it */

static int create_resources(convt_err *e)
{
    CUDA_TRY(cudaSetDevice(device_id), e);
    CUDA_TRY(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), e);
    CUDA_TRY(cudaEventCreate(&ev_start), e);
    CUDA_TRY(cudaEventCreate(&ev_stop), e);
    CUDA_TRY(cudaMalloc((void **)&d_partials, COMPARE_GRID * sizeof(convt_error_stats)), e);
    CUDA_TRY(cudaHostAlloc((void **)&hold_flags, 2 * sizeof(int), cudaHostAllocMapped), e);
    CUDA_TRY(cudaHostGetDevicePointer((void **)&hold_flags_dev, (void *)hold_flags, 0), e);
    return 0;
}

static void destroy_resources(void)
{
    if (flush_buf)
        cudaFree(flush_buf);
    if (d_partials)
        cudaFree(d_partials);
    if (hold_flags)
        cudaFreeHost((void *)hold_flags);
    hold_flags = NULL;
    hold_flags_dev = NULL;
    if (ev_start)
        cudaEventDestroy(ev_start);
    if (ev_stop)
        cudaEventDestroy(ev_stop);
    if (stream)
        cudaStreamDestroy(stream);
    flush_buf = NULL;
    d_partials = NULL;
    ev_start = ev_stop = NULL;
    stream = NULL;
}

static int attr(cudaDeviceAttr a, int index)
{
    int v = 0;
    if (cudaDeviceGetAttribute(&v, a, index) != cudaSuccess)
        (void)cudaGetLastError();
    return v;
}

int convt_cuda_device_info(int index, convt_device_info *info, convt_err *e)
{
    int count = 0;
    cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess) {
        (void)cudaGetLastError();
        return convt_fail(e, "no usable CUDA device (%s)", cudaGetErrorString(err));
    }
    if (count == 0)
        return convt_fail(e, "no CUDA device found");
    if (index < 0 || index >= count)
        return convt_fail(e, "no CUDA device %d: this host has %d (0 to %d)", index, count,
                          count - 1);
    cudaDeviceProp prop;
    CUDA_TRY(cudaGetDeviceProperties(&prop, index), e);
    memset(info, 0, sizeof *info);
    info->backend = CONVT_BACKEND_CUDA;
    info->index = index;
    info->count = count;
    CUDA_TRY(cudaDeviceGetPCIBusId(info->pci_bus_id, (int)sizeof info->pci_bus_id, index), e);
    snprintf(info->name, sizeof info->name, "%.127s", prop.name);
    info->sm_count = prop.multiProcessorCount;
    info->cc_major = prop.major;
    info->cc_minor = prop.minor;
    info->sm_clock_mhz = attr(cudaDevAttrClockRate, index) / 1000;
    info->mem_clock_mhz = attr(cudaDevAttrMemoryClockRate, index) / 1000;
    info->mem_bus_bits = attr(cudaDevAttrGlobalMemoryBusWidth, index);
    info->global_mem = prop.totalGlobalMem;
    info->l2_bytes = (size_t)prop.l2CacheSize;
    info->smem_per_block = prop.sharedMemPerBlock;
    info->smem_per_block_optin = prop.sharedMemPerBlockOptin;
    info->smem_per_sm = prop.sharedMemPerMultiprocessor;
    info->max_threads_per_block = prop.maxThreadsPerBlock;
    CUDA_TRY(cudaDriverGetVersion(&info->driver_version), e);
    CUDA_TRY(cudaRuntimeGetVersion(&info->runtime_version), e);
#if CONVT_HAVE_CUDNN
    info->cudnn_version = (int)cudnnGetVersion();
#endif
    int cublas_version = 0;
    cublasHandle_t h;
    if (cublasCreate(&h) == CUBLAS_STATUS_SUCCESS) {
        cublasGetVersion(h, &cublas_version);
        cublasDestroy(h);
    }
    info->cublas_version = cublas_version;
    return 0;
}

static int cuda_init(int index, convt_device_info *info, convt_err *e)
{
    if (convt_cuda_device_info(index, info, e))
        return -1;
    device_id = index;
    sm_count = info->sm_count;
    flush_len = 2 * info->l2_bytes;
    info->nvml = convt_gpu_clocks_open(info->pci_bus_id);
    return create_resources(e);
}

static void cuda_shutdown(void)
{
    destroy_resources();
    convt_gpu_clocks_close();
}

static bool cuda_lost(void) { return convt_cuda_lost_flag != 0; }

static void *cuda_alloc(size_t bytes, convt_err *e)
{
    void *p = NULL;
    cudaError_t err = cudaMalloc(&p, bytes ? bytes : 1);
    if (err != cudaSuccess) {
        convt_cuda_fail(err, __FILE__, __LINE__, "cudaMalloc", e);
        return NULL;
    }
    return p;
}

static void cuda_release(void *p)
{
    if (p && cudaFree(p) != cudaSuccess)
        (void)cudaGetLastError();
}

static size_t cuda_free_bytes(void)
{
    size_t free_b = 0, total = 0;
    if (cudaMemGetInfo(&free_b, &total) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return free_b;
}

static int cuda_to_host(void *dst, const void *src, size_t bytes, convt_err *e)
{
    CUDA_TRY(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, stream), e);
    CUDA_TRY(cudaStreamSynchronize(stream), e);
    return 0;
}

static int cuda_to_device(void *dst, const void *src, size_t bytes, convt_err *e)
{
    CUDA_TRY(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, stream), e);
    CUDA_TRY(cudaStreamSynchronize(stream), e);
    return 0;
}

static int cuda_fill_uniform(float *buf, int64_t count, uint64_t seed, float lo, float hi,
                             convt_err *e)
{
    fill_uniform_kernel<<<grid_for(count, 256), 256, 0, stream>>>(buf, count, seed, lo, hi);
    CUDA_TRY_LAUNCH(e);
    return 0;
}

static int cuda_fill_nan(float *buf, int64_t count, convt_err *e)
{
    fill_nan_kernel<<<grid_for(count, 256), 256, 0, stream>>>(buf, count);
    CUDA_TRY_LAUNCH(e);
    return 0;
}

static int cuda_reference(const convt_problem *p, const convt_tensors *t, double *ref,
                          double *mag, convt_err *e)
{
    ref_args a;
    a.cin = p->cin;
    a.cout = p->cout;
    a.groups = p->groups;
    a.count = convt_y_elems(p);
    a.s = convt_problem_as_3d(p);
    reference_kernel<<<grid_for(a.count, 128), 128, 0, stream>>>(a, t->x, t->w,
                                                                  p->bias ? t->b : NULL, ref, mag);
    CUDA_TRY_LAUNCH(e);
    CUDA_TRY(cudaStreamSynchronize(stream), e);
    return 0;
}

static int cuda_compare(const float *y, const double *ref, const double *mag, int64_t count,
                        const convt_tolerance *tol, convt_error_stats *out, convt_err *e)
{
    static convt_error_stats host[COMPARE_GRID];
    compare_kernel<<<COMPARE_GRID, COMPARE_BLOCK, 0, stream>>>(y, ref, mag, count, tol->rtol,
                                                               tol->atol, d_partials);
    CUDA_TRY_LAUNCH(e);
    CUDA_TRY(cudaMemcpyAsync(host, d_partials, sizeof host, cudaMemcpyDeviceToHost, stream), e);
    CUDA_TRY(cudaStreamSynchronize(stream), e);
    convt_stats_clear(out);
    for (int i = 0; i < COMPARE_GRID; i++)
        convt_stats_merge(out, &host[i]);
    return 0;
}

static int cuda_timer_start(bool hold, convt_err *e)
{
    hold_flags[0] = 0;
    hold_flags[1] = 0;
    if (!hold) {
        hold_flags[0] = 1;
        CUDA_TRY(cudaEventRecord(ev_start, stream), e);
        return 0;
    }
    hold_stream_kernel<<<1, 1, 0, stream>>>(hold_flags_dev, hold_flags_dev + 1);
    CUDA_TRY_LAUNCH(e);
    CUDA_TRY(cudaEventRecord(ev_start, stream), e);
    return 0;
}

static int cuda_timer_stop(double *ms, convt_err *e)
{
    float f = 0;
    CUDA_TRY(cudaEventRecord(ev_stop, stream), e);
    __sync_synchronize();
    hold_flags[0] = 1; /* everything is enqueued: let the GPU start */
    CUDA_TRY(cudaEventSynchronize(ev_stop), e);
    CUDA_TRY(cudaEventElapsedTime(&f, ev_start, ev_stop), e);
    *ms = hold_flags[1] ? NAN : f;
    return 0;
}

static int cuda_synchronize(convt_err *e)
{
    CUDA_TRY(cudaStreamSynchronize(stream), e);
    CUDA_TRY(cudaGetLastError(), e);
    return 0;
}

static int cuda_flush_cache(convt_err *e)
{
    if (!flush_buf)
        CUDA_TRY(cudaMalloc(&flush_buf, flush_len), e);
    static int stamp;
    CUDA_TRY(cudaMemsetAsync(flush_buf, ++stamp & 0xff, flush_len, stream), e);
    return 0;
}

// ----------------------------------------------------------------------------
// ceilings: measured, never taken from a datasheet

static double median3(double *v, int n)
{
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && v[j] < v[j - 1]; j--) {
            double t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
    return v[n / 2];
}

static int time_copy(double *gbps, convt_err *e)
{
    const size_t bytes = (size_t)1 << 30;
    void *a = NULL, *b = NULL;
    double ms[7];
    int rc = -1;
    if (!(a = cuda_alloc(bytes, e)) || !(b = cuda_alloc(bytes, e)))
        goto out;
    if (cuda_fill_uniform((float *)a, bytes / 4, 1, -1, 1, e))
        goto out;
    for (int rep = -2; rep < 7; rep++) {
        if (cuda_timer_start(false, e))
            goto out;
        cudaError_t err = cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice, stream);
        if (err != cudaSuccess) {
            convt_cuda_fail(err, __FILE__, __LINE__, "cudaMemcpyAsync", e);
            goto out;
        }
        double t;
        if (cuda_timer_stop(&t, e))
            goto out;
        if (isnan(t)) {
            convt_fail(e, "copy-bandwidth probe: the stream hold timed out");
            goto out;
        }
        if (rep >= 0)
            ms[rep] = t;
    }
    *gbps = 2.0 * bytes / (median3(ms, 7) * 1e6);
    rc = 0;
out:
    cuda_release(a);
    cuda_release(b);
    return rc;
}

static int time_gemm(cublasHandle_t h, cublasComputeType_t type, const float *A, const float *B,
                     float *C, int n, double *gflops, convt_err *e)
{
    const float one = 1.0f, zero = 0.0f;
    double ms[5];
    for (int rep = -2; rep < 5; rep++) {
        if (cuda_timer_start(false, e))
            return -1;
        cublasStatus_t st = cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, A,
                                         CUDA_R_32F, n, B, CUDA_R_32F, n, &zero, C, CUDA_R_32F,
                                         n, type, CUBLAS_GEMM_DEFAULT);
        if (st != CUBLAS_STATUS_SUCCESS)
            return convt_fail(e, "cublasGemmEx (%d x %d x %d): status %d", n, n, n, (int)st);
        double t;
        if (cuda_timer_stop(&t, e))
            return -1;
        if (isnan(t))
            return convt_fail(e, "GEMM-rate probe: the stream hold timed out");
        if (rep >= 0)
            ms[rep] = t;
    }
    *gflops = 2.0 * n * (double)n * n / (median3(ms, 5) * 1e6);
    return 0;
}

static int cuda_measure_ceilings(convt_ceilings *c, convt_err *e)
{
    const int n = 8192;
    const size_t bytes = (size_t)n * n * sizeof(float);
    float *A = NULL, *B = NULL, *C = NULL;
    cublasHandle_t h = NULL;
    int rc = -1;
    if (time_copy(&c->copy_gbps, e))
        return -1;
    if (!(A = (float *)cuda_alloc(bytes, e)) || !(B = (float *)cuda_alloc(bytes, e)) ||
        !(C = (float *)cuda_alloc(bytes, e)))
        goto out;
    /* Random operands: zeros run measurably faster on tensor cores. */
    if (cuda_fill_uniform(A, (int64_t)n * n, 11, -1, 1, e) ||
        cuda_fill_uniform(B, (int64_t)n * n, 12, -1, 1, e))
        goto out;
    if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) {
        convt_fail(e, "cublasCreate failed");
        goto out;
    }
    cublasSetStream(h, stream);
    if (time_gemm(h, CUBLAS_COMPUTE_32F, A, B, C, n, &c->gemm_gflops[CONVT_TIER_FP32],
                  e) ||
        time_gemm(h, CUBLAS_COMPUTE_32F_FAST_TF32, A, B, C, n,
                  &c->gemm_gflops[CONVT_TIER_TF32], e))
        goto out;
    snprintf(c->method, sizeof c->method,
             "cuda: cudaMemcpyAsync device-to-device of 1 GiB (median of 7, read+write bytes); "
             "cublasGemmEx %dx%dx%d float32, COMPUTE_32F (fp32) and "
             "COMPUTE_32F_FAST_TF32 (tf32), median of 5, random operands",
             n, n, n);
    rc = 0;
out:
    if (h)
        cublasDestroy(h);
    cuda_release(A);
    cuda_release(B);
    cuda_release(C);
    return rc;
}

static void *cuda_stream(void) { return (void *)stream; }

static int cuda_read_clock(convt_clock_reading *r) { return convt_gpu_clocks_read(r); }

static int cuda_clock_probe(convt_err *e)
{
    static size_t smem; /* set once: a worker whose context is lost exits */
    if (!smem) {
        int per_sm = attr(cudaDevAttrMaxSharedMemoryPerMultiprocessor, device_id);
        int per_block = attr(cudaDevAttrMaxSharedMemoryPerBlockOptin, device_id);
        size_t want = (size_t)per_sm / 2 + 1024;
        if (want > (size_t)per_block)
            return convt_fail(e, "the clock probe needs %zu bytes of shared memory per block; "
                                 "the device allows %d", want, per_block);
        CUDA_TRY(cudaFuncSetAttribute(clock_probe_kernel,
                                      cudaFuncAttributeMaxDynamicSharedMemorySize, (int)want),
                 e);
        smem = want;
    }
    clock_probe_kernel<<<sm_count, PROBE_BLOCK, smem, stream>>>(1.0f, (float *)d_partials);
    CUDA_TRY_LAUNCH(e);
    return 0;
}

extern "C" const convt_backend convt_backend_cuda = {
    .name = "cuda",
    .kind = CONVT_BACKEND_CUDA,
    .init = cuda_init,
    .shutdown = cuda_shutdown,
    .lost = cuda_lost,
    .alloc = cuda_alloc,
    .release = cuda_release,
    .free_bytes = cuda_free_bytes,
    .to_host = cuda_to_host,
    .to_device = cuda_to_device,
    .fill_uniform = cuda_fill_uniform,
    .fill_nan = cuda_fill_nan,
    .reference = cuda_reference,
    .compare = cuda_compare,
    .timer_start = cuda_timer_start,
    .timer_stop = cuda_timer_stop,
    .synchronize = cuda_synchronize,
    .flush_cache = cuda_flush_cache,
    .measure_ceilings = cuda_measure_ceilings,
    .stream = cuda_stream,
    .read_clock = cuda_read_clock,
    .clock_probe = cuda_clock_probe,
};
