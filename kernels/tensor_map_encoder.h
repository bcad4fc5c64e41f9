/* cuTensorMapEncodeTiled, the driver's function that encodes a TMA tensor
 * map, looked up once through the runtime (the library links no driver
 * symbols): for rows_tma_tf32's input map and
 * polyphase_wgmma_fold_inplace_tf32's weight map. Host code only. */
#ifndef CONVT_KERNELS_TENSOR_MAP_ENCODER_H
#define CONVT_KERNELS_TENSOR_MAP_ENCODER_H

#include <cudaTypedefs.h>

#include "convt/errors.h"

/* The function, or NULL with the reason in e. */
static inline PFN_cuTensorMapEncodeTiled_v12000 convt_tensor_map_encoder(convt_err *e)
{
    static PFN_cuTensorMapEncodeTiled_v12000 encode = NULL;
    if (!encode) {
        cudaDriverEntryPointQueryResult q;
        void *fn = NULL;
        const cudaError_t err =
            cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &q);
        if (err != cudaSuccess || q != cudaDriverEntryPointSuccess || !fn) {
            convt_fail(e, "cuTensorMapEncodeTiled not found in the driver (%s)", cudaGetErrorString(err));
            return NULL;
        }
        encode = (PFN_cuTensorMapEncodeTiled_v12000)fn;
    }
    return encode;
}

#endif
