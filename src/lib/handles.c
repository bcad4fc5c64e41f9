/* The vendor-library handles of one context (convt/variant.h): made on the
 * first prepare() that needs one, so that a context whose plans never use
 * cuDNN never loads it, and kept until the context goes. */
#include <stddef.h>

#include "build_config.h"
#include "variant.h"

#if CONVT_HAVE_CUDA
#include <cublas_v2.h>
#endif
#if CONVT_HAVE_CUDNN
#include <cudnn.h>
#endif

int convt_handles_cublas(const convt_context *ctx, void **handle, convt_err *e)
{
    if (!ctx->handles)
        return convt_fail(e, "this context holds no library handles (convt_context.handles)");
#if CONVT_HAVE_CUDA
    if (!ctx->handles->cublas) {
        cublasHandle_t h;
        cublasStatus_t st = cublasCreate(&h);
        if (st != CUBLAS_STATUS_SUCCESS)
            return convt_fail(e, "cublasCreate: %s", cublasGetStatusString(st));
        ctx->handles->cublas = h;
    }
    *handle = ctx->handles->cublas;
    return 0;
#else
    (void)handle;
    return convt_fail(e, "built without CUDA: no cuBLAS");
#endif
}

int convt_handles_cudnn(const convt_context *ctx, void **handle, convt_err *e)
{
    if (!ctx->handles)
        return convt_fail(e, "this context holds no library handles (convt_context.handles)");
#if CONVT_HAVE_CUDNN
    if (!ctx->handles->cudnn) {
        cudnnHandle_t h;
        cudnnStatus_t st = cudnnCreate(&h);
        if (st != CUDNN_STATUS_SUCCESS)
            return convt_fail(e, "cudnnCreate: %s", cudnnGetErrorString(st));
        ctx->handles->cudnn = h;
    }
    *handle = ctx->handles->cudnn;
    return 0;
#else
    (void)handle;
    return convt_fail(e, "built without cuDNN");
#endif
}

void convt_handles_destroy(convt_handles *h, bool lost)
{
    if (!h)
        return;
#if CONVT_HAVE_CUDA
    if (h->cublas && !lost)
        cublasDestroy((cublasHandle_t)h->cublas);
#endif
#if CONVT_HAVE_CUDNN
    if (h->cudnn && !lost)
        cudnnDestroy((cudnnHandle_t)h->cudnn);
#endif
    h->cublas = h->cudnn = NULL;
}
