/* Checking CUDA calls: every call's status is tested, and a failure becomes
 * a convt_err naming file, line, the call's own text and CUDA's message
 * (nvbench's habit). Errors that leave the context unusable (a kernel that
 * touched memory it must not) mark the device lost, so the worker can record
 * the failure and exit, and a new worker go on with the next run. */
#ifndef CONVT_SRC_CUDA_CHECK_H
#define CONVT_SRC_CUDA_CHECK_H

#include <cuda_runtime.h>

#include "errors.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Set when a sticky error was seen. It is process-wide because CUDA's is:
 * a sticky error poisons the process's context on the device for every
 * user, and only a new process gets a working one (convt-bench's worker
 * then exits; a libconvt caller must too). */
extern int convt_cuda_lost_flag;

int convt_cuda_fail(cudaError_t err, const char *file, int line, const char *call, convt_err *e);

#ifdef __cplusplus
}
#endif

#define CUDA_TRY(call, e)                                                                     \
    do {                                                                                      \
        cudaError_t cuda_try_err_ = (call);                                                   \
        if (cuda_try_err_ != cudaSuccess)                                                     \
            return convt_cuda_fail(cuda_try_err_, __FILE__, __LINE__, #call, (e));            \
    } while (0)

/* After a kernel launch: configuration errors show up here at once. */
#define CUDA_TRY_LAUNCH(e) CUDA_TRY(cudaGetLastError(), e)

#endif
