/* One float64 output point of the gather form: the function both the CPU
 * reference (reference.c) and the GPU reference kernel (backend_cuda.cu)
 * run, so that the GPU reference is the same computation, checked point by
 * point against the CPU in every run that uses it. */
#ifndef CONVT_SRC_REFERENCE_POINT_H
#define CONVT_SRC_REFERENCE_POINT_H

#include <math.h>

#include "hostdevice.h"
#include "stride_phase.h"
#include "problem.h"

CONVT_HD void convt_reference_point3(int64_t cin, int64_t cout, int64_t groups,
                                     const convt_shape3 *s, const float *x, const float *w,
                                     const float *b, int64_t idx, double *value,
                                     double *magnitude)
{
    int64_t o2 = idx % s->out[2];
    int64_t r = idx / s->out[2];
    int64_t o1 = r % s->out[1];
    r /= s->out[1];
    int64_t o0 = r % s->out[0];
    r /= s->out[0];
    int64_t co = r % cout;
    int64_t n = r / cout;

    int64_t cout_g = cout / groups, cin_g = cin / groups;
    int64_t g = co / cout_g, col = co - g * cout_g;
    double sum = 0.0, mag = 0.0;
    if (b) {
        sum = b[co];
        mag = fabs((double)b[co]);
    }
    for (int64_t ci = g * cin_g; ci < (g + 1) * cin_g; ci++)
        for (int64_t k0 = 0; k0 < s->k[0]; k0++) {
            int64_t i0 = convt_gather_src(o0, k0, s->stride[0], s->pad[0], s->dil[0], s->in[0]);
            if (i0 < 0)
                continue;
            for (int64_t k1 = 0; k1 < s->k[1]; k1++) {
                int64_t i1 =
                    convt_gather_src(o1, k1, s->stride[1], s->pad[1], s->dil[1], s->in[1]);
                if (i1 < 0)
                    continue;
                for (int64_t k2 = 0; k2 < s->k[2]; k2++) {
                    int64_t i2 =
                        convt_gather_src(o2, k2, s->stride[2], s->pad[2], s->dil[2], s->in[2]);
                    if (i2 < 0)
                        continue;
                    double xv =
                        x[(((n * cin + ci) * s->in[0] + i0) * s->in[1] + i1) * s->in[2] + i2];
                    double wv =
                        w[(((ci * cout_g + col) * s->k[0] + k0) * s->k[1] + k1) * s->k[2] + k2];
                    sum += xv * wv;
                    mag += fabs(xv * wv);
                }
            }
        }
    *value = sum;
    *magnitude = mag;
}

#endif
