/* Small helpers shared by the CPU variants. */
#ifndef CONVT_KERNELS_CPU_COMMON_H
#define CONVT_KERNELS_CPU_COMMON_H

#include <stdint.h>

#ifdef _OPENMP
#include <omp.h>
#endif

/* The thread count a CPU variant uses for knob value `threads`: 0 means every
 * thread OpenMP offers. Without OpenMP everything runs on one thread. */
static inline int cpu_threads(int64_t threads)
{
#ifdef _OPENMP
    return threads > 0 ? (int)threads : omp_get_max_threads();
#else
    (void)threads;
    return 1;
#endif
}

#endif
