/* The planted bugs of planted_bugs.h as GPU kernels, for test_gpu.c. */
#include "cuda_check.h"
#include "planted_bugs.h"

extern "C" int planted_run_gpu(planted_bug bug, const convt_problem *p, const float *x,
                               const float *w, const float *b, float *y, void *stream,
                               convt_err *e);

struct planted_args {
    planted_bug bug;
    convt_problem p;
    convt_shape3 s;
    int64_t op[3], count;
};

__global__ void planted_kernel(planted_args a, const float *x, const float *w, const float *b,
                               float *y)
{
    int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i >= a.count || !planted_writes(a.bug, i, a.count))
        return;
    if (a.bug == PLANTED_NO_ZERO_FILL) /* accumulate into whatever y holds */
        y[i] += planted_point(PLANTED_NONE, &a.p, &a.s, a.op, x, w, b, i);
    else
        y[i] = planted_point(a.bug, &a.p, &a.s, a.op, x, w, b, i);
}

extern "C" int planted_run_gpu(planted_bug bug, const convt_problem *p, const float *x,
                               const float *w, const float *b, float *y, void *stream,
                               convt_err *e)
{
    planted_args a;
    a.bug = bug;
    a.p = *p;
    a.s = convt_problem_as_3d(p);
    planted_out_pad3(p, a.op);
    a.count = convt_y_elems(p);
    planted_kernel<<<(unsigned)((a.count + 127) / 128), 128, 0, (cudaStream_t)stream>>>(a, x, w, b,
                                                                                       y);
    CUDA_TRY_LAUNCH(e);
    return 0;
}
