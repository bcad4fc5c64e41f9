/* What the standalone wgmma probes (tools/wgmma_probe.cu,
 * tools/wgmma_swizzle_probe.cu) share: a checked CUDA call that exits with
 * the call's text, and exact TF32 operands. */
#ifndef CONVT_TOOLS_WGMMA_PROBE_COMMON_CUH
#define CONVT_TOOLS_WGMMA_PROBE_COMMON_CUH

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#define CHECK(call)                                                                            \
    do {                                                                                       \
        cudaError_t err_ = (call);                                                             \
        if (err_ != cudaSuccess) {                                                             \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,                      \
                    cudaGetErrorString(err_));                                                 \
            exit(2);                                                                           \
        }                                                                                      \
    } while (0)

/* A float with its low 13 mantissa bits cleared: exactly a TF32 value, so
 * the tensor cores' own rounding cannot matter. */
static inline float tf32(float x)
{
    uint32_t u;
    memcpy(&u, &x, 4);
    u &= 0xffffe000u;
    memcpy(&x, &u, 4);
    return x;
}

#endif
