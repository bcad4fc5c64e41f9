/* What both cuDNN paths (the legacy API, cudnn_baseline.c, and the graph
 * API, cudnn_graph.c) can express of a transposed convolution: the one
 * shape check they share. */
#ifndef CONVT_KERNELS_CUDNN_COMMON_H
#define CONVT_KERNELS_CUDNN_COMMON_H

#include <stdbool.h>
#include <stdio.h>

#include "problem.h"

/* cuDNN describes y by the forward convolution that maps it back onto x,
 * which exists only when output_padding is below the stride (PyTorch also
 * allows out_pad < dil, which cuDNN refuses with BAD_PARAM); and its
 * descriptors, and cudnnAddTensor for the bias, take int sizes. */
static inline bool convt_cudnn_can_express(const convt_problem *p, char *why, size_t why_len)
{
    for (int d = 0; d < p->dims; d++)
        if (p->out_pad[d] >= p->stride[d]) {
            snprintf(why, why_len,
                     "out_pad[%d] = %lld is not below stride[%d] = %lld; cuDNN's backward-data "
                     "cannot express it",
                     d, (long long)p->out_pad[d], d, (long long)p->stride[d]);
            return false;
        }
    if (convt_x_elems(p) > 0x7fffffff || convt_y_elems(p) > 0x7fffffff ||
        convt_w_elems(p) > 0x7fffffff) {
        snprintf(why, why_len, "a tensor has 2^31 or more elements; cuDNN takes int sizes");
        return false;
    }
    return true;
}

#endif
