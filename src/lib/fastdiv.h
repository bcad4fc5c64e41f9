/* Division by a run-time constant as a multiply-high and a shift, for kernels
 * that split a row index into (image, q0, q1, q2) for every output they
 * write: a 32-bit integer division is about twenty instructions on the GPU, a
 * 64-bit one a call of about seventy; this is two.
 *
 * For a divisor d >= 2 with l = ceil(log2 d), mul = ceil(2^(31+l) / d) fits in
 * 32 bits and n / d == (n * mul) >> (31 + l) for every n < 2^31 (the rounding
 * error of mul, under 1, times n stays under 2^(31+l) / d's fractional
 * margin; tests/test_fastdiv.c checks it on edge and random values). d == 1 is
 * passed through. Written once for the host (where the tests run) and the
 * device. */
#ifndef CONVT_SRC_FASTDIV_H
#define CONVT_SRC_FASTDIV_H

#include <stdint.h>

#include "hostdevice.h"

typedef struct convt_fastdiv {
    uint32_t d, mul, shr; /* shr = l - 1: the 32 of the multiply-high is implied */
} convt_fastdiv;

/* d >= 1; the quotients are exact for dividends below 2^31. */
static inline convt_fastdiv convt_fastdiv_make(uint32_t d)
{
    convt_fastdiv f = {d, 0, 0};
    if (d <= 1)
        return f;
    uint32_t l = 0;
    while ((1ull << l) < d)
        l++;
    f.mul = (uint32_t)(((1ull << (31 + l)) + d - 1) / d);
    f.shr = l - 1;
    return f;
}

CONVT_HD uint32_t convt_fastdiv_div(convt_fastdiv f, uint32_t n)
{
#ifdef __CUDA_ARCH__
    uint32_t hi = __umulhi(n, f.mul);
#else
    uint32_t hi = (uint32_t)(((uint64_t)n * f.mul) >> 32);
#endif
    return f.d == 1 ? n : hi >> f.shr;
}

#endif
