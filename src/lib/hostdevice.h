/* Functions written once and compiled for both the CPU (C11) and the GPU
 * (CUDA): index math and the input generator must be the same function on
 * both sides, or the reference would check a different computation. */
#ifndef CONVT_SRC_HOSTDEVICE_H
#define CONVT_SRC_HOSTDEVICE_H

#include <stdint.h>

#ifdef __CUDACC__
#define CONVT_HD __host__ __device__ __forceinline__
#else
#define CONVT_HD static inline
#endif

/* Counter-based generator: element i of a stream is a pure function of
 * (seed, i), so the GPU fills buffers in parallel and the CPU can recompute
 * any element, with identical values. splitmix64's finaliser mixes well
 * enough that neighbouring indices are uncorrelated. */
CONVT_HD uint64_t convt_mix64(uint64_t z)
{
    z += 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* The next integer in [lo, hi] of a sequential stream whose state
 * convt_mix64 advances (random shapes, the CPU tests' random cases). */
CONVT_HD int64_t convt_next_in(uint64_t *state, int64_t lo, int64_t hi)
{
    *state = convt_mix64(*state);
    return lo + (int64_t)(*state % (uint64_t)(hi - lo + 1));
}

/* Uniform float in [lo, hi): the top 24 bits give every float32 step in [0,1). */
CONVT_HD float convt_uniform(uint64_t seed, uint64_t i, float lo, float hi)
{
    uint64_t r = convt_mix64(seed ^ convt_mix64(i));
    float u = (float)(r >> 40) * (1.0f / 16777216.0f);
    return lo + (hi - lo) * u;
}

#endif
